import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Router } from 'express';

/** Production mode serves the built web app; unknown non-API paths fall back to its index.html. */
export function staticFiles(dir: string): Router | undefined {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const router = express.Router();
  router.use(express.static(dir, { index: 'index.html' }));
  router.get(/^(?!\/api\/).*/, (_req, res) => res.sendFile(index));
  return router;
}
