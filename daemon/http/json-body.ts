import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { MAX_BODY_DEPTH, textExceedsDepth } from '../../shared/json-depth.ts';
import { HttpError } from '../errors.ts';

/** body-parser's verify hook turns a thrown error with a `status` into that answer. */
class TooDeepError extends HttpError {
  override name = 'TooDeepError';
  readonly type = 'entity.too.deep';
  constructor() {
    super(400, `body: nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`);
  }
}

/**
 * A body announced larger than the limit is refused at once, before a byte of it is read: waiting for
 * it would hold the connection until the request time-out. The connection is closed after the answer,
 * since the rest of the body would otherwise still arrive on it.
 */
function declaredSizeCheck(limitBytes: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const declared = Number(req.headers['content-length']);
    if (!(declared > limitBytes)) return next();
    res.setHeader('Connection', 'close');
    res
      .status(413)
      .json({ error: `body: ${declared} bytes is larger than the limit of ${limitBytes} bytes` });
  };
}

/**
 * JSON request bodies: at most `limitBytes`, nested at most MAX_BODY_DEPTH levels. The depth is read
 * from the raw bytes before parsing, so a body that would make a later `JSON.stringify` overflow the
 * stack is refused with a 400 instead.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  return [
    declaredSizeCheck(limitBytes),
    express.json({
      limit: limitBytes,
      verify: (_req, _res, buffer) => {
        if (textExceedsDepth(buffer, MAX_BODY_DEPTH)) throw new TooDeepError();
      },
    }),
  ];
}
