import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Hands a request to `handler` only when its path (below the mount point) starts with one of
 * `prefixes`, compared as express routes compare, without regard to case. A router mounted at the API
 * root is otherwise walked by every request, each of its routes' patterns tried in turn: a tool call
 * would pay for the widget and server-feature routes it never takes.
 */
export function under(prefixes: readonly string[], handler: RequestHandler): RequestHandler {
  const lower = prefixes.map((prefix) => prefix.toLowerCase());
  return (req: Request, res: Response, next: NextFunction) => {
    const path = req.path.toLowerCase();
    if (lower.some((prefix) => path.startsWith(prefix))) return handler(req, res, next);
    next();
  };
}
