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

const open = new Set<Session>();
let handling = false;
let interruptedBy: NodeJS.Signals | undefined;

/** The signal that interrupted the command, if one did: its pending call fails because of it. */
export const interruption = (): NodeJS.Signals | undefined => interruptedBy;

/**
 * Keeps a session to be closed if the command is interrupted: Ctrl+C (or SIGTERM) stops the STDIO
 * server the command started (it runs in its own process group, so the terminal's signal does not
 * reach it) before the command exits.
 */
export function track(session: Session): Session {
  open.add(session);
  if (!handling) {
    handling = true;
    const stop = (signal: NodeJS.Signals, code: number) => {
      process.on(signal, () => {
        interruptedBy = signal;
        // The calls the close ended report their failure first (a chain of promise callbacks, all run
        // before the next turn of the event loop), then the command exits.
        void Promise.allSettled([...open].map((s) => s.close())).then(() =>
          setImmediate(() => process.exit(code)),
        );
      });
    };
    stop('SIGINT', 130);
    stop('SIGTERM', 143);
  }
  // Sessions are plain objects of functions: the copy keeps them and wraps close.
  return {
    ...session,
    close: async () => {
      open.delete(session);
      await session.close();
    },
  };
}
