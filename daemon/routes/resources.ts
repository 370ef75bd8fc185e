import { Router } from 'express';
import type { Answer } from '../../shared/routes.ts';
import type { ListPage, ListRequest, ResourceReadRequest } from '../../shared/api.ts';
import { listRequestSchema, resourceReadRequestSchema } from '../../shared/schemas.ts';
import { answerUnlessGone } from '../http/answer-unless-gone.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import { resultProblemOf } from '../mcp/result-problem.ts';
import type { ServerConnection } from '../mcp/server-connection.ts';
import { listPageOf } from './list-page.ts';

/** Every page of resources/list joined, or the one page asked for. */
export async function listResources(
  connection: ServerConnection,
  page?: ListPage,
): Promise<Answer<'POST /resources/list'>> {
  const { items, rest } = page
    ? await connection.listPage('resources/list', 'resources', page.cursor)
    : await connection.listAll('resources/list', 'resources');
  return { ...rest, resources: items };
}

/** Every page of resources/templates/list joined, or the one page asked for. */
export async function listResourceTemplates(
  connection: ServerConnection,
  page?: ListPage,
): Promise<Answer<'POST /resources/templates/list'>> {
  const method = 'resources/templates/list';
  const { items, rest } = page
    ? await connection.listPage(method, 'resourceTemplates', page.cursor)
    : await connection.listAll(method, 'resourceTemplates');
  return { ...rest, resourceTemplates: items };
}

export async function readResource(
  connection: ServerConnection,
  uri: string,
  signal?: AbortSignal,
): Promise<Answer<'POST /resources/read'>> {
  const content = await connection.request('resources/read', { uri }, signal && { signal });
  return { content, ...resultProblemOf(content) };
}

export function resourcesRouter(manager: ClientManager): Router {
  const router = Router();

  router.post('/list', async (req, res) => {
    const body = validate<ListRequest>(listRequestSchema, req.body);
    res.json(await listResources(manager.get(body.serverId), listPageOf(body)));
  });

  router.post('/templates/list', async (req, res) => {
    const body = validate<ListRequest>(listRequestSchema, req.body);
    res.json(await listResourceTemplates(manager.get(body.serverId), listPageOf(body)));
  });

  // Updates arrive on the live channel as `notifications/resources/updated`, in either era: a modern
  // server sends them on the daemon's `subscriptions/listen` stream (daemon/mcp/listen.ts).
  router.post('/subscribe', async (req, res) => {
    const { serverId, uri } = validate<ResourceReadRequest>(resourceReadRequestSchema, req.body);
    await manager.get(serverId).resourceSubscriptions.subscribe(uri);
    res.json({ subscribed: true, serverId, uri } satisfies Answer<'POST /resources/subscribe'>);
  });

  router.post('/unsubscribe', async (req, res) => {
    const { serverId, uri } = validate<ResourceReadRequest>(resourceReadRequestSchema, req.body);
    await manager.get(serverId).resourceSubscriptions.unsubscribe(uri);
    res.json({ subscribed: false, serverId, uri } satisfies Answer<'POST /resources/unsubscribe'>);
  });

  router.post('/read', async (req, res) => {
    const { serverId, uri } = validate<ResourceReadRequest>(resourceReadRequestSchema, req.body);
    const connection = manager.get(serverId);
    await answerUnlessGone(res, (signal) => readResource(connection, uri, signal));
  });

  return router;
}
