import { Router } from 'express';
import type { McpTask, ServerRequest, TaskRequest } from '../../shared/api.ts';
import type { Answer } from '../../shared/routes.ts';
import { serverRequestSchema, taskRequestSchema } from '../../shared/schemas.ts';
import { DaemonError } from '../errors.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import type { ExecutionManager } from '../mcp/execution.ts';
import type { ServerConnection } from '../mcp/server-connection.ts';
import { sendOutcome } from './tools.ts';

/**
 * MCP tasks of a server: `tasks/list`, `tasks/get`, `tasks/result` and `tasks/cancel` as plain requests
 * at 2025-11-25 (experimental; SDK v2 has no task runtime); at the modern era the same routes speak the
 * `io.modelcontextprotocol/tasks` extension (mcp/modern-tasks.ts), whose tasks are shown in the same
 * shape. A task's result passes through as the server sent it; waiting for the result of a running
 * task holds the execution lock (see ExecutionManager).
 */
export function tasksRouter(manager: ClientManager, executions: ExecutionManager): Router {
  const router = Router();

  router.post('/list', async (req, res) => {
    const { serverId } = validate<ServerRequest>(serverRequestSchema, req.body);
    const connection = await withTasks(manager, serverId, 'list');
    const tasks: McpTask[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await connection.listTasks(cursor);
      if (Array.isArray(page.tasks)) tasks.push(...(page.tasks as McpTask[]));
      const next = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
      cursor = next && !seen.has(next) ? next : undefined;
      if (cursor) seen.add(cursor);
    } while (cursor);
    res.json({ tasks } satisfies Answer<'POST /tasks/list'>);
  });

  router.post('/get', async (req, res) => {
    const { serverId, taskId } = validate<TaskRequest>(taskRequestSchema, req.body);
    const connection = await withTasks(manager, serverId);
    const task = (await connection.getTask(taskId)) as McpTask;
    res.json(task satisfies Answer<'POST /tasks/get'>);
  });

  router.post('/result', async (req, res) => {
    const { serverId, taskId } = validate<TaskRequest>(taskRequestSchema, req.body);
    const connection = await withTasks(manager, serverId);
    sendOutcome(res, await executions.taskResult(connection, taskId));
  });

  router.post('/cancel', async (req, res) => {
    const { serverId, taskId } = validate<TaskRequest>(taskRequestSchema, req.body);
    const connection = await withTasks(manager, serverId, 'cancel');
    res.json((await executions.cancelTask(connection, taskId)) satisfies Answer<'POST /tasks/cancel'>);
  });

  return router;
}

/**
 * The server, connected, once it says it has tasks (and, for list and cancel at 2025-11-25, that part
 * of them: the modern extension always cancels, and its list is the daemon's own).
 */
async function withTasks(
  manager: ClientManager,
  serverId: string,
  part?: 'list' | 'cancel',
): Promise<ServerConnection> {
  const connection = manager.get(serverId);
  await connection.ensureConnected();
  const tasks = connection.tasksCapability;
  if (!tasks || (part && !connection.isModern && !tasks[part])) {
    const what = connection.isModern
      ? 'io.modelcontextprotocol/tasks extension'
      : part
        ? `tasks.${part}`
        : 'tasks';
    throw new DaemonError(
      'invalid_request',
      `Server "${serverId}" does not declare the ${what}${connection.isModern ? '' : ' capability'}, so it has no tasks to ${part ?? 'show'}`,
    );
  }
  return connection;
}
