import type { NextFunction, Request, RequestHandler, Response } from 'express';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || host.startsWith('127.') || host.endsWith('.localhost');
}

/** The hostname of a Host header without its port; `[::1]:6274` → `[::1]`. */
export function hostnameOf(hostHeader: string): string {
  const bracketed = /^(\[[^\]]+\])(?::\d+)?$/.exec(hostHeader);
  if (bracketed?.[1]) return bracketed[1].toLowerCase();
  return hostHeader.replace(/:\d+$/, '').toLowerCase();
}

/**
 * DNS rebinding defence: a page on evil.example whose name re-resolves to 127.0.0.1 still sends
 * `Host: evil.example`, so only loopback names and hosts the user allowed get through.
 */
export function hostAllowed(host: string | undefined, allowed: ReadonlySet<string>): boolean {
  const name = host ? hostnameOf(host) : '';
  return name !== '' && (isLoopbackHost(name) || allowed.has(name));
}

export function hostCheckMiddleware(options: { allowedHosts: string[] }): RequestHandler {
  const allowed = new Set(options.allowedHosts.map((host) => host.toLowerCase()));
  return (req: Request, res: Response, next: NextFunction) => {
    const host = req.headers.host;
    if (hostAllowed(host, allowed)) return next();
    res
      .status(403)
      .json({ error: `Forbidden Host header "${host ?? ''}": the daemon answers loopback names only` });
  };
}
