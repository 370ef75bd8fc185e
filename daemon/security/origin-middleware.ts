import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sendError } from '../http/error-middleware.ts';

const EXTENSION_ORIGIN = /^(chrome-extension|moz-extension|safari-web-extension):\/\/[A-Za-z0-9.-]+$/;
export const DEV_SERVER_ORIGINS = ['http://localhost:5173', 'http://127.0.0.1:5173'];

/** What the Origin rules allow beyond the daemon's own page and extension pages. */
export interface OriginRules {
  /** The dev server's origins, in development only (`devOrigins`); none in production. */
  devOrigins: readonly string[];
  /** Auth off: a request without an Origin is refused (unless a same-origin GET). */
  requireOrigin: boolean;
}

/**
 * The origins of the web page's dev server, which may call the API in development: `npm run dev:web`'s
 * (port 5173), and the one `devServerUrl` names. None in production.
 */
export function devOrigins(development: boolean, devServerUrl?: string): readonly string[] {
  if (!development) return [];
  const named = devServerUrl === undefined ? [] : [new URL(devServerUrl).origin];
  return [...new Set([...DEV_SERVER_ORIGINS, ...named])];
}

/**
 * The daemon's own page, an extension page, or in development the dev server. The Host header was
 * checked first (loopback or `--allowed-host` only), so `http://<Host>` is this daemon's own origin.
 */
export function originAllowed(
  origin: string,
  host: string | undefined,
  devServer: readonly string[],
): boolean {
  if (origin === `http://${host ?? ''}`) return true;
  return EXTENSION_ORIGIN.test(origin) || devServer.includes(origin);
}

/**
 * Whether a request without an Origin header may go on. Browsers always send Origin, except on a
 * same-origin GET, which they mark `Sec-Fetch-Site: same-origin` (the daemon's own web page). Programs
 * send neither. With auth off nothing but the Origin tells a page from a program, so a request that
 * has neither is refused, as the official inspector's proxy refuses it.
 */
function missingOriginAllowed(headers: IncomingHttpHeaders, requireOrigin: boolean): boolean {
  return !requireOrigin || headers['sec-fetch-site'] === 'same-origin';
}

/** The 403 text for a request the Origin rules refuse, or `undefined` when it may go on. */
export function originRefusal(headers: IncomingHttpHeaders, options: OriginRules): string | undefined {
  const origin = headers.origin;
  if (origin === undefined) {
    if (missingOriginAllowed(headers, options.requireOrigin)) return undefined;
    return 'Forbidden: no Origin header. With --no-auth the daemon answers only browser pages it knows (they send Origin); a program sends the Origin of the daemon itself, e.g. "Origin: http://127.0.0.1:6274", or runs the daemon with its token';
  }
  if (originAllowed(origin, headers.host, options.devOrigins)) return undefined;
  return `Forbidden Origin ${JSON.stringify(origin.slice(0, 200))}: only the daemon's own page and browser extensions may call it`;
}

/**
 * Gives an allowed caller of another origin (an extension page, the dev server) the CORS headers of its
 * answer; `true` when the request is such a cross-origin one. The Origin must have passed `originRefusal`.
 */
export function allowCrossOrigin(req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin;
  if (origin === undefined || origin === `http://${req.headers.host ?? ''}`) return false;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  return true;
}

/**
 * A browser sends Origin on cross-site requests. Only the daemon's own page, extension pages and (in
 * development) the dev server may call the API; any other site is refused before a handler runs, so a
 * web page the developer happens to visit cannot drive the daemon. Allowed cross-origin callers get CORS
 * headers; preflights end here. `requireOrigin` (auth off) also refuses requests that carry no Origin.
 */
export function originMiddleware(options: {
  devOrigins: readonly string[];
  requireOrigin?: boolean;
}): RequestHandler {
  const rules = { devOrigins: options.devOrigins, requireOrigin: options.requireOrigin ?? false };
  return (req: Request, res: Response, next: NextFunction) => {
    const refusal = originRefusal(req.headers, rules);
    if (refusal) return sendError(res, 'forbidden_origin', refusal);
    if (!allowCrossOrigin(req, res)) return next();
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS');
      res.setHeader(
        'Access-Control-Allow-Headers',
        'Content-Type, X-Inspector-Token, Authorization, Last-Event-ID',
      );
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
