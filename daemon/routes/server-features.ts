import { Router } from 'express';
import type { Answer, RootsRequest } from '../../shared/routes.ts';
import type { CompleteRequest, LoggingLevelRequest } from '../../shared/api.ts';
import {
  completeRequestSchema,
  loggingLevelRequestSchema,
  rootsRequestSchema,
} from '../../shared/schemas.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import { resultProblemOf } from '../mcp/result-problem.ts';

/**
 * Client features of MCP beyond tools, resources and prompts: `ping` with its round trip,
 * `logging/setLevel`, the roots offered to a server, and `completion/complete`. Results pass through as the server sent them; a server
 * without the capability answers with its own error (502 with `mcpError`).
 */
export function serverFeaturesRouter(manager: ClientManager): Router {
  const router = Router();

  router.post('/servers/:id/ping', async (req, res) => {
    const connection = manager.get(req.params.id);
    // Connecting is not part of the round trip.
    await connection.ensureConnected();
    const method = connection.pingMethod;
    const started = performance.now();
    await connection.request(method, {});
    const body: Answer<'POST /servers/:id/ping'> = {
      roundTripMs: Math.round((performance.now() - started) * 100) / 100,
      method,
    };
    res.json(body);
  });

  router.post('/servers/:id/logging-level', async (req, res) => {
    const connection = manager.get(req.params.id);
    const body = validate<LoggingLevelRequest>(loggingLevelRequestSchema, req.body);
    await connection.setLoggingLevel(body.level);
    res.json(connection.record() satisfies Answer<'POST /servers/:id/logging-level'>);
  });

  router.put('/servers/:id/roots', async (req, res) => {
    const { roots } = validate<RootsRequest>(rootsRequestSchema, req.body);
    await manager.setRoots(req.params.id, roots);
    res.json(manager.get(req.params.id).record() satisfies Answer<'PUT /servers/:id/roots'>);
  });

  router.post('/completions/complete', async (req, res) => {
    const { serverId, ...params } = validate<CompleteRequest>(completeRequestSchema, req.body);
    // Passed through as the server sent it, with what breaks the 2026-07-28 schema in it, if anything.
    const result = (await manager.get(serverId).request('completion/complete', {
      ...params,
    })) as Answer<'POST /completions/complete'>;
    res.json({ ...result, ...resultProblemOf(result) });
  });

  return router;
}
