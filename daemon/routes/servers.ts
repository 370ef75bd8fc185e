import { Router } from 'express';
import type { Answer } from '../../shared/routes.ts';
import type { ImportServersRequest } from '../../shared/api.ts';
import {
  importServersRequestSchema,
  promptArgsRequestSchema,
  putServerRequestSchema,
  toolCallRequestSchema,
} from '../../shared/schemas.ts';
import { unmaskConfig } from '../servers/secrets.ts';
import { type PutServerRequest, SERVER_ID_PATTERN } from '../../shared/servers.ts';
import { DaemonError } from '../errors.ts';
import { answerUnlessGone } from '../http/answer-unless-gone.ts';
import { invalidRequest, problemsOf, validate } from '../http/validate.ts';
import type { ClientManager } from '../mcp/client-manager.ts';
import type { ExecutionManager } from '../mcp/execution.ts';
import { checkServerConfigs, serverConfigProblems } from '../servers/check-config.ts';
import { parseMcpServers } from '../servers/registry-file.ts';
import { listPageOfQuery } from './list-page.ts';
import { getPrompt, listPrompts } from './prompts.ts';
import { listResources, readResource } from './resources.ts';
import { sendOutcome } from './tools.ts';

const ID = new RegExp(SERVER_ID_PATTERN);

/**
 * A PUT body's own fields, its config only as an object: the config is checked against the one branch its
 * transport picks (check-config.ts), where the whole schema's `oneOf` would also list every complaint of
 * the other branch (`config.command: is required` for an HTTP server).
 */
export const putEnvelopeSchema = {
  ...putServerRequestSchema,
  properties: { ...putServerRequestSchema.properties, config: { type: 'object' } },
} as const;

/** The server registry and the per-server REST group (SPEC "Other routes", DESIGN "Servers"). */
export function serversRouter(manager: ClientManager, executions: ExecutionManager): Router {
  const router = Router();
  const server = (id: string | undefined) => manager.get(String(id));

  router.get('/', (_req, res) => {
    res.json({ servers: manager.list() } satisfies Answer<'GET /servers/'>);
  });

  router.post('/import', async (req, res) => {
    const body = validate<ImportServersRequest>(importServersRequestSchema, req.body);
    let servers: ReturnType<typeof parseMcpServers>;
    try {
      servers = parseMcpServers(body, 'mcpServers');
    } catch (error) {
      throw new DaemonError('invalid_request', (error as Error).message);
    }
    checkServerConfigs(servers.map(({ id, config }) => ({ path: `mcpServers.${id}`, config })));
    const imported = servers.map((s) => ({ ...s, config: unmaskConfig(s.config, manager.configOf(s.id)) }));
    const added = await manager.put(imported);
    res.json({ servers: added.map(({ record }) => record) } satisfies Answer<'POST /servers/import'>);
  });

  router.get('/:id', (req, res) => {
    res.json(server(req.params.id).record() satisfies Answer<'GET /servers/:id'>);
  });

  router.put('/:id', async (req, res) => {
    const id = req.params.id;
    if (!ID.test(id))
      throw invalidRequest([
        {
          path: 'id',
          message: 'use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit',
        },
      ]);
    const asked: { config?: unknown } = validate({ type: 'object' }, req.body);
    const problems = problemsOf(putEnvelopeSchema, asked);
    const sent = asked.config;
    if (typeof sent === 'object' && sent !== null && !Array.isArray(sent)) {
      problems.push(...serverConfigProblems([{ path: 'config', config: sent }]));
    }
    if (problems.length) throw invalidRequest(problems);
    const body = asked as PutServerRequest;
    const config = unmaskConfig(body.config, manager.configOf(id));
    const { record, replaced } = (await manager.put([{ id, name: body.name ?? id, config }]))[0]!;
    res.status(replaced ? 200 : 201).json(record satisfies Answer<'PUT /servers/:id'>);
  });

  router.delete('/:id', async (req, res) => {
    await manager.remove(req.params.id);
    res.json({ success: true, id: req.params.id } satisfies Answer<'DELETE /servers/:id'>);
  });

  router.post('/:id/connect', async (req, res) => {
    const connection = server(req.params.id);
    await connection.ensureConnected();
    res.json(connection.record() satisfies Answer<'POST /servers/:id/connect'>);
  });

  router.post('/:id/disconnect', async (req, res) => {
    const connection = server(req.params.id);
    await connection.disconnect();
    res.json(connection.record() satisfies Answer<'POST /servers/:id/disconnect'>);
  });

  router.get('/:id/tools', async (req, res) => {
    res.json(await server(req.params.id).listTools(listPageOfQuery(req.query)));
  });

  router.post('/:id/tools/:name/call', async (req, res) => {
    const body = validate<{ parameters?: Record<string, unknown>; timeoutMs?: number }>(
      toolCallRequestSchema,
      req.body ?? {},
    );
    const outcome = await executions.execute(
      server(req.params.id),
      req.params.name,
      body.parameters ?? {},
      body.timeoutMs,
    );
    sendOutcome(res, outcome);
  });

  router.get('/:id/resources', async (req, res) => {
    res.json(await listResources(server(req.params.id), listPageOfQuery(req.query)));
  });

  // The URI is one percent-encoded path segment: /resources/demo%3A%2F%2Fresource%2F1
  router.get('/:id/resources/:uri', async (req, res) => {
    const connection = server(req.params.id);
    await answerUnlessGone(res, (signal) => readResource(connection, req.params.uri, signal));
  });

  router.get('/:id/prompts', async (req, res) => {
    res.json(await listPrompts(server(req.params.id), listPageOfQuery(req.query)));
  });

  router.post('/:id/prompts/:name/get', async (req, res) => {
    const body = validate<{ args?: Record<string, unknown> }>(promptArgsRequestSchema, req.body ?? {});
    const connection = server(req.params.id);
    await answerUnlessGone(res, (signal) => getPrompt(connection, req.params.name, body.args, signal));
  });

  return router;
}
