import { Router } from 'express';
import type { Answer } from '../../shared/routes.ts';
import type { PromptGetRequest, ServerRequest } from '../../shared/api.ts';
import { promptGetRequestSchema, serverRequestSchema } from '../../shared/schemas.ts';
import { DaemonError, isMcpError } from '../errors.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import type { ServerConnection } from '../mcp/server-connection.ts';

/** JSON-RPC "invalid params" (the SDK's ErrorCode.InvalidParams). */
const INVALID_PARAMS = -32602;

export async function listPrompts(connection: ServerConnection): Promise<Answer<'POST /prompts/list'>> {
  const { items, rest } = await connection.listAll('prompts/list', 'prompts');
  return { ...rest, prompts: items };
}

/** SPEC part 4: every value of `args` becomes a string; without `args`, no arguments are passed. */
export async function getPrompt(
  connection: ServerConnection,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<Answer<'POST /prompts/get'>> {
  const params: Record<string, unknown> = { name };
  if (args) params.arguments = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)]));
  try {
    return { content: await connection.request('prompts/get', params) };
  } catch (error) {
    // Servers answer an unknown name with "invalid params"; say 404 when the list confirms it.
    if (isMcpError(error) && error.code === INVALID_PARAMS) {
      const { prompts } = await listPrompts(connection);
      if (!prompts.some((p) => p.name === name)) {
        throw new DaemonError('prompt_not_found', `Unknown prompt "${name}" on server "${connection.id}"`);
      }
    }
    throw error;
  }
}

export function promptsRouter(manager: ClientManager): Router {
  const router = Router();

  router.post('/list', async (req, res) => {
    const { serverId } = validate<ServerRequest>(serverRequestSchema, req.body);
    res.json(await listPrompts(manager.get(serverId)));
  });

  router.post('/get', async (req, res) => {
    const { serverId, name, args } = validate<PromptGetRequest>(promptGetRequestSchema, req.body);
    res.json(await getPrompt(manager.get(serverId), name, args));
  });

  return router;
}
