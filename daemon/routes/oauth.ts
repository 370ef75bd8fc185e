/**
 * OAuth routes: `POST /servers/:id/auth/start` and `DELETE /servers/:id/auth` under the API (token
 * required), and the loopback callback `GET /oauth/callback` (RFC 8252) that the person's browser comes
 * back to. The callback takes no token (the authorization server's redirect cannot carry one): `state`
 * binds it to a flow the daemon started, and the Host check runs before it like before every route.
 */
import { Router } from 'express';
import { type AuthStartRequest, authStartRequestSchema } from '../../shared/oauth.ts';
import type { Answer } from '../../shared/routes.ts';
import { DaemonError } from '../errors.ts';
import { requestTarget } from '../http/request-target.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import type { OAuthManager } from '../oauth/oauth-manager.ts';

export function oauthServerRouter(manager: ClientManager, oauth: OAuthManager): Router {
  const router = Router();

  // A guided flow answers 202 at once: each of its requests then waits for `auth/trace/next`.
  router.post('/:id/auth/start', async (req, res) => {
    const { mode = 'quick' } = validate<AuthStartRequest>(authStartRequestSchema, req.body ?? {});
    const connection = manager.get(String(req.params.id));
    await connection.disconnect();
    const flow = oauth.start(connection.id, connection.config, mode).then(async ({ authorizationUrl }) => {
      // No person needed (client credentials, or a refresh that worked): connect at once.
      if (!authorizationUrl) await connection.ensureConnected();
    });
    if (mode === 'guided') {
      // Its failure is the trace's last step and the record's error.
      flow.catch(() => {});
      res.status(202).json(connection.record() satisfies Answer<'POST /servers/:id/auth/start'>);
      return;
    }
    await flow;
    res.json(connection.record() satisfies Answer<'POST /servers/:id/auth/start'>);
  });

  router.delete('/:id/auth', async (req, res) => {
    const connection = manager.get(String(req.params.id));
    await connection.disconnect();
    await oauth.forget(connection.id);
    res.json(connection.record() satisfies Answer<'DELETE /servers/:id/auth'>);
  });

  router.get('/:id/auth/trace', (req, res) => {
    const connection = manager.get(String(req.params.id));
    res.json(oauth.trace(connection.id).view() satisfies Answer<'GET /servers/:id/auth/trace'>);
  });

  router.post('/:id/auth/trace/next', (req, res) => {
    const connection = manager.get(String(req.params.id));
    const trace = oauth.trace(connection.id);
    if (!trace.next()) {
      throw new DaemonError(
        'auth_step_not_found',
        `No step of server "${connection.id}" waits: start a guided sign-in first`,
      );
    }
    res.json(trace.view() satisfies Answer<'POST /servers/:id/auth/trace/next'>);
  });

  router.delete('/:id/auth/trace', (req, res) => {
    const connection = manager.get(String(req.params.id));
    const trace = oauth.trace(connection.id);
    trace.clear();
    res.json(trace.view() satisfies Answer<'DELETE /servers/:id/auth/trace'>);
  });

  return router;
}

export function oauthCallbackRouter(manager: ClientManager, oauth: OAuthManager): Router {
  const router = Router();
  router.get('/oauth/callback', async (req, res) => {
    const query = requestTarget(req.originalUrl)?.searchParams ?? new URLSearchParams();
    const outcome = await oauth.callback(query);
    let { ok, title, detail } = outcome;
    const serverId = outcome.serverId;
    if (ok && serverId && manager.has(serverId)) {
      const connection = manager.get(serverId);
      await connection.disconnect();
      try {
        await connection.ensureConnected();
        title = `Signed in to ${connection.name}`;
        detail = 'The inspector is connected to the server. You can close this tab.';
      } catch (error) {
        ok = false;
        title = `Signed in to ${connection.name}, but the connection failed`;
        detail = (error as Error).message;
      }
    }
    res
      .status(ok ? 200 : 400)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        'X-Frame-Options': 'DENY',
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'no-referrer',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(page(ok, title, detail));
  });
  return router;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

function page(ok: boolean, title: string, detail: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · MCP inspector</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:40em;margin:4em auto;padding:0 1em}h1{font-size:1.3em;color:${ok ? '#17603a' : '#a1260d'}}</style>
</head><body><h1 data-outcome="${ok ? 'ok' : 'failed'}">${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></body></html>
`;
}
