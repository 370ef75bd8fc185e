import type {
  CompleteRequest,
  CompleteResponse,
  LoggingLevel,
  PingResponse,
  ElicitationResponse,
  ExecuteRequest,
  ExecutionOutcome,
  ToolsListResponse,
} from '../../shared/api';
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
}

/** The one module that talks to the daemon: it adds the token and turns error bodies into DaemonError. */
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

  /** Sends one call with the token and answers the body's text; a non-2xx answer throws DaemonError. */
  private async send(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<string> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/\/$/, '')}/api/mcp${path}`, {
        method,
        headers: {
          'X-Inspector-Token': this.token,
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
        },
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
    if (response.status === 401) this.options.onUnauthorized?.();
    if (!response.ok) throw new DaemonError(response.status, errorBody(text, response.status));
    return text;
  }

  health(): Promise<HealthResponse> {
    return this.request('GET', '/health');
  }

  listServers(): Promise<{ servers: ServerRecord[] }> {
    return this.request('GET', '/servers/');
  }

  putServer(id: string, body: PutServerRequest): Promise<ServerRecord> {
    return this.request('PUT', `/servers/${encodeURIComponent(id)}`, body);
  }

  importServers(mcpServers: Record<string, unknown>): Promise<{ servers: ServerRecord[] }> {
    return this.request('POST', '/servers/import', { mcpServers });
  }

  deleteServer(id: string): Promise<unknown> {
    return this.request('DELETE', `/servers/${encodeURIComponent(id)}`);
  }

  connect(id: string): Promise<ServerRecord> {
    return this.request('POST', `/servers/${encodeURIComponent(id)}/connect`);
  }

  disconnect(id: string): Promise<ServerRecord> {
    return this.request('POST', `/servers/${encodeURIComponent(id)}/disconnect`);
  }

  ping(id: string): Promise<PingResponse> {
    return this.request('POST', `/servers/${encodeURIComponent(id)}/ping`);
  }

  setLoggingLevel(id: string, level: LoggingLevel): Promise<ServerRecord> {
    return this.request('POST', `/servers/${encodeURIComponent(id)}/logging-level`, { level });
  }

  setRoots(id: string, roots: Root[]): Promise<ServerRecord> {
    return this.request('PUT', `/servers/${encodeURIComponent(id)}/roots`, { roots });
  }

  complete(body: CompleteRequest, signal?: AbortSignal): Promise<CompleteResponse> {
    return this.request('POST', '/completions/complete', body, signal);
  }

  listTools(serverId: string): Promise<ToolsListResponse> {
    return this.request('POST', '/tools/list', { serverId });
  }

  execute(body: ExecuteRequest): Promise<ExecutionOutcome> {
    return this.request('POST', '/tools/execute', body);
  }

  respond(requestId: string, response: ElicitationResponse): Promise<ExecutionOutcome> {
    return this.request('POST', '/tools/respond', { requestId, response });
  }

  cancel(executionId: string): Promise<unknown> {
    return this.request('POST', '/tools/cancel', { executionId });
  }

  /** Stores a widget record for a completed run (POST /resources/widget/store). */
  storeWidget(body: WidgetStoreRequest): Promise<WidgetStoreResponse> {
    return this.request('POST', '/resources/widget/store', body);
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
