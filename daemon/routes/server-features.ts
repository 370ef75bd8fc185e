import { Router } from 'express';
import type {
  CompleteRequest,
  CompleteResponse,
  LoggingLevelRequest,
  PingResponse,
} from '../../shared/api.ts';
import {
  completeRequestSchema,
  loggingLevelRequestSchema,
  rootsRequestSchema,
} from '../../shared/schemas.ts';
import type { Root } from '../../shared/servers.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';

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
    const started = performance.now();
    await connection.request('ping', {});
    const body: PingResponse = { roundTripMs: Math.round((performance.now() - started) * 100) / 100 };
    res.json(body);
  });

  router.post('/servers/:id/logging-level', async (req, res) => {
    const connection = manager.get(req.params.id);
    const body = validate<LoggingLevelRequest>(loggingLevelRequestSchema, req.body);
    await connection.setLoggingLevel(body.level);
    res.json(connection.record());
  });

  router.put('/servers/:id/roots', async (req, res) => {
    const { roots } = validate<{ roots: Root[] }>(rootsRequestSchema, req.body);
    await manager.setRoots(req.params.id, roots);
    res.json(manager.get(req.params.id).record());
  });

  router.post('/completions/complete', async (req, res) => {
    const { serverId, ...params } = validate<CompleteRequest>(completeRequestSchema, req.body);
    const result = (await manager.get(serverId).request('completion/complete', {
      ...params,
    })) as CompleteResponse;
    res.json(result);
  });

  return router;
}
