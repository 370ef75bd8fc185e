import { Router } from 'express';
import type { Answer } from '../../shared/routes.ts';
import { signedInUser } from '../security/token-middleware.ts';

/** Who the caller is: the user its bearer token belongs to, or `null` for the session token. */
export function userRouter(): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    const body: Answer<'GET /user'> = { user: signedInUser(res) ?? null };
    res.json(body);
  });
  return router;
}
