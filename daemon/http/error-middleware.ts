import type { ErrorRequestHandler, RequestHandler } from 'express';
import { HttpError, toErrorResponse } from '../errors.ts';

interface FrameworkError {
  type?: string;
  limit?: number;
  status?: unknown;
  statusCode?: unknown;
}

/**
 * Errors of body-parser, zlib and the router: body-parser's carry a `type` and become the 400, 413 and
 * 415 of DESIGN's table; any other error that states a 4xx status (a body that does not inflate, a
 * path with a bad percent escape) is the client's and becomes that status with a plain message.
 */
function fromFramework(error: FrameworkError, path: string, encoding?: string): HttpError | undefined {
  if (error instanceof HttpError) return undefined;
  if (error.type === 'entity.parse.failed') return new HttpError(400, 'body: malformed JSON');
  if (error.type === 'entity.too.large') {
    return new HttpError(413, `body: larger than the limit of ${error.limit ?? 'the'} bytes`);
  }
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return new HttpError(415, 'body: unsupported Content-Encoding or charset');
  }
  const status = Number(error.status ?? error.statusCode);
  if (!Number.isInteger(status) || status < 400 || status > 499) return undefined;
  if (error instanceof URIError) return new HttpError(400, `path: malformed percent-encoding in ${path}`);
  if (error.type === 'request.aborted') return new HttpError(400, 'body: the request was aborted');
  if (encoding !== undefined) {
    return new HttpError(
      400,
      `body: does not decode as its Content-Encoding ${JSON.stringify(encoding)} says`,
    );
  }
  return new HttpError(status, `request: ${(error as Error).message || 'refused'}`);
}

export function errorMiddleware(options: {
  development: boolean;
  log: (line: string) => void;
}): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const mapped =
      fromFramework(
        (error ?? {}) as FrameworkError,
        safePath(req.originalUrl),
        req.headers['content-encoding'],
      ) ?? error;
    const { status, body } = toErrorResponse(mapped, options.development);
    if (status >= 500 && status !== 502 && status !== 504)
      options.log(`${req.method} ${safePath(req.originalUrl)}: ${body.error}`);
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(status).json(body);
  };
}

export function apiNotFound(): RequestHandler {
  return (req, res) => {
    res.status(404).json({ error: `No API route ${req.method} ${req.path}` });
  };
}

/** A path for a message or a log line: without its query (which may hold a token), and not too long. */
function safePath(url: string): string {
  const path = url.split('?')[0] ?? '';
  return JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}…` : path);
}
