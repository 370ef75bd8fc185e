import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { sendError } from './error-middleware.ts';

/**
 * The daemon takes OPTIONS only as a browser's CORS preflight, which the Origin check ends with its 204
 * (origin-middleware.ts). Any other OPTIONS request that reaches a path with routes, express's routers
 * answer themselves: 200 with the routes' methods in `Allow` and as a `text/plain` body. Here that
 * answer becomes 405 with the error body (SPEC part 7), keeping express's `Allow`, which it alone knows
 * (the methods of the routes its path matches, in routers nested any way).
 */
export function optionsAnswer(): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    // Read now: below a mount point express shows a router only the rest of the path.
    const path = req.path.slice(0, 200);
    const end = res.end;
    res.end = function endOptions(this: ServerResponse, ...args: unknown[]) {
      res.end = end;
      const allow = res.getHeader('Allow');
      // No route of the daemon answers OPTIONS, so a 200 with `Allow` is express's.
      if (res.statusCode !== 200 || typeof allow !== 'string' || res.headersSent) {
        return (end as (...rest: unknown[]) => ServerResponse).apply(this, args);
      }
      res.removeHeader('X-Content-Type-Options');
      sendError(
        res,
        'method_not_allowed',
        `OPTIONS ${path} is not offered: it takes ${allow} (the daemon answers OPTIONS only as a CORS preflight of a page it allows)`,
      );
      return res;
    } as typeof res.end;
    next();
  };
}
