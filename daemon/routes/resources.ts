import { Router } from 'express';
import type { Answer } from '../../shared/routes.ts';
import type { ResourceReadRequest, ServerRequest } from '../../shared/api.ts';
import { resourceReadRequestSchema, serverRequestSchema } from '../../shared/schemas.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import type { ServerConnection } from '../mcp/server-connection.ts';

export async function listResources(connection: ServerConnection): Promise<Answer<'POST /resources/list'>> {
  const { items, rest } = await connection.listAll('resources/list', 'resources');
  return { ...rest, resources: items };
}

export async function listResourceTemplates(
  connection: ServerConnection,
): Promise<Answer<'POST /resources/templates/list'>> {
  const { items, rest } = await connection.listAll('resources/templates/list', 'resourceTemplates');
  return { ...rest, resourceTemplates: items };
}

export async function readResource(
  connection: ServerConnection,
  uri: string,
): Promise<Answer<'POST /resources/read'>> {
  return { content: await connection.request('resources/read', { uri }) };
}

export function resourcesRouter(manager: ClientManager): Router {
  const router = Router();

  router.post('/list', async (req, res) => {
    const { serverId } = validate<ServerRequest>(serverRequestSchema, req.body);
    res.json(await listResources(manager.get(serverId)));
  });

  router.post('/templates/list', async (req, res) => {
    const { serverId } = validate<ServerRequest>(serverRequestSchema, req.body);
    res.json(await listResourceTemplates(manager.get(serverId)));
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
    res.json(await readResource(manager.get(serverId), uri));
  });

  return router;
}
