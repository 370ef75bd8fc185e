import type { NextFunction, Request, RequestHandler, Response } from 'express';

const EXTENSION_ORIGIN = /^(chrome-extension|moz-extension|safari-web-extension):\/\/[A-Za-z0-9.-]+$/;
export const DEV_SERVER_ORIGINS = ['http://localhost:5173', 'http://127.0.0.1:5173'];

/**
 * A browser sends Origin on cross-site requests. Only the daemon's own page, extension pages and (in
 * development) the dev server may call the API; any other site is refused before a handler runs, so a
 * web page the developer happens to visit cannot drive the daemon. Allowed cross-origin callers get CORS
 * headers; preflights end here.
 */
/** No Origin (not a browser), the daemon's own page, an extension, or in development the dev server. */
export function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  development: boolean,
): boolean {
  if (origin === undefined || origin === `http://${host ?? ''}`) return true;
  return EXTENSION_ORIGIN.test(origin) || (development && DEV_SERVER_ORIGINS.includes(origin));
}

export function originMiddleware(options: { development: boolean }): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (origin === undefined || origin === `http://${req.headers.host ?? ''}`) return next();
    if (!originAllowed(origin, req.headers.host, options.development)) {
      res.status(403).json({ error: `Forbidden Origin "${origin}"` });
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Inspector-Token, Last-Event-ID');
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
