import type { JsonObject } from '../../shared/api.ts';

/**
 * The server a command talks to, opened either in this process (local-session.ts) or through a
 * running daemon (daemon-session.ts). Results are the server's own, as MCP defines them.
 */
/**
 * A tool's result as the server sent it, and what breaks the 2026-07-28 schema in it when the server
 * broke it: the result is passed on anyway, for the command to show and fail on.
 */
export interface ToolCallOutcome {
  result: JsonObject;
  resultProblem?: string;
}

export interface Session {
  listTools(): Promise<JsonObject[]>;
  /** tools/call; elicitations on the way are answered from `--answer`. */
  callTool(name: string, args: JsonObject): Promise<ToolCallOutcome>;
  listResources(): Promise<JsonObject[]>;
  readResource(uri: string): Promise<JsonObject>;
  listPrompts(): Promise<JsonObject[]>;
  getPrompt(name: string, args: Record<string, string>): Promise<JsonObject>;
  /** Ends the connection: a STDIO server started for the command is stopped. */
  close(): Promise<void>;
}

/** What an interruption must close: the sessions open, and the connections being opened. */
const closers = new Set<() => Promise<void>>();
let handling = false;
let interruptedBy: NodeJS.Signals | undefined;

/** The signal that interrupted the command, if one did: its pending call fails because of it. */
export const interruption = (): NodeJS.Signals | undefined => interruptedBy;

/**
 * Has `close` run if the command is interrupted (Ctrl+C or SIGTERM) before the returned function is
 * called: a STDIO server the command started runs in its own process group, so the terminal's signal
 * does not reach it, and it is stopped before the command exits. Held from before the connection
 * starts, so a server still starting (a slow `npx` download) is stopped too.
 */
export function closeOnInterrupt(close: () => Promise<void>): () => void {
  closers.add(close);
  if (!handling) {
    handling = true;
    const stop = (signal: NodeJS.Signals, code: number) => {
      process.on(signal, () => {
        interruptedBy = signal;
        end(code);
      });
    };
    stop('SIGINT', 130);
    stop('SIGTERM', 143);
  }
  return () => closers.delete(close);
}

/** Closes what is open (a STDIO server the command started), then exits with `code`. */
function end(code: number): void {
  // The calls the close ended report their failure first (a chain of promise callbacks, all run before
  // the next turn of the event loop), then the command exits.
  void Promise.allSettled([...closers].map((closing) => closing())).then(() =>
    setImmediate(() => process.exit(code)),
  );
}

/**
 * A reader of the command's output that stops reading (`| head -1`, `| true`) ends the command quietly,
 * as it ends any command-line tool: what is open is closed, and the exit code is the one so far. With
 * `finish` (a test run, whose outcome is its exit code and its report) the command runs to its end
 * instead, its output dropped: a CI step piping it through `head` must not pass because it stopped.
 */
export function endWhenOutputCloses(finish = false): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (finish && error.code === 'EPIPE') {
      process.stdout.write = (() => true) as typeof process.stdout.write;
      return;
    }
    if (error.code !== 'EPIPE')
      process.stderr.write(`inspector-daemon: cannot write the output: ${error.message}\n`);
    const code = typeof process.exitCode === 'number' ? process.exitCode : 0;
    end(error.code === 'EPIPE' ? code : 1);
  });
}

/** Keeps a session to be closed if the command is interrupted (closeOnInterrupt). */
export function track<S extends Session>(session: S): S {
  const release = closeOnInterrupt(() => session.close());
  // Sessions are plain objects of functions: the copy keeps them and wraps close.
  return {
    ...session,
    close: async () => {
      release();
      await session.close();
    },
  };
}
