import type { ErrorBody, ErrorCode } from '../shared/errors.ts';

/**
 * The HTTP status of each error code: the one table, read only where an error becomes an answer
 * ({@link toErrorResponse}). DESIGN's API contract decides the statuses; README "Errors" lists them.
 */
export const ERROR_STATUS = {
  malformed_request: 400,
  invalid_request: 400,
  unauthorized: 401,
  invalid_view_code: 401,
  forbidden_host: 403,
  forbidden_origin: 403,
  route_not_found: 404,
  server_not_found: 404,
  tool_not_found: 404,
  prompt_not_found: 404,
  execution_not_found: 404,
  elicitation_not_found: 404,
  widget_not_found: 404,
  auth_step_not_found: 404,
  log_entry_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  execution_busy: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_encoding: 415,
  range_not_satisfiable: 416,
  expectation_failed: 417,
  rate_limited: 429,
  too_many_auth_failures: 429,
  headers_too_large: 431,
  internal_error: 500,
  mcp_error: 502,
  upstream_failed: 502,
  authorization_required: 502,
  authorization_failed: 502,
  auth_backend_unavailable: 503,
  tool_timeout: 504,
} as const satisfies Record<ErrorCode, number>;

/**
 * A failure of the daemon's own, named by its code (shared/errors.ts `ERROR_CODES`): domain code throws
 * it without knowing HTTP. The message is public, so it is written without secrets.
 */
export class DaemonError extends Error {
  override name = 'DaemonError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** More of the body: `problems` for a request that does not fit, `activeExecution` when busy. */
    readonly extra: Pick<ErrorBody, 'problems' | 'activeExecution'> = {},
  ) {
    super(message);
  }
}

/**
 * A failure of, or reported by, an MCP server: answered `upstream_failed` with `mcpError`, whose `code`
 * is this error's (the daemon's word for the failure, such as CONNECTION_LOST, or the server's own).
 */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    message: string,
    readonly code?: number | string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The MCP server asks for OAuth and a person must open `authorizationUrl` to sign in. */
export class AuthorizationRequiredError extends UpstreamError {
  override name = 'AuthorizationRequired';
  constructor(
    message: string,
    readonly authorizationUrl: string,
  ) {
    super(message, 'AUTHORIZATION_REQUIRED', { authorizationUrl });
  }
}

/** The OAuth flow failed; `code` is the OAuth error code or the daemon's word (BAD_METADATA…). */
export class AuthorizationFailedError extends UpstreamError {
  override name = 'AuthorizationFailed';
}

/**
 * A JSON-RPC error answer from an MCP server (or the SDK's time-out of a request, -32001), as the
 * connection hands it on: the routes report its name, code, message and data.
 */
export class McpError extends Error {
  override name = 'McpError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * The -32001 of a request the server did not answer in time: the client's own time-out, not an answer
 * of the server (the command line says so).
 */
export class RequestTimedOut extends McpError {}

/**
 * A JSON-RPC error answer: the daemon's McpError (a server connection turns the SDK's ProtocolError into
 * one), or an error of that name with a numeric code (the sampling rejection), told by name and code.
 */
export function isMcpError(error: unknown): error is Error & { code: number; data?: unknown } {
  return (
    error instanceof Error &&
    error.name === 'McpError' &&
    typeof (error as { code?: unknown }).code === 'number'
  );
}

/** The status and SPEC part 7 body of an error; a daemon answer always names its code. */
export interface ErrorResponse {
  status: number;
  body: ErrorBody & { code: ErrorCode };
}

/**
 * The one place an error becomes the SPEC part 7 body and its status. Messages were written without
 * secrets; stacks appear only in development.
 */
export function toErrorResponse(error: unknown, development: boolean): ErrorResponse {
  if (error instanceof DaemonError) return answer(error.code, error.message, error.extra);
  if (error instanceof UpstreamError || isMcpError(error)) {
    const code = error.code;
    const message = isMcpError(error) ? stripMcpPrefix(error.message) : error.message;
    const mcpError: ErrorBody['mcpError'] = { name: error.name, message };
    if (code !== undefined) mcpError.code = code;
    if (error.data !== undefined) mcpError.data = error.data;
    if (development && error.stack) mcpError.stack = error.stack;
    return answer(upstreamCode(error), message, { mcpError });
  }
  const err = error instanceof Error ? error : new Error(String(error));
  const mcpError: ErrorBody['mcpError'] = {
    name: err.name || 'Error',
    message: err.message || String(error),
  };
  if (development && err.stack) mcpError.stack = err.stack;
  return answer('internal_error', mcpError.message, { mcpError });
}

function upstreamCode(error: Error): ErrorCode {
  if (error instanceof AuthorizationRequiredError) return 'authorization_required';
  if (error instanceof AuthorizationFailedError) return 'authorization_failed';
  return error instanceof UpstreamError ? 'upstream_failed' : 'mcp_error';
}

function answer(code: ErrorCode, message: string, extra: Omit<ErrorBody, 'error' | 'code'>): ErrorResponse {
  return { status: ERROR_STATUS[code], body: { error: message, code, ...extra } };
}

/** McpError prefixes "MCP error -32602: " (servers built on the SDK add their own too); the code is reported on its own. */
export function stripMcpPrefix(message: string): string {
  return message.replace(/^(MCP error -?\d+: )+/, '');
}

/**
 * A name the caller sent, as an error message quotes it: JSON-quoted and cut to `max` characters, so an
 * error never reflects a megabyte back (nor whatever rides in a long value).
 */
export function quotedName(value: string, max = 120): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}
