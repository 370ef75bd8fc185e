import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { SignedInUser } from '../../shared/user.ts';
import { DaemonError } from '../errors.ts';
import { sendError } from '../http/error-middleware.ts';
import { requestTarget } from '../http/request-target.ts';
import type { AuthFailureLimiter } from './auth-failure-limiter.ts';
import type { UserTokenValidator } from './user-tokens.ts';

export const TOKEN_HEADER = 'x-inspector-token';

/** The token as the bytes a presented one is compared with. */
export const tokenBytes = (token: string): Buffer => Buffer.from(token, 'utf8');

/**
 * Compares in constant time. The work is one comparison as long as the expected token, whatever is
 * presented (a guess of another length is compared as the token with itself, and refused), so the
 * timing tells neither the token's length nor how many leading characters a guess got right. It runs
 * on every API request: hashing both sides, as it did before, took about twice as long.
 */
export function tokenMatches(expected: string | Buffer, given: string | undefined): boolean {
  if (given === undefined) return false;
  const want = typeof expected === 'string' ? tokenBytes(expected) : expected;
  const got = Buffer.from(given, 'utf8');
  const sameLength = got.length === want.length;
  return timingSafeEqual(want, sameLength ? got : want) && sameLength;
}

/**
 * The header, or `?token=` when `allowQuery`: only where a browser API cannot set headers (EventSource,
 * WebSocket). A page a widget can read must never take it from its address, where `location`,
 * `document.baseURI` or a referrer would hand it to widget code.
 */
export function presentedToken(req: IncomingMessage, allowQuery: boolean): string | undefined {
  const header = req.headers[TOKEN_HEADER];
  if (typeof header === 'string') return header;
  if (!allowQuery) return undefined;
  const query = requestTarget(req.url)?.searchParams.get('token');
  return query ?? undefined;
}

/** The user token of `Authorization: Bearer …`, when there is one. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

/**
 * The user token a request presents: `Authorization: Bearer`, or, where only `?token=` can be sent (the
 * EventSource and the WebSocket), a `?token=` that is not the session token.
 */
export function userTokenOf(req: IncomingMessage, queryToken: string | undefined): string | undefined {
  return bearerToken(req) ?? queryToken;
}

/** The user a request was let in for by a user token (`undefined` for the session token). */
export const signedInUser = (res: Response): SignedInUser | undefined =>
  (res.locals as { user?: SignedInUser }).user;

/** Paths under /api/mcp that take `?token=`: the EventSource log stream. (The WebSocket checks its own.) */
const QUERY_TOKEN_PATHS = /^\/rpc-logs\/?$/;

const QUERY_REFUSED =
  'Unauthorized: send the token in the X-Inspector-Token header; ?token= is accepted only by /api/mcp/rpc-logs and /api/mcp/ws';

/** The 429 text for a client blocked after too many wrong tokens, for `retryAfter` seconds. */
export const tooManyFailures = (retryAfter: number): string =>
  `Too many failed attempts to authenticate: try again in ${retryAfter} s`;

/**
 * Every API route but health needs the token; there are no exemptions for "internal" routes. With
 * `userTokens` (CLOUD_BACKEND_HTTP_URL), a user's `Authorization: Bearer` token is the other way in: the
 * backend says whose it is. A refused user token counts as a failed attempt like a wrong session token.
 */
export function tokenMiddleware(options: {
  token: string | null;
  limiter?: AuthFailureLimiter;
  userTokens?: UserTokenValidator;
}): RequestHandler {
  const expected = options.token === null ? null : tokenBytes(options.token);
  const { limiter, userTokens } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    // A cross-origin preflight was answered before (originMiddleware); any other OPTIONS needs the token.
    if (expected === null) return next();
    const retryAfter = limiter?.tracking ? limiter.blockedFor(limiter.keyOf(req)) : undefined;
    if (retryAfter !== undefined) {
      res.setHeader('Retry-After', String(retryAfter));
      sendError(res, 'too_many_auth_failures', tooManyFailures(retryAfter));
      return;
    }
    const allowQuery = QUERY_TOKEN_PATHS.test(req.path);
    const presented = presentedToken(req, allowQuery);
    if (tokenMatches(expected, presented)) return next();
    const bearer = userTokens && userTokenOf(req, allowQuery ? presented : undefined);
    if (userTokens && bearer !== undefined) {
      userTokens.validate(bearer).then(
        (user) => {
          res.locals.user = user;
          next();
        },
        (error: unknown) => {
          if (!(error instanceof DaemonError)) return next(error);
          if (error.code === 'unauthorized') limiter?.fail(limiter.keyOf(req));
          sendError(res, error.code, error.message);
        },
      );
      return;
    }
    limiter?.fail(limiter.keyOf(req));
    const queryOnly = !allowQuery && req.headers[TOKEN_HEADER] === undefined && 'token' in req.query;
    sendError(res, 'unauthorized', queryOnly ? QUERY_REFUSED : 'Unauthorized');
  };
}
