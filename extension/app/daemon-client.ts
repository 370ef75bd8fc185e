import type {
  CompleteRequest,
  CompleteResponse,
  ElicitationResponse,
  ExecuteRequest,
  ExecutionCancelled,
  ExecutionOutcome,
  JsonObject,
  LoggingLevel,
  McpTask,
  PingResponse,
  PromptGetRequest,
  TasksListResponse,
  ToolsListResponse,
} from '../../shared/api';
import {
  type ActiveExecutionResponse,
  type Answer,
  type Body,
  type ContentResponse,
  type ListAnswer,
  type LogEntryResponse,
  type PathParams,
  type RemovedServer,
  type RouteName,
  routeRequest,
  type ServersResponse,
  type SubscriptionResponse,
} from '../../shared/routes';
import type { ErrorBody } from '../../shared/errors';
import type { HealthResponse } from '../../shared/health';
import type { PutServerRequest, Root, ServerRecord } from '../../shared/servers';
import type { WidgetStoreRequest, WidgetStoreResponse } from '../../shared/widgets';

/** A failed daemon call, with the SPEC part 7 body. `status` 0 means the daemon could not be reached. */
export class DaemonError extends Error {
  override name = 'DaemonError';
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.error);
  }

  get unreachable(): boolean {
    return this.status === 0;
  }
}

export interface DaemonClientOptions {
  /** Called when the daemon answers 401: it no longer accepts this token (restarted with a new one). */
  onUnauthorized?(): void;
  /** A signed-in user's token (SPEC part 5), sent as `Authorization: Bearer` while there is one. */
  bearer?(): string | null | undefined;
  /**
   * The daemon refused the user's token `refused` (401): renew it, true when a new one is there. The
   * call is then sent once more with it; a second 401 goes to {@link onUnauthorized}.
   */
  renewBearer?(refused: string): Promise<boolean>;
}

/**
 * The one module that talks to the daemon: it adds the token and turns error bodies into DaemonError.
 * An empty token is a pairing by a signed-in user: the user's bearer token stands in for it.
 */
export class DaemonClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly options: DaemonClientOptions = {},
  ) {}

  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const text = await this.send(method, path, body, signal);
    try {
      return (text ? JSON.parse(text) : undefined) as T;
    } catch {
      return { error: text.slice(0, 200) } as T;
    }
  }

  /**
   * Sends one call with the token and answers the body's text; a non-2xx answer throws DaemonError. A
   * refused user token is renewed and the call sent again, once.
   */
  private async send(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
    retried = false,
  ): Promise<string> {
    const bearer = this.options.bearer?.() ?? undefined;
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/\/$/, '')}/api/mcp${path}`, {
        method,
        headers: this.headers(body !== undefined, bearer),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new DaemonError(0, {
        error: `The daemon at ${this.baseUrl} cannot be reached: is inspector-daemon running?`,
      });
    }
    const text = await response.text();
    if (response.status === 401 && bearer && !retried && (await this.options.renewBearer?.(bearer))) {
      return this.send(method, path, body, signal, true);
    }
    if (response.status === 401) this.options.onUnauthorized?.();
    if (!response.ok) throw new DaemonError(response.status, errorBody(text, response.status));
    return text;
  }

  private headers(json: boolean, bearer: string | undefined): Record<string, string> {
    return {
      ...(this.token && { 'X-Inspector-Token': this.token }),
      ...(bearer && { Authorization: `Bearer ${bearer}` }),
      ...(json && { 'Content-Type': 'application/json' }),
    };
  }

  /** Calls one API route by its name; the body and the answer are the route's own types. */
  call<R extends RouteName>(
    route: R,
    params: PathParams<R>,
    ...[body, signal]: Body<R> extends undefined
      ? [body?: undefined, signal?: AbortSignal]
      : [body: Body<R>, signal?: AbortSignal]
  ): Promise<Answer<R>> {
    const { method, path } = routeRequest(route, params);
    return this.request<Answer<R>>(method, path, body, signal);
  }

  /**
   * One entry of the live log whole: the live channel's replay sends a large one cut (`entry.cut`, which
   * names the daemon run that numbered it).
   */
  logEntry(seq: number, bootId: string): Promise<LogEntryResponse> {
    const { method, path } = routeRequest('GET /rpc-logs/:seq', { seq: String(seq) });
    return this.request<Answer<'GET /rpc-logs/:seq'>>(method, `${path}?bootId=${encodeURIComponent(bootId)}`);
  }

  health(): Promise<HealthResponse> {
    return this.call('GET /health', {});
  }

  listServers(): Promise<ServersResponse> {
    return this.call('GET /servers/', {});
  }

  putServer(id: string, body: PutServerRequest): Promise<ServerRecord> {
    return this.call('PUT /servers/:id', { id }, body);
  }

  /** `mcpServers` as pasted: the daemon checks each entry and names what is wrong. */
  importServers(mcpServers: Record<string, unknown>): Promise<ServersResponse> {
    return this.call('POST /servers/import', {}, { mcpServers: mcpServers as Record<string, JsonObject> });
  }

  deleteServer(id: string): Promise<RemovedServer> {
    return this.call('DELETE /servers/:id', { id });
  }

  connect(id: string): Promise<ServerRecord> {
    return this.call('POST /servers/:id/connect', { id });
  }

  disconnect(id: string): Promise<ServerRecord> {
    return this.call('POST /servers/:id/disconnect', { id });
  }

  ping(id: string): Promise<PingResponse> {
    return this.call('POST /servers/:id/ping', { id });
  }

  setLoggingLevel(id: string, level: LoggingLevel): Promise<ServerRecord> {
    return this.call('POST /servers/:id/logging-level', { id }, { level });
  }

  setRoots(id: string, roots: Root[]): Promise<ServerRecord> {
    return this.call('PUT /servers/:id/roots', { id }, { roots });
  }

  complete(body: CompleteRequest, signal?: AbortSignal): Promise<CompleteResponse> {
    return this.call('POST /completions/complete', {}, body, signal);
  }

  listTools(serverId: string): Promise<ToolsListResponse> {
    return this.call('POST /tools/list', {}, { serverId });
  }

  execute(body: ExecuteRequest): Promise<ExecutionOutcome> {
    return this.call('POST /tools/execute', {}, body);
  }

  respond(requestId: string, response: ElicitationResponse): Promise<ExecutionOutcome> {
    return this.call('POST /tools/respond', {}, { requestId, response });
  }

  cancel(executionId: string): Promise<ExecutionCancelled> {
    return this.call('POST /tools/cancel', {}, { executionId });
  }

  activeExecution(): Promise<ActiveExecutionResponse> {
    return this.call('GET /tools/active', {});
  }

  listTasks(serverId: string): Promise<TasksListResponse> {
    return this.call('POST /tasks/list', {}, { serverId });
  }

  getTask(serverId: string, taskId: string): Promise<McpTask> {
    return this.call('POST /tasks/get', {}, { serverId, taskId });
  }

  /** The task's result, or (202) an elicitation the running task raised, answered with `respond`. */
  taskResult(serverId: string, taskId: string): Promise<ExecutionOutcome> {
    return this.call('POST /tasks/result', {}, { serverId, taskId });
  }

  cancelTask(serverId: string, taskId: string): Promise<McpTask> {
    return this.call('POST /tasks/cancel', {}, { serverId, taskId });
  }

  listResources(serverId: string): Promise<ListAnswer<'resources'>> {
    return this.call('POST /resources/list', {}, { serverId });
  }

  listResourceTemplates(serverId: string): Promise<ListAnswer<'resourceTemplates'>> {
    return this.call('POST /resources/templates/list', {}, { serverId });
  }

  /** A read cut short by `signal` is cancelled at the MCP server too (the daemon sees the caller go). */
  readResource(serverId: string, uri: string, signal?: AbortSignal): Promise<ContentResponse> {
    return this.call('POST /resources/read', {}, { serverId, uri }, signal);
  }

  subscribe(serverId: string, uri: string, subscribed: boolean): Promise<SubscriptionResponse> {
    return this.call(
      subscribed ? 'POST /resources/subscribe' : 'POST /resources/unsubscribe',
      {},
      { serverId, uri },
    );
  }

  listPrompts(serverId: string): Promise<ListAnswer<'prompts'>> {
    return this.call('POST /prompts/list', {}, { serverId });
  }

  getPrompt(body: PromptGetRequest, signal?: AbortSignal): Promise<ContentResponse> {
    return this.call('POST /prompts/get', {}, body, signal);
  }

  /** Stores a widget record for a completed run (POST /resources/widget/store). */
  storeWidget(body: WidgetStoreRequest): Promise<WidgetStoreResponse> {
    return this.call('POST /resources/widget/store', {}, body);
  }

  /**
   * The stored widget's page, bridge included, as text. The token goes in the header: this HTML is
   * handed to an untrusted frame, so it must come from an address that carries no token.
   */
  widgetHtml(toolId: string): Promise<string> {
    return this.send('GET', `/resources/widget/${encodeURIComponent(toolId)}`);
  }
}

/** The SPEC part 7 body of a failed call, or one made from its status when the body is not JSON. */
function errorBody(text: string, status: number): ErrorBody {
  try {
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (parsed && typeof parsed === 'object' && 'error' in parsed) return parsed as ErrorBody;
  } catch {
    // Not JSON: fall through to the status.
  }
  return { error: `HTTP ${status}` };
}
