import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { RequestHandler } from 'express';
import type * as RateLimitModule from 'express-rate-limit';
import { sendError } from '../http/error-middleware.ts';

const require = createRequire(import.meta.url);

const WINDOW_MS = 60_000;

interface Window {
  hits: number;
  resetAt: number;
}

/**
 * Counts requests per client in fixed windows, as express-rate-limit's memory store does: a client's
 * window starts with its first request and lasts `windowMs`; every request counts, refused ones too.
 * Clients whose window has ended are dropped once a window, so the map holds only recent clients.
 */
export class RequestCounter {
  private readonly windows = new Map<string, Window>();
  private sweepAt: number;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    now = Date.now(),
  ) {
    this.sweepAt = now + windowMs;
  }

  /** Counts a request; `undefined` when it may go on, else the seconds until the client's window ends. */
  hit(key: string, now = Date.now()): number | undefined {
    if (now >= this.sweepAt) this.sweep(now);
    let window = this.windows.get(key);
    if (!window) {
      window = { hits: 0, resetAt: now + this.windowMs };
      this.windows.set(key, window);
    } else if (window.resetAt <= now) {
      window.hits = 0;
      window.resetAt = now + this.windowMs;
    }
    window.hits++;
    if (window.hits <= this.limit) return undefined;
    return Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  }

  /** How many clients are remembered. */
  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    this.sweepAt = now + this.windowMs;
  }
}

type KeyOf = (address: string) => string;

/** The middleware, and its count as a function for a route answered outside express (direct-routes.ts). */
export type RateLimiter = RequestHandler & {
  prepare(): void;
  refuse(req: IncomingMessage, res: ServerResponse): boolean;
};

/**
 * At most `perMinute` API requests per client address a minute; past it, 429 with Retry-After.
 *
 * Every API request passes here, so it does no more than the count, synchronously. The client is the
 * socket's address (the daemon trusts no proxy, so that is what `req.ip` would say, without parsing
 * forwarding headers), keyed as express-rate-limit's `ipKeyGenerator` keys it: an IPv6 address cut to
 * its /56, an IPv4-mapped one as the IPv4 address. The key of the last address is remembered, since a
 * client sends request after request from the same one. No RateLimit headers are sent on every answer:
 * no client of the daemon reads them; a refusal still says when to come back.
 *
 * express-rate-limit's key function (with the IP address library it loads) is loaded once the daemon
 * listens, by `prepare` or at the latest by the first request, not before: start-up is mostly loading code.
 */
export function rateLimitMiddleware(perMinute: number): RateLimiter {
  const counter = new RequestCounter(perMinute, WINDOW_MS);
  let keyOf: KeyOf | undefined;
  let lastAddress: string | undefined;
  let lastKey = '';
  const prepare = (): KeyOf => {
    if (!keyOf) {
      const { ipKeyGenerator } = require('express-rate-limit') as typeof RateLimitModule;
      keyOf = (address) => ipKeyGenerator(address);
    }
    return keyOf;
  };
  /** Counts the request; past the limit, answers it with the 429 and says `true`. */
  const refuse = (req: IncomingMessage, res: ServerResponse): boolean => {
    const address = req.socket.remoteAddress ?? '';
    if (address !== lastAddress) {
      lastKey = (keyOf ?? prepare())(address);
      lastAddress = address;
    }
    const retryAfter = counter.hit(lastKey);
    if (retryAfter === undefined) return false;
    res.setHeader('Retry-After', String(retryAfter));
    sendError(res, 'rate_limited', `Too many requests: more than ${perMinute} a minute`);
    return true;
  };
  const middleware: RequestHandler = (req, res, next) => {
    if (!refuse(req, res)) next();
  };
  return Object.assign(middleware, { prepare: () => void prepare(), refuse });
}
