import type { ErrorRequestHandler, RequestHandler } from 'express';
import { HttpError, toErrorResponse } from '../errors.ts';

/** body-parser's errors carry a `type`; they become the 400 and 413 of DESIGN's table. */
function fromBodyParser(error: { type?: string; limit?: number }): HttpError | undefined {
  if (error.type === 'entity.parse.failed') return new HttpError(400, 'body: malformed JSON');
  if (error.type === 'entity.too.large') {
    return new HttpError(413, `body: larger than the limit of ${error.limit ?? 'the'} bytes`);
  }
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return new HttpError(415, 'body: unsupported encoding');
  }
  return undefined;
}

export function errorMiddleware(options: {
  development: boolean;
  log: (line: string) => void;
}): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const mapped = fromBodyParser(error as { type?: string }) ?? error;
    const { status, body } = toErrorResponse(mapped, options.development);
    if (status >= 500 && status !== 502 && status !== 504)
      options.log(`${req.method} ${req.path}: ${body.error}`);
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
