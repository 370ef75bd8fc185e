import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export const TOKEN_HEADER = 'x-inspector-token';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Compares in constant time: both sides are hashed first so their lengths match and the comparison
 * leaks neither the token's length nor how many leading characters a guess got right.
 */
export function tokenMatches(expected: string | Buffer, given: string | undefined): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(typeof expected === 'string' ? digest(expected) : expected, digest(given));
}

/** The header, or `?token=` where a browser API cannot set headers (EventSource, WebSocket). */
export function presentedToken(req: IncomingMessage): string | undefined {
  const header = req.headers[TOKEN_HEADER];
  if (typeof header === 'string') return header;
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams.get('token');
  return query ?? undefined;
}

/** Every API route but health needs the token; there are no exemptions for "internal" routes. */
export function tokenMiddleware(options: { token: string | null }): RequestHandler {
  const expected = options.token === null ? null : digest(options.token);
  return (req: Request, res: Response, next: NextFunction) => {
    if (expected === null || req.method === 'OPTIONS') return next();
    if (tokenMatches(expected, presentedToken(req))) return next();
    res.status(401).json({ error: 'Unauthorized' });
  };
}
