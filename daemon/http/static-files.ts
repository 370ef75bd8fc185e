import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Router } from 'express';

/**
 * No other site may show the web page in a frame: framed under a page that hides it, the inspector's own
 * buttons (Connect, Run, Add) could be clicked for the person, and with `--no-auth` the page needs no
 * token to work.
 */
export const NO_FRAMING = {
  'Content-Security-Policy': "frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
} as const;

/** Production mode serves the built web app; unknown non-API paths fall back to its index.html. */
export function staticFiles(dir: string): Router | undefined {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set(NO_FRAMING);
    next();
  });
  router.use(express.static(dir, { index: 'index.html' }));
  // Not for the API, nor for well-known metadata (an OAuth client looking there must get a 404, not a page).
  router.get(/^(?!\/+api\/|\/+\.well-known\/).*/, (_req, res) => res.sendFile(index));
  return router;
}
