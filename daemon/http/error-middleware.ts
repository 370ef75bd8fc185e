import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { ErrorCode } from '../../shared/errors.ts';
import { DaemonError, type ErrorResponse, toErrorResponse } from '../errors.ts';
import { sendJson } from './send-json.ts';

interface FrameworkError {
  type?: string;
  limit?: number;
  status?: unknown;
  statusCode?: unknown;
}

/** What the statuses that serving a file of the web page states (besides 400) say. */
const FILE_ERRORS: Partial<Record<number, ErrorCode>> = {
  404: 'route_not_found',
  412: 'precondition_failed',
  416: 'range_not_satisfiable',
};

/**
 * Errors of body-parser, zlib, the router and the web page's files: body-parser's carry a `type` and
 * become the 400, 413 and 415 of DESIGN's table; any other error that states a 4xx status (a body that
 * does not inflate, a path with a bad percent escape, a Range past the end of index.html) is the
 * client's: a plain message, with its status when that is 404, 412 or 416, else 400. (Besides the 413 and 415 told by their `type`,
 * body-parser and raw-body state no 4xx but 400, and 403 for an error of the verify hook, which throws
 * only DaemonErrors; serving a file states 404, 412 and 416.)
 */
function fromFramework(error: FrameworkError, path: string, encoding?: string): DaemonError | undefined {
  if (error instanceof DaemonError) return undefined;
  if (error.type === 'entity.parse.failed') {
    return new DaemonError('malformed_request', 'body: malformed JSON');
  }
  if (error.type === 'entity.too.large') {
    return new DaemonError(
      'payload_too_large',
      `body: larger than the limit of ${error.limit ?? 'the'} bytes`,
    );
  }
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return new DaemonError('unsupported_encoding', 'body: unsupported Content-Encoding or charset');
  }
  const status = Number(error.status ?? error.statusCode);
  if (!Number.isInteger(status) || status < 400 || status > 499) return undefined;
  if (error instanceof URIError) {
    return new DaemonError('malformed_request', `path: malformed percent-encoding in ${path}`);
  }
  if (error.type === 'request.aborted') {
    return new DaemonError('malformed_request', 'body: the request was aborted');
  }
  if (encoding !== undefined) {
    return new DaemonError(
      'malformed_request',
      `body: does not decode as its Content-Encoding ${JSON.stringify(encoding)} says`,
    );
  }
  const code = FILE_ERRORS[status] ?? 'malformed_request';
  return new DaemonError(code, `request: ${(error as Error).message || 'refused'}`);
}

export interface ErrorAnswerOptions {
  development: boolean;
  log: (line: string) => void;
}

/** The answer to an error a request ended in; the daemon's own failures are logged. */
export function errorAnswer(
  error: unknown,
  req: IncomingMessage & { originalUrl?: string },
  options: ErrorAnswerOptions,
): ErrorResponse {
  const url = req.originalUrl ?? req.url ?? '';
  const mapped =
    fromFramework((error ?? {}) as FrameworkError, safePath(url), req.headers['content-encoding']) ?? error;
  const answer = toErrorResponse(mapped, options.development);
  // An MCP server's failures are in the log of its messages.
  if (answer.body.code === 'internal_error')
    options.log(`${req.method} ${safePath(url)}: ${answer.body.error}`);
  return answer;
}

export function errorMiddleware(options: ErrorAnswerOptions): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const { status, body } = errorAnswer(error, req, options);
    if (res.headersSent) {
      res.end();
      return;
    }
    sendJson(res, status, body);
  };
}

/**
 * Answers a request refused before any route takes it (Host, Origin, token, rate, size, no such route),
 * with the body and status an error thrown by a route would get.
 */
export function sendError(res: ServerResponse, code: ErrorCode, message: string): void {
  const { status, body } = toErrorResponse(new DaemonError(code, message), false);
  sendJson(res, status, body);
}

export function apiNotFound(): RequestHandler {
  return (req, res) => sendError(res, 'route_not_found', `No API route ${req.method} ${shortPath(req.path)}`);
}

/** A path for a message or a log line: without its query (which may hold a token), and not too long. */
function shortPath(url: string): string {
  const path = url.split('?')[0] ?? '';
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

function safePath(url: string): string {
  return JSON.stringify(shortPath(url));
}
