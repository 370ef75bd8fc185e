import { DaemonError } from '../app/daemon-client';

/** JSON-RPC "Method not found": the server does not offer that feature (no such capability). */
export const METHOD_NOT_FOUND = -32601;

export function isMethodNotFound(error: unknown): boolean {
  return error instanceof DaemonError && error.body.mcpError?.code === METHOD_NOT_FOUND;
}

/** What a read or prompt cancelled by the user shows. */
export const CANCELLED = 'Cancelled before the server answered; the server was told to stop.';

/** A failed call as one line: the daemon's message, with the MCP error code when the server gave one. */
export function describeError(error: unknown): string {
  if (error instanceof DaemonError) {
    const code = error.body.mcpError?.code;
    return code !== undefined && !error.message.includes(String(code))
      ? `${error.message} (MCP error ${code})`
      : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
