import { Router } from 'express';
import type { DaemonMode, HealthResponse } from '../../shared/health.ts';
import { VERSION } from '../version.ts';

export function healthRouter(mode: DaemonMode, startedAt: number): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    const body: HealthResponse = {
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
