import { Router } from 'express';
import type { Answer } from '../../shared/routes.ts';
import type { DaemonMode } from '../../shared/health.ts';
import { VERSION } from '../version.ts';

export function healthRouter(mode: DaemonMode, startedAt: number): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    const body: Answer<'GET /health'> = {
      status: 'ok',
      version: VERSION,
      mode,
      uptimeMs: Date.now() - startedAt,
      timestamp: new Date().toISOString(),
    };
    res.json(body);
  });
  return router;
}
