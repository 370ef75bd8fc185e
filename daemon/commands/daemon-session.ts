/**
 * A server reached through a running daemon's HTTP API (`--daemon URL`), with the routes of the typed
 * route map (shared/routes.ts) the panel uses, so the command line and the daemon cannot drift apart.
 */
import type { ElicitationResponse, ExecutionOutcome, JsonObject } from '../../shared/api.ts';
import type { ErrorBody } from '../../shared/errors.ts';
import {
  type Answer,
  type Body,
  type PathParams,
  type RouteName,
  routeRequest,
} from '../../shared/routes.ts';
import type { Answerer } from './answers.ts';
import { terminalSafe } from './terminal-safe.ts';
import { EXIT } from './exit-codes.ts';
import { CommandError, connectionError, serverError, usageError } from './failure.ts';
import type { Session, ToolCallOutcome } from './session.ts';

export interface DaemonAccess {
  /** The daemon's origin, e.g. http://127.0.0.1:6274. */
  url: string;
  token?: string;
  /** Where the token came from, for the message when the daemon refuses it. */
  tokenOrigin: string;
}

/** A failed API call: the exit code its status calls for, and the status for callers that need it. */
export class DaemonCallError extends CommandError {
  constructor(
    message: string,
    exitCode: CommandError['exitCode'],
    readonly status: number,
  ) {
    super(message, exitCode);
  }
}

/** The exit code of a daemon's error answer (README "Errors"). */
function exitCodeOf(status: number, mcpCode: unknown): CommandError['exitCode'] {
  if (status === 400) return EXIT.usage;
  if (status === 403 || status === 429) return EXIT.connection;
  // The daemon's own failures to start or reach a server carry a word code (COMMAND_NOT_FOUND…).
  if (status === 502 && typeof mcpCode === 'string') return EXIT.connection;
  return EXIT.serverError;
}

/** The daemon's API, answering parsed JSON or failing with the right exit code. */
export class DaemonApi {
  constructor(private readonly access: DaemonAccess) {}

  /** Calls one route by its name; the body and the answer are the route's own types. */
  call<R extends RouteName>(route: R, params: PathParams<R>, body?: Body<R>): Promise<Answer<R>> {
    const { method, path } = routeRequest(route, params);
    return this.request<Answer<R>>(method, path, body);
  }

  private async request<T>(method: string, path: string, body: unknown): Promise<T> {
    const { url, token, tokenOrigin } = this.access;
    // Written before the request: a failure to write it is no failure to reach the daemon.
    const sent = body === undefined ? undefined : JSON.stringify(body);
    let response: Response;
    try {
      response = await fetch(`${url}/api/mcp${path}`, {
        method,
        headers: {
          ...(token && { 'X-Inspector-Token': token }),
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
        },
        body: sent,
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw connectionError(
        `cannot reach the daemon at ${url}${cause ? ` (${cause})` : ''}: start it with \`inspector-daemon\`, or check --daemon`,
      );
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw connectionError(
        `${url} did not answer as an inspector-daemon does (HTTP ${response.status}, not JSON): check --daemon`,
      );
    }
    if (response.ok) return json as T;
    if (response.status === 401) {
      throw new DaemonCallError(
        `the daemon at ${url} refused the token (${tokenOrigin}): pass the one it printed with --token, or set INSPECTOR_TOKEN`,
        EXIT.connection,
        401,
      );
    }
    const { error, mcpError } = (json ?? {}) as Partial<ErrorBody>;
    const busy = (json as { code?: unknown; activeExecution?: { serverId?: unknown; toolName?: unknown } })
      ?.activeExecution;
    if ((json as { code?: unknown })?.code === 'execution_busy' && busy) {
      // The daemon runs one call at a time: say which one holds it, and how to end it.
      throw new DaemonCallError(
        terminalSafe(
          `the daemon is running another call, "${String(busy.toolName)}" of "${String(busy.serverId)}": ` +
            'wait for it to end, or cancel it in the panel (or POST /api/mcp/tools/cancel)',
        ),
        EXIT.connection,
        response.status,
      );
    }
    const message = typeof error === 'string' ? error : `HTTP ${response.status}`;
    const code = exitCodeOf(response.status, mcpError?.code);
    const said =
      code === EXIT.serverError && typeof mcpError?.code === 'number'
        ? `the server answered error ${mcpError.code}: ${message}`
        : message;
    throw new DaemonCallError(said, code, response.status);
  }
}

export async function openDaemon(
  access: DaemonAccess,
  serverId: string,
  answerer: Answerer,
  /** A tool call's time-out in the daemon (`--timeout`); the daemon's default when undefined. */
  timeoutMs?: number,
): Promise<Session> {
  const api = new DaemonApi(access);
  try {
    await api.call('POST /servers/:id/connect', { id: serverId });
  } catch (error) {
    if (error instanceof DaemonCallError && error.status === 404) {
      throw usageError(
        `the daemon at ${access.url} has no server "${serverId}": add it with \`inspector-daemon servers add ${serverId} --stdio "…" --daemon ${access.url}\``,
      );
    }
    if (error instanceof DaemonCallError && error.exitCode !== EXIT.connection) {
      throw connectionError(`cannot connect to "${serverId}": ${error.message}`);
    }
    throw error;
  }
  let running: string | undefined;
  /** The tool of the call sent and not yet answered: an interruption cancels it (close below). */
  let calling: string | undefined;

  /** The request of the call under way: an interruption waits for its answer, so that it is reported. */
  let pending: Promise<unknown> | undefined;

  async function callTool(name: string, args: JsonObject): Promise<ToolCallOutcome> {
    calling = name;
    let outcome: ExecutionOutcome;
    try {
      outcome = await (pending = api.call(
        'POST /tools/execute',
        {},
        { serverId, toolName: name, parameters: args, ...(timeoutMs !== undefined && { timeoutMs }) },
      ));
    } finally {
      calling = undefined;
    }
    try {
      while (outcome.status === 'elicitation_required') {
        running = outcome.executionId;
        let response: ElicitationResponse;
        if (outcome.kind === 'sampling') {
          answerer.sampling();
          response = { action: 'decline' };
        } else response = answerer.answer(outcome.request);
        outcome = await api.call('POST /tools/respond', {}, { requestId: outcome.requestId, response });
      }
    } finally {
      running = undefined;
    }
    if (outcome.status === 'cancelled')
      throw serverError(`the call of "${name}" was cancelled in the daemon`);
    if (outcome.status === 'task_created') throw serverError(`"${name}" answered with a task, not a result`);
    const { result, resultProblem } = outcome;
    return { result, ...(resultProblem !== undefined && { resultProblem }) };
  }

  return {
    listTools: async () => (await api.call('POST /tools/list', {}, { serverId })).tools,
    callTool,
    listResources: async () => (await api.call('POST /resources/list', {}, { serverId })).resources,
    readResource: async (uri) => (await api.call('POST /resources/read', {}, { serverId, uri })).content,
    listPrompts: async () => (await api.call('POST /prompts/list', {}, { serverId })).prompts,
    getPrompt: async (name, args) =>
      (await api.call('POST /prompts/get', {}, { serverId, name, ...(Object.keys(args).length && { args }) }))
        .content,
    // An interrupted call would hold the daemon's lock until it ends: it is cancelled. Its id is known
    // once it waits on an elicitation; before its first answer, it is the daemon's active call of this
    // server and tool (the daemon runs one call at a time).
    close: async () => {
      let id = running;
      if (!id && calling) {
        const active = await api.call('GET /tools/active', {}).catch(() => undefined);
        const call = active?.activeExecution;
        if (call && call.serverId === serverId && call.toolName === calling) id = call.id;
      }
      if (id) await api.call('POST /tools/cancel', {}, { executionId: id }).catch(() => {});
      // The cancelled call answers at once: the command says it was interrupted before it exits.
      if (id && pending) {
        await Promise.race([pending.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2000))]);
      }
    },
  };
}
