import { createRequire } from 'node:module';
import type { Request, RequestHandler } from 'express';
import type * as RateLimitModule from 'express-rate-limit';
import type { RateLimitInfo } from 'express-rate-limit';

const require = createRequire(import.meta.url);

/**
 * At most `perMinute` API requests per client address a minute; past it, 429 with Retry-After.
 *
 * Every API request passes here, so it does no more than the count. The client is the socket's address
 * (the daemon trusts no proxy, so that is what `req.ip` would say, without parsing forwarding headers),
 * with an IPv6 address cut to its /56 as the library's own key is. The RateLimit headers on every answer
 * are left out: each costs a hash of the key and two header writes, and no client of the daemon reads
 * them; a refusal still says when to come back.
 *
 * express-rate-limit (with the IP address library it loads) is loaded once the daemon listens, by
 * `prepare` or at the latest by the first request, not before: start-up is mostly loading code.
 */
export function rateLimitMiddleware(perMinute: number): RequestHandler & { prepare(): void } {
  let limiter: RequestHandler | undefined;
  const prepare = (): RequestHandler => {
    limiter ??= createLimiter(perMinute);
    return limiter;
  };
  const middleware: RequestHandler = (req, res, next) => (limiter ?? prepare())(req, res, next);
  return Object.assign(middleware, { prepare: () => void prepare() });
}

function createLimiter(perMinute: number): RequestHandler {
  const { ipKeyGenerator, rateLimit } = require('express-rate-limit') as typeof RateLimitModule;
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: false,
    legacyHeaders: false,
    // It may be made while the first request is handled, which this check of the library takes for a
    // limiter made per request (one that would count nothing); here it is made once.
    validate: { creationStack: false },
    keyGenerator: (req) => ipKeyGenerator(req.socket.remoteAddress ?? ''),
    handler: (req, res) => {
      const resetTime = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit?.resetTime;
      const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : 60;
      res.setHeader('Retry-After', String(seconds));
      res.status(429).json({ error: `Too many requests: more than ${perMinute} a minute` });
    },
  });
}
