import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { MAX_BODY_DEPTH, textExceedsDepth } from '../../shared/json-depth.ts';
import { DaemonError } from '../errors.ts';
import { sendError } from './error-middleware.ts';

/** A body nested too deep to parse safely (body-parser's verify hook passes the error on as it is). */
const tooDeep = (): DaemonError =>
  new DaemonError(
    'malformed_request',
    `body: nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`,
  );

const malformed = (): DaemonError => new DaemonError('malformed_request', 'body: malformed JSON');

/**
 * JSON travels in UTF-8 (RFC 8259). body-parser would also decode UTF-16 and UTF-32, but the depth is
 * counted on the bytes as sent, where a UTF-16 `\u2200` reads as a quote and hides every bracket after it:
 * such a body passed the limit and overflowed the stack later (a lost server connection, a widget page
 * answering 500).
 */
const notUtf8 = (charset: string): DaemonError =>
  new DaemonError(
    'unsupported_encoding',
    `body: charset ${JSON.stringify(charset.slice(0, 40))} is not read: send JSON in UTF-8`,
  );

/** Whether the request's Content-Length announces more than `limitBytes`. */
export const declaredTooLarge = (req: IncomingMessage, limitBytes: number): boolean =>
  Number(req.headers['content-length']) > limitBytes;

/** The most of a refused body the daemon reads (and drops) so that its sender gets the answer. */
const DISCARDED_AT_MOST = 64 * 1024 * 1024;

/** The answer to a body announced larger than the limit. */
export function sendTooLarge(req: IncomingMessage, res: ServerResponse, limitBytes: number): void {
  const declared = Number(req.headers['content-length']);
  // A socket closed with bytes still unread is reset, and a client still sending loses the answer: up to
  // DISCARDED_AT_MOST the rest of the body is read and dropped after it (Node does so with a body nobody
  // read), and the connection stays open. A larger one is not waited for.
  if (declared > DISCARDED_AT_MOST) res.setHeader('Connection', 'close');
  sendError(
    res,
    'payload_too_large',
    `body: ${declared} bytes is larger than the limit of ${limitBytes} bytes`,
  );
}

/**
 * A body announced larger than the limit is refused at once, before a byte of it is taken in: waiting
 * for it would hold the connection until the request time-out (see `sendTooLarge`).
 */
function declaredSizeCheck(limitBytes: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!declaredTooLarge(req, limitBytes)) return next();
    sendTooLarge(req, res, limitBytes);
  };
}

/** The Content-Type values the front end and most programs send, written as browsers write them. */
const PLAIN_JSON_TYPES = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
]);
const UTF8_BOM = [0xef, 0xbb, 0xbf];
/** body-parser's strict mode: after JSON whitespace, a body must open an object or an array. */
const STRICT_START = /^[ \t\n\r]*[{[]/;

/** A body of declared length, JSON by its Content-Type, neither compressed nor in another charset. */
export function isPlainJson(req: IncomingMessage): boolean {
  const { headers } = req;
  const type = headers['content-type'];
  const encoding = headers['content-encoding'];
  return (
    type !== undefined &&
    PLAIN_JSON_TYPES.has(type.toLowerCase()) &&
    (encoding === undefined || encoding.toLowerCase() === 'identity') &&
    headers['transfer-encoding'] === undefined &&
    headers['content-length'] !== undefined
  );
}

/** What body-parser's JSON parser makes of a body (the answers are the same as its errors mapped). */
export function parseBody(bytes: Buffer): unknown {
  if (textExceedsDepth(bytes, MAX_BODY_DEPTH)) throw tooDeep();
  // iconv-lite, which body-parser decodes with, drops a byte order mark.
  const start = UTF8_BOM.every((byte, i) => bytes[i] === byte) ? UTF8_BOM.length : 0;
  const text = bytes.toString('utf8', start);
  if (text.length === 0) return {};
  if (!STRICT_START.test(text)) throw malformed();
  try {
    return JSON.parse(text);
  } catch {
    throw malformed();
  }
}

/**
 * Every API call has a small JSON body: read that case here, with no more than a list of chunks and
 * JSON.parse. body-parser's type, charset and decoder machinery costs more than the rest of the
 * request's middleware together. Any other body (compressed, chunked, another charset or type) is left
 * to body-parser, which comes next; a body read here is finished, so it passes over it.
 */
function plainJsonBody(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!isPlainJson(req)) return next();
    readPlainJson(req, (error, body) => {
      if (error) return next(error);
      req.body = body;
      next();
    });
  };
}

const EMPTY = Buffer.alloc(0);

/**
 * The body of a request that `isPlainJson` accepted when all of it, as long as Content-Length says, is
 * already buffered (as a small body that came in the packet of its headers is, once the parser is
 * through that packet: from the tick after the 'request' event on), taken at once without the stream's
 * flowing mode and its events; `undefined` when some of it is still to come. The caller resumes the
 * request afterwards, so that it ends as a read one does.
 */
export function takeBufferedBody(req: IncomingMessage): Buffer | undefined {
  if (req.readableFlowing || req.readableLength !== Number(req.headers['content-length'])) return undefined;
  return (req.read() as Buffer | null) ?? EMPTY;
}

/**
 * Reads and parses a body that `isPlainJson` accepted; `done` gets the value or the error (a
 * DaemonError: malformed, too deep, aborted) exactly once.
 */
export function readPlainJson(req: IncomingMessage, done: (error: unknown, body?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer): void => {
    chunks.push(chunk);
    size += chunk.length;
  };
  const finish = (error?: DaemonError): void => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onAbort);
    req.off('close', onAbort);
    if (error) return done(error);
    let body: unknown;
    try {
      body = parseBody(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    } catch (parseError) {
      return done(parseError);
    }
    done(undefined, body);
  };
  const onEnd = (): void => finish();
  const onAbort = (): void => finish(new DaemonError('malformed_request', 'body: the request was aborted'));
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('error', onAbort);
  req.once('close', onAbort);
}

/**
 * JSON request bodies: at most `limitBytes`, nested at most MAX_BODY_DEPTH levels. The depth is read
 * from the raw bytes before parsing, so a body that would make a later `JSON.stringify` overflow the
 * stack is refused with a 400 instead.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  return [
    declaredSizeCheck(limitBytes),
    plainJsonBody(),
    express.json({
      limit: limitBytes,
      verify: (_req, _res, buffer, charset) => {
        if (charset.toLowerCase() !== 'utf-8') throw notUtf8(charset);
        if (textExceedsDepth(buffer, MAX_BODY_DEPTH)) throw tooDeep();
      },
    }),
  ];
}
