/** Entries of the live JSON-RPC log (`GET /api/mcp/rpc-logs`, DESIGN "Logs"). */

/**
 * On an entry the live channel replays (the last entries when a page opens, or those missed while it
 * was away): its message was too big to send in a replay, and `message` holds only its envelope (jsonrpc,
 * id, method, an error's code and message) or the start of its line. `GET /api/mcp/rpc-logs/:seq` has it
 * whole while the daemon (this run of it) keeps it.
 */
export interface LogEntryCut {
  /** How many bytes the entry is as JSON in UTF-8, whole. */
  weight: number;
  /** The daemon run that numbered the entry (`?bootId=` of that request). */
  bootId: string;
}

interface LogEntryBase {
  type: 'rpc';
  seq: number;
  serverId: string;
  /** ISO 8601 time the daemon saw the message. */
  timestamp: string;
  cut?: LogEntryCut;
}

export interface RpcMessageEntry extends LogEntryBase {
  direction: 'send' | 'receive';
  /** The JSON-RPC message exactly as sent or received. */
  message: Record<string, unknown>;
  /**
   * Sent over HTTP (Streamable HTTP or SSE): the MCP headers the message's POST carried, as sent
   * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `Mcp-Session-Id`), names in lower
   * case. Never a credential, nor a header the server's config sets.
   */
  headers?: Record<string, string>;
  /**
   * The logical call a request, or the response to it, belongs to. At 2026-07-28 a server may answer
   * `input_required`, and the client sends the request again with the answers under a new id: every
   * round of one call shares the `id`; `round` counts from 1.
   */
  call?: RpcCallRound;
}

export interface RpcCallRound {
  id: string;
  round: number;
}

export interface RpcStderrEntry extends LogEntryBase {
  direction: 'stderr';
  /** One line the STDIO server wrote to stderr. */
  message: string;
}

export interface RpcStdoutEntry extends LogEntryBase {
  direction: 'stdout';
  /**
   * One line the STDIO server wrote to stdout that is not a JSON-RPC message (at most 200 characters
   * of it). STDIO servers must write only messages there; such a line is what breaks other clients.
   */
  message: string;
}

export interface RpcEventEntry extends LogEntryBase {
  direction: 'event';
  /**
   * The start of an event an HTTP or SSE server sent on an event stream whose data is not JSON, or is
   * JSON but no JSON-RPC message (at most 300 characters of it, secrets masked). The calls it was meant
   * to answer fail with 502 saying what it was.
   */
  message: string;
}

export type RpcLogEntry = RpcMessageEntry | RpcStderrEntry | RpcStdoutEntry | RpcEventEntry;
