import type {
  ElicitationResponse,
  ExecuteRequest,
  ExecutionOutcome,
  ToolsListResponse,
} from '../../shared/api';
import type { ErrorBody } from '../../shared/errors';
import type { HealthResponse } from '../../shared/health';
import type { PutServerRequest, ServerRecord } from '../../shared/servers';

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

/** The one module that talks to the daemon: it adds the token and turns error bodies into DaemonError. */
export class DaemonClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
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
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = { error: text.slice(0, 200) || response.statusText };
    }
    if (!response.ok) {
      const errorBody =
        parsed && typeof parsed === 'object' && 'error' in parsed
          ? (parsed as ErrorBody)
          : { error: `HTTP ${response.status}` };
      throw new DaemonError(response.status, errorBody);
    }
    return parsed as T;
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
}
