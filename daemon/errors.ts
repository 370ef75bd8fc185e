import type { ErrorBody } from '../shared/errors.ts';

/** An error that already knows its HTTP status and its public message. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Omit<ErrorBody, 'error' | 'mcpError'> = {},
  ) {
    super(message);
  }
}

/** A failure of, or reported by, an MCP server: answered 502 with `mcpError`. */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    message: string,
    readonly code?: number | string,
    readonly data?: unknown,
    readonly status = 502,
  ) {
    super(message);
  }
}

/** The MCP server took longer than the tool-call time-out. */
export class TimeoutError extends HttpError {
  override name = 'TimeoutError';
  constructor(message: string) {
    super(504, message);
  }
}

export const notFound = (message: string): HttpError => new HttpError(404, message);

/**
 * An error the MCP SDK raised for a JSON-RPC error answer (its `McpError`, subclasses included), told by
 * its name and numeric code: the SDK is loaded only when the first server connects, so this module,
 * which every route loads, does not import its class.
 */
export function isMcpError(error: unknown): error is Error & { code: number; data?: unknown } {
  return (
    error instanceof Error &&
    error.name === 'McpError' &&
    typeof (error as { code?: unknown }).code === 'number'
  );
}
export const badRequest = (message: string): HttpError => new HttpError(400, message);

/**
 * The one place an error becomes the SPEC part 7 body. Messages were written without secrets; stacks
 * appear only in development.
 */
export function toErrorResponse(error: unknown, development: boolean): { status: number; body: ErrorBody } {
  if (error instanceof HttpError) {
    return { status: error.status, body: { error: error.message, ...error.extra } };
  }
  if (error instanceof UpstreamError || isMcpError(error)) {
    const code = error.code;
    const message = isMcpError(error) ? stripMcpPrefix(error.message) : error.message;
    const mcpError: ErrorBody['mcpError'] = { name: error.name, message };
    if (code !== undefined) mcpError.code = code;
    if (error.data !== undefined) mcpError.data = error.data;
    if (development && error.stack) mcpError.stack = error.stack;
    const status = error instanceof UpstreamError ? error.status : 502;
    return { status, body: { error: message, mcpError } };
  }
  const err = error instanceof Error ? error : new Error(String(error));
  const mcpError: ErrorBody['mcpError'] = {
    name: err.name || 'Error',
    message: err.message || String(error),
  };
  if (development && err.stack) mcpError.stack = err.stack;
  return { status: 500, body: { error: mcpError.message, mcpError } };
}

/** McpError prefixes "MCP error -32602: " (servers built on the SDK add their own too); the code is reported on its own. */
function stripMcpPrefix(message: string): string {
  return message.replace(/^(MCP error -?\d+: )+/, '');
}
