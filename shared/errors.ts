/** The error body of every failed API call (SPEC part 7), and the daemon's codes for what went wrong. */

/**
 * What went wrong, in the daemon's words: every error body names one as `code`, and a client branches
 * on it rather than on the status or the message, which may be reworded. The list is closed; each code
 * has one HTTP status (daemon/errors.ts holds the table; README "Errors" lists it). `mcpError.code` is
 * another thing: the MCP server's JSON-RPC code, or the daemon's word for a failed connection.
 */
export const ERROR_CODES = [
  // 400: the request cannot be read: malformed JSON, a body that does not decode or nests too deep, a
  // bad `%` escape in the path, an upload that was aborted.
  'malformed_request',
  // 400: the request reads but does not fit: a missing or wrongly typed field (`problems` lists each),
  // a server list that cannot be imported, the token in a widget page's address.
  'invalid_request',
  // 401: no token, a wrong one, or one sent in `?token=` where only the header counts.
  'unauthorized',
  // 401: a widget view code that is unknown, used, expired or another widget's.
  'invalid_view_code',
  // 403: a Host header that is neither loopback nor allowed with --allowed-host.
  'forbidden_host',
  // 403: a foreign Origin, or none with auth off.
  'forbidden_origin',
  // 404: no API route (or page) has this method and path.
  'route_not_found',
  // 404: no registered server has this id.
  'server_not_found',
  // 404: the server has no tool of this name.
  'tool_not_found',
  // 404: the server has no prompt of this name.
  'prompt_not_found',
  // 404: no active execution has this id.
  'execution_not_found',
  // 404: no pending elicitation (or sampling request) has this requestId, or no execution is active.
  'elicitation_not_found',
  // 404: no stored widget has this toolId, or it expired.
  'widget_not_found',
  // 404: the server's auth debugger holds no step (no guided sign-in waits for `auth/trace/next`).
  'auth_step_not_found',
  // 404: the live log no longer holds an entry of this seq (`GET /rpc-logs/:seq`).
  'log_entry_not_found',
  // 405: a method the path does not offer: an OPTIONS that is no CORS preflight (`Allow` lists the
  // path's methods), or CONNECT (the daemon is no proxy).
  'method_not_allowed',
  // 408: the request's headers or body did not arrive within Node's time limits.
  'request_timeout',
  // 409: another execution holds the lock (`activeExecution` names it).
  'execution_busy',
  // 412: a conditional request for a file of the web page whose condition fails (If-Match…).
  'precondition_failed',
  // 413: a body over the size limit.
  'payload_too_large',
  // 415: a Content-Encoding or charset the daemon does not decode.
  'unsupported_encoding',
  // 416: a Range beyond the end of a file of the web page.
  'range_not_satisfiable',
  // 417: an `Expect` header other than `100-continue`.
  'expectation_failed',
  // 429: more requests a minute than the rate limit (`Retry-After` says when to come back).
  'rate_limited',
  // 429: too many failed token checks from this client (`Retry-After` says when to come back).
  'too_many_auth_failures',
  // 431: a request line or headers over Node's size limit (16 KiB by default).
  'headers_too_large',
  // 503: a user token could not be checked: the sign-in backend (CLOUD_BACKEND_HTTP_URL) is down, slow
  // or answered something else than a user record.
  'auth_backend_unavailable',
  // 500: a failure of the daemon itself.
  'internal_error',
  // 502: a JSON-RPC error: the MCP server's answer, or the MCP client's own for a request to it that
  // timed out (`mcpError.code` is its code).
  'mcp_error',
  // 502: the MCP server could not be started, reached or kept, or its answer could not be used: an HTTP
  // error status, a body that is no JSON-RPC (`mcpError.code` says which: COMMAND_NOT_FOUND,
  // CONNECTION_REFUSED, CONNECTION_LOST, MESSAGE_TOO_LARGE, HTTP_STATUS, NOT_JSON, NOT_JSON_RPC, NO_RESPONSE…).
  'upstream_failed',
  // 502: the MCP server asks for OAuth and a person must sign in: `mcpError.data.authorizationUrl` is
  // where (the server record says it too, with `status: "auth_required"`).
  'authorization_required',
  // 502: the OAuth flow with the server's authorization server failed: bad metadata, a refused
  // registration or token request, a callback from the wrong issuer (`mcpError.code` says which).
  'authorization_failed',
  // 504: the tool call did not finish within its time-out; the execution ended and the lock is free.
  'tool_timeout',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The error of, or reported by, an MCP server. */
export interface McpErrorInfo {
  name: string;
  message: string;
  code?: number | string;
  data?: unknown;
  /** Only in development mode. */
  stack?: string;
}

/** One thing wrong with a request body: where (a dotted path, `body` for the whole) and what. */
export interface Problem {
  path: string;
  message: string;
}

/** The body of every failed API call. */
export interface ErrorBody {
  error: string;
  /**
   * The daemon's name for the failure: every answer of the daemon has one. Only a body a client makes
   * for itself (the daemon could not be reached, or answered something that is not JSON) goes without.
   */
  code?: ErrorCode;
  /** On a 400 for a request body: every problem found, by field, so a form can point at each. */
  problems?: Problem[];
  mcpError?: McpErrorInfo;
  /** Present on 409: the execution that holds the lock. */
  activeExecution?: { id: string; serverId: string; toolName: string };
}
