/** Entries of the live JSON-RPC log (`GET /api/mcp/rpc-logs`, DESIGN "Logs"). */

export interface RpcMessageEntry {
  type: 'rpc';
  seq: number;
  serverId: string;
  direction: 'send' | 'receive';
  /** ISO 8601 time the daemon saw the message. */
  timestamp: string;
  /** The JSON-RPC message exactly as sent or received. */
  message: Record<string, unknown>;
}

export interface RpcStderrEntry {
  type: 'rpc';
  seq: number;
  serverId: string;
  direction: 'stderr';
  timestamp: string;
  /** One line the STDIO server wrote to stderr. */
  message: string;
}

export interface RpcStdoutEntry {
  type: 'rpc';
  seq: number;
  serverId: string;
  direction: 'stdout';
  timestamp: string;
  /**
   * One line the STDIO server wrote to stdout that is not a JSON-RPC message (at most 200 characters
   * of it). STDIO servers must write only messages there; such a line is what breaks other clients.
   */
  message: string;
}

export type RpcLogEntry = RpcMessageEntry | RpcStderrEntry | RpcStdoutEntry;
