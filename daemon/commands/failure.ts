/**
 * How a subcommand fails: one line on stderr naming what is wrong and how to fix it (a usage error adds
 * a line pointing at the command's --help), and the exit code that says which kind of failure it was
 * (exit-codes.ts). Never a stack, never a secret.
 */
import { isMcpError, RequestTimedOut, UpstreamError } from '../errors.ts';
import { EXIT } from './exit-codes.ts';
import { interruption } from './session.ts';
import { terminalSafe } from './terminal-safe.ts';

type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the command already explained: its message is printed as it is. */
export class CommandError extends Error {
  override name = 'CommandError';
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
  }
}

export const usageError = (message: string): CommandError => new CommandError(message, EXIT.usage);
export const connectionError = (message: string): CommandError => new CommandError(message, EXIT.connection);
export const serverError = (message: string): CommandError => new CommandError(message, EXIT.serverError);

/** McpError prefixes "MCP error -32602: "; the code is said on its own. */
function bareMessage(message: string): string {
  return message.replace(/^(MCP error -?\d+: )+/, '');
}

/**
 * Sorts a failure into an exit code. An error the server answered (a JSON-RPC error, numeric code) is a
 * server error; the daemon's own failures to start or reach a server carry a word code
 * (COMMAND_NOT_FOUND, CONNECTION_REFUSED, PROCESS_EXITED…) and are connection failures.
 */
export function classify(error: unknown): CommandError {
  if (error instanceof CommandError) return error;
  if (error instanceof RequestTimedOut) {
    return serverError(`no answer from the server in time: the call timed out (${error.code})`);
  }
  if (isMcpError(error))
    return serverError(`the server answered error ${error.code}: ${bareMessage(error.message)}`);
  if (error instanceof UpstreamError) {
    return typeof error.code === 'string'
      ? connectionError(error.message)
      : serverError(`the server answered error ${String(error.code ?? '')}: ${bareMessage(error.message)}`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return serverError(`failed: ${message}`);
}

/** Runs a command's body, printing its failure as `inspector-daemon <command>: <message>`. */
export async function guarded(command: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    const signal = interruption();
    if (signal) {
      console.error(`inspector-daemon ${command}: interrupted (${signal})`);
      return EXIT.serverError;
    }
    const failure = classify(error);
    // A server's words are in it: no escape sequence of theirs reaches the terminal.
    console.error(`inspector-daemon ${command}: ${terminalSafe(failure.message)}`);
    if (failure.exitCode === EXIT.usage) console.error(`See \`inspector-daemon ${command} --help\`.`);
    return failure.exitCode;
  }
}
