/**
 * A server opened in this process, with the daemon's own ServerConnection: the same transports, STDIO
 * reader, secret redaction and process-group cleanup as the daemon, without a daemon.
 */
import type { ElicitResult } from '@modelcontextprotocol/client';
import { LogBus } from '../logs/log-bus.ts';
import { SamplingRejected } from '../mcp/execution.ts';
import { redact, redactJson, secretsOf } from '../mcp/redact.ts';
import { resultProblemOf } from '../mcp/result-problem.ts';
import { ServerConnection } from '../mcp/server-connection.ts';
import type { ServerRecord } from '../../shared/servers.ts';
import type { StoredServer } from '../servers/registry-file.ts';
import type { Answerer } from './answers.ts';
import { classify, CommandError, connectionError } from './failure.ts';
import { closeOnInterrupt, type Session } from './session.ts';
import { terminalSafe } from './terminal-safe.ts';

export interface LocalOptions {
  answerer: Answerer;
  /** The server as messages name it: `"id"`, or how it was given inline. */
  label: string;
  /** Print the JSON-RPC log and the server's stderr on stderr. */
  verbose: boolean;
  connectTimeoutMs?: number;
  /** A tool call that makes no progress for this long fails (default 5 minutes, as in the daemon). */
  toolTimeoutMs?: number;
  /** The bus the connection logs to, for a caller that keeps the log (`record`). */
  bus?: LogBus;
}

/** A session in this process also tells what the server said of itself when it connected. */
export interface LocalSession extends Session {
  /** The server's record: its info, protocol version, capabilities and instructions, secrets masked. */
  server(): ServerRecord;
}

export async function openLocal(server: StoredServer, options: LocalOptions): Promise<LocalSession> {
  const bus = options.bus ?? new LogBus(100);
  if (options.verbose) {
    bus.subscribe((entry) => {
      const text = typeof entry.message === 'string' ? entry.message : JSON.stringify(entry.message);
      console.error(terminalSafe(`[${entry.direction}] ${text}`));
    });
  }
  const connection = new ServerConnection(server.id, server.name, server.config, {
    bus,
    connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
    onElicitation: async (_id, params) => options.answerer.answer(params) as ElicitResult,
    onSampling: async () => {
      options.answerer.sampling();
      throw new SamplingRejected('decline');
    },
  });
  // A tool may echo the server's env or headers back (get-env): what is printed is redacted like the log.
  const secrets = secretsOf(server.config);
  const safely = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return redactJson(await work(), secrets);
    } catch (error) {
      const failure = classify(error);
      throw new CommandError(redact(failure.message, secrets), failure.exitCode);
    }
  };
  // Ctrl+C while the server starts stops it too (session.ts), not only once the session is open.
  const release = closeOnInterrupt(() => connection.disconnect());
  try {
    await connection.ensureConnected();
  } catch (error) {
    await connection.disconnect();
    throw connectionError(`cannot connect to ${options.label}: ${redact((error as Error).message, secrets)}`);
  } finally {
    release();
  }
  const listAll = (method: string, key: string) =>
    safely(async () => (await connection.listAll(method, key)).items);
  // --timeout holds for a read and a prompt too; without it the SDK's own (60 s) does.
  const within = options.toolTimeoutMs === undefined ? undefined : { timeout: options.toolTimeoutMs };
  return {
    listTools: () => listAll('tools/list', 'tools'),
    callTool: (name, args) =>
      safely(async () => {
        const result = await connection.callTool(name, args, {
          timeout: options.toolTimeoutMs ?? 5 * 60_000,
          resetTimeoutOnProgress: true,
          // Asking for progress is what makes the server send it, and progress is what keeps a long
          // call within its time-out (the SDK sends a progressToken only with this).
          onprogress: () => {},
        });
        return { result, ...resultProblemOf(result) };
      }),
    listResources: () => listAll('resources/list', 'resources'),
    readResource: (uri) => safely(() => connection.request('resources/read', { uri }, within)),
    listPrompts: () => listAll('prompts/list', 'prompts'),
    getPrompt: (name, args) =>
      safely(() =>
        connection.request(
          'prompts/get',
          { name, ...(Object.keys(args).length && { arguments: args }) },
          within,
        ),
      ),
    server: () => connection.record(),
    close: () => connection.disconnect(),
  };
}
