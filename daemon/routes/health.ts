import { Router } from 'express';
import type { Answer } from '../../shared/routes.ts';
import type { DaemonMode } from '../../shared/health.ts';
import type { SignInConfig } from '../../shared/user.ts';
import { VERSION } from '../version.ts';

/** `signIn` is public on purpose: the page needs it before anyone is signed in, and it holds no secret. */
export function healthRouter(mode: DaemonMode, startedAt: number, signIn?: SignInConfig): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    const body: Answer<'GET /health'> = {
      status: 'ok',
      version: VERSION,
      mode,
      uptimeMs: Date.now() - startedAt,
      timestamp: new Date().toISOString(),
      ...(signIn && { signIn }),
    };
    res.json(body);
  });
  return router;
}
