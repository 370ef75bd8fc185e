import type { ServerResponse } from 'node:http';
import { Router } from 'express';
import type { Answer } from '../../shared/routes.ts';
import type { CancelRequest, ExecuteRequest, ListRequest, RespondRequest } from '../../shared/api.ts';
import {
  cancelRequestSchema,
  executeRequestSchema,
  listRequestSchema,
  respondRequestSchema,
} from '../../shared/schemas.ts';
import { sendJson } from '../http/send-json.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import type { ExecutionManager } from '../mcp/execution.ts';
import { listPageOf } from './list-page.ts';

/** 202 while an elicitation waits for an answer, 200 otherwise (SPEC part 3). */
export function sendOutcome(res: ServerResponse, outcome: Answer<'POST /tools/execute'>): void {
  sendJson(res, outcome.status === 'elicitation_required' ? 202 : 200, outcome);
}

/** `POST /tools/execute` from its body: the express route's and the direct route's (direct-routes.ts). */
export async function executeFromBody(
  manager: ClientManager,
  executions: ExecutionManager,
  requestBody: unknown,
): Promise<Answer<'POST /tools/execute'>> {
  const body = validate<ExecuteRequest>(executeRequestSchema, requestBody);
  return executions.execute(
    manager.get(body.serverId),
    body.toolName,
    body.parameters ?? {},
    body.timeoutMs,
    body.task ?? (body.runAsTask ? {} : undefined),
  );
}

export function toolsRouter(manager: ClientManager, executions: ExecutionManager): Router {
  const router = Router();

  router.post('/list', async (req, res) => {
    const body = validate<ListRequest>(listRequestSchema, req.body);
    const listed = await manager.get(body.serverId).listTools(listPageOf(body));
    sendJson(res, 200, listed satisfies Answer<'POST /tools/list'>);
  });

  router.post('/execute', async (req, res) => {
    sendOutcome(res, await executeFromBody(manager, executions, req.body));
  });

  router.post('/respond', async (req, res) => {
    const body = validate<RespondRequest>(respondRequestSchema, req.body);
    sendOutcome(res, await executions.respond(body.requestId, body.response));
  });

  // The running call, so a front end whose execute request is still waiting can cancel it.
  router.get('/active', (_req, res) => {
    res.json({ activeExecution: executions.activeWithElicitation } satisfies Answer<'GET /tools/active'>);
  });

  router.post('/cancel', (req, res) => {
    const body = validate<CancelRequest>(cancelRequestSchema, req.body);
    res.json(executions.cancel(body.executionId) satisfies Answer<'POST /tools/cancel'>);
  });

  return router;
}
