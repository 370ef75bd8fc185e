import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, type RateLimitInfo, rateLimit } from 'express-rate-limit';

/**
 * At most `perMinute` API requests per client address a minute; past it, 429 with Retry-After.
 *
 * Every API request passes here, so it does no more than the count. The client is the socket's address
 * (the daemon trusts no proxy, so that is what `req.ip` would say, without parsing forwarding headers),
 * with an IPv6 address cut to its /56 as the library's own key is. The RateLimit headers on every answer
 * are left out: each costs a hash of the key and two header writes, and no client of the daemon reads
 * them; a refusal still says when to come back.
 */
export function rateLimitMiddleware(perMinute: number): RequestHandler {
  const windowMs = 60_000;
  return rateLimit({
    windowMs,
    limit: perMinute,
    standardHeaders: false,
    legacyHeaders: false,
    keyGenerator: (req) => ipKeyGenerator(req.socket.remoteAddress ?? ''),
    handler: (req, res) => {
      const resetTime = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit?.resetTime;
      const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : 60;
      res.setHeader('Retry-After', String(seconds));
      res.status(429).json({ error: `Too many requests: more than ${perMinute} a minute` });
    },
  });
}
