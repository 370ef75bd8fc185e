import { Router } from 'express';
import type { Answer } from '../../shared/routes.ts';
import type { ListPage, ListRequest, PromptGetRequest } from '../../shared/api.ts';
import { listRequestSchema, promptGetRequestSchema } from '../../shared/schemas.ts';
import { DaemonError, isMcpError, quotedName } from '../errors.ts';
import { answerUnlessGone } from '../http/answer-unless-gone.ts';
import { validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import { resultProblemOf } from '../mcp/result-problem.ts';
import type { ServerConnection } from '../mcp/server-connection.ts';
import { listPageOf } from './list-page.ts';

/** JSON-RPC "invalid params" (the SDK's ErrorCode.InvalidParams). */
const INVALID_PARAMS = -32602;

/** Every page of prompts/list joined, or the one page asked for. */
export async function listPrompts(
  connection: ServerConnection,
  page?: ListPage,
): Promise<Answer<'POST /prompts/list'>> {
  const { items, rest } = page
    ? await connection.listPage('prompts/list', 'prompts', page.cursor)
    : await connection.listAll('prompts/list', 'prompts');
  return { ...rest, prompts: items };
}

/** SPEC part 4: every value of `args` becomes a string; without `args`, no arguments are passed. */
export async function getPrompt(
  connection: ServerConnection,
  name: string,
  args: Record<string, unknown> | undefined,
  signal?: AbortSignal,
): Promise<Answer<'POST /prompts/get'>> {
  const params: Record<string, unknown> = { name };
  if (args) params.arguments = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)]));
  try {
    const content = await connection.request('prompts/get', params, signal && { signal });
    return { content, ...resultProblemOf(content) };
  } catch (error) {
    // Servers answer an unknown name with "invalid params"; say 404 when the list confirms it.
    if (isMcpError(error) && error.code === INVALID_PARAMS) {
      const { prompts } = await listPrompts(connection);
      if (!prompts.some((p) => p.name === name)) {
        throw new DaemonError(
          'prompt_not_found',
          `Unknown prompt ${quotedName(name)} on server "${connection.id}"`,
        );
      }
    }
    throw error;
  }
}

export function promptsRouter(manager: ClientManager): Router {
  const router = Router();

  router.post('/list', async (req, res) => {
    const body = validate<ListRequest>(listRequestSchema, req.body);
    res.json(await listPrompts(manager.get(body.serverId), listPageOf(body)));
  });

  router.post('/get', async (req, res) => {
    const { serverId, name, args } = validate<PromptGetRequest>(promptGetRequestSchema, req.body);
    const connection = manager.get(serverId);
    await answerUnlessGone(res, (signal) => getPrompt(connection, name, args, signal));
  });

  return router;
}
