/**
 * "Replay through daemon": one request the page sent, sent again by the daemon to the server registered
 * for the page's endpoint, through the daemon's HTTP API (the same routes the panel uses), so its answer
 * can be set beside the page's. The request's method and params come from the page: they are read as
 * data (checked for their types), never run.
 */
import type { JsonObject } from '../../shared/api';
import type { ServerRecord } from '../../shared/servers';
import { type DaemonClient, DaemonError } from '../app/daemon-client';

/** The methods a page request may be replayed with, and the daemon route each goes to. */
export const REPLAYABLE_METHODS = [
  'tools/call',
  'tools/list',
  'resources/read',
  'resources/list',
  'resources/templates/list',
  'prompts/get',
  'prompts/list',
] as const;
export type ReplayMethod = (typeof REPLAYABLE_METHODS)[number];

export function isReplayable(method: string | undefined): method is ReplayMethod {
  return (REPLAYABLE_METHODS as readonly string[]).includes(method ?? '');
}

/** The daemon's answer to a replay: the MCP result it got, or the error, with the HTTP status. */
export type ReplayAnswer =
  | { ok: true; result: JsonObject; note?: string }
  | { ok: false; status: number; error: string; mcpError?: unknown };

/** The daemon server whose address is the page's endpoint (a remote server with that exact URL). */
export function serverForEndpoint(servers: readonly ServerRecord[], url: string): ServerRecord | undefined {
  return servers.find((s) => s.config.transport !== 'stdio' && s.config.url === url);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(params: Record<string, unknown>, key: string, method: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw new Error(`The page's ${method} has no string params.${key} to send`);
  return value;
}

/** The page's answer to compare with: the JSON-RPC `result`, or its `error`. */
export function pageAnswer(
  message: Record<string, unknown> | undefined,
): { result: unknown } | { error: unknown } | undefined {
  if (!message) return undefined;
  if ('result' in message) return { result: message.result };
  if ('error' in message) return { error: message.error };
  return undefined;
}

/** JSON with object keys sorted, so two answers compare by content, not key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    isObject(inner)
      ? Object.fromEntries(
          Object.keys(inner)
            .sort()
            .map((key) => [key, inner[key]]),
        )
      : inner,
  );
}

/** Whether the daemon's result is the page's (key order aside). */
export function sameAnswer(page: unknown, daemon: unknown): boolean {
  return canonical(page) === canonical(daemon);
}

/**
 * Sends the page's request (`method` with its `params`) through the daemon to `serverId`. A tool call
 * that asks for input (elicitation or sampling) is cancelled: a replay has no one to answer it.
 */
export async function replayRequest(
  client: DaemonClient,
  serverId: string,
  method: ReplayMethod,
  rawParams: unknown,
): Promise<ReplayAnswer> {
  const params = isObject(rawParams) ? rawParams : {};
  try {
    switch (method) {
      case 'tools/call': {
        const toolName = requireString(params, 'name', method);
        const parameters = isObject(params.arguments) ? (params.arguments as JsonObject) : {};
        const outcome = await client.execute({ serverId, toolName, parameters });
        if (outcome.status === 'completed') return { ok: true, result: outcome.result };
        if (outcome.status === 'elicitation_required') {
          await client.cancel(outcome.executionId).catch(() => undefined);
          return {
            ok: false,
            status: 202,
            error: `The server asked for input (${outcome.kind ?? 'elicitation'}) during the replay; it was cancelled. Run the tool from the Tools view to answer it.`,
          };
        }
        if (outcome.status === 'task_created')
          return {
            ok: true,
            result: { task: outcome.task as unknown as JsonObject },
            note: 'The server ran the call as a task; its result is under Tasks in the Tools view.',
          };
        return { ok: false, status: 200, error: 'The call was cancelled.' };
      }
      case 'tools/list': {
        const { tools } = await client.listTools(serverId);
        return { ok: true, result: { tools }, note: 'The daemon follows every page (nextCursor).' };
      }
      case 'resources/list': {
        const { resources } = await client.listResources(serverId);
        return { ok: true, result: { resources }, note: 'The daemon follows every page (nextCursor).' };
      }
      case 'resources/templates/list': {
        const { resourceTemplates } = await client.listResourceTemplates(serverId);
        return { ok: true, result: { resourceTemplates } };
      }
      case 'resources/read': {
        const { content } = await client.readResource(serverId, requireString(params, 'uri', method));
        return { ok: true, result: content };
      }
      case 'prompts/list': {
        const { prompts } = await client.listPrompts(serverId);
        return { ok: true, result: { prompts } };
      }
      case 'prompts/get': {
        const args = isObject(params.arguments) ? params.arguments : undefined;
        const { content } = await client.getPrompt({
          serverId,
          name: requireString(params, 'name', method),
          ...(args && { args }),
        });
        return { ok: true, result: content };
      }
    }
  } catch (error) {
    if (error instanceof DaemonError)
      return {
        ok: false,
        status: error.status,
        error: error.message,
        ...(error.body.mcpError !== undefined && { mcpError: error.body.mcpError }),
      };
    return { ok: false, status: 0, error: (error as Error).message };
  }
}
