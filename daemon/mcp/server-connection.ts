import type {
  Client,
  CreateMessageResult,
  ElicitResult,
  JSONRPCNotification,
  RequestOptions,
  Transport,
  VersionNegotiationOptions,
} from '@modelcontextprotocol/client';
import type { JsonObject, ListPage, LoggingLevel, ToolsListResponse } from '../../shared/api.ts';
import type { RpcLogEntry } from '../../shared/logs.ts';
import { MCP_APPS_CLIENT_CAPABILITY, MCP_APPS_EXTENSION_ID } from '../../shared/mcp-apps.ts';
import type { Root, ServerConfig, ServerRecord, ServerStatus } from '../../shared/servers.ts';
import { isMcpError, McpError, RequestTimedOut, UpstreamError } from '../errors.ts';
import { type LogBus, logTimestamp, type Redactor } from '../logs/log-bus.ts';
import { type LogicalCall, logicalCall, withinCall } from '../logs/logical-call.ts';
import { type OutputDirection, OutputLineBudget } from '../logs/output-budget.ts';
import { maskConfig } from '../servers/secrets.ts';
import { VERSION } from '../version.ts';
import type * as ClientRuntime from './client-runtime.ts';
import { ResourceSubscriptions } from './listen.ts';
import { redact, redactJson, secretsOf } from './redact.ts';
import { noteResultProblem, passBrokenResult } from './result-problem.ts';
import { checkedPage } from './checked-page.ts';
import { HandshakeCapture } from './handshake.ts';
import { allowTaskMethods, type InputRequest, ModernTasks, TASKS_EXTENSION_ID } from './modern-tasks.ts';
import { type HeaderScan, paramHeaders, scanHeaderDeclarations } from './param-headers.ts';
import type { ConnectionOAuth } from '../oauth/oauth-manager.ts';
import type { UnreadableEvent } from './transports/event-check.ts';
import type { LoggingTransport } from './transports/logging-transport.ts';
import type { StdioTransport } from './transports/stdio-transport.ts';

export const CLIENT_INFO = { name: 'inspector-daemon', version: VERSION };

/** What the daemon declares as a client; each server record shows it (`clientCapabilities`). */
const CLIENT_CAPABILITIES = {
  elicitation: { form: { applyDefaults: true }, url: {} },
  // The person at the inspector writes the reply to a sampling request.
  sampling: {},
  roots: { listChanged: true },
  // MCP Apps: servers may offer their UI tools only to clients that declare the extension.
  extensions: { [MCP_APPS_EXTENSION_ID]: MCP_APPS_CLIENT_CAPABILITY },
};

export type ElicitationHandler = (
  serverId: string,
  params: JsonObject,
  signal: AbortSignal,
) => Promise<ElicitResult>;

/** Answers a server's `sampling/createMessage` with a CreateMessageResult, or rejects it. */
export type SamplingHandler = (
  serverId: string,
  params: JsonObject,
  signal: AbortSignal,
) => Promise<JsonObject>;

export interface ConnectionDeps {
  bus: LogBus;
  connectTimeoutMs: number;
  onElicitation: ElicitationHandler;
  onSampling: SamplingHandler;
  onStatus?: (record: ServerRecord) => void;
  /** Every notification the server sends (logging messages, list_changed, resources/updated, …). */
  onNotification?: (serverId: string, method: string, params: JsonObject | undefined) => void;
  /** The largest message a STDIO server may send (default 64 MiB); a longer one resets the connection. */
  maxMessageBytes?: number;
  debug?: (line: string) => void;
  /** OAuth for remote servers with `auth` settings (daemon/oauth). */
  oauth?: ConnectionOAuth;
}

type Raw = JsonObject;

let runtime: typeof ClientRuntime | undefined;
let loading: Promise<typeof ClientRuntime> | undefined;

/** Loads the SDK side of connections (client-runtime.ts) once; every connection waits for it first. */
export function loadClientRuntime(): Promise<typeof ClientRuntime> {
  loading ??= import('./client-runtime.ts').then(
    (loaded) => (runtime = loaded),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The loaded runtime: only code that runs once a connection exists asks for it. */
function sdk(): typeof ClientRuntime {
  if (!runtime) throw new Error('The MCP client runtime is not loaded yet');
  return runtime;
}

/** Server notifications the SDK client does not handle itself: the daemon takes them straight from the transport. */
const DIRECT_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/message',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
  'notifications/tools/list_changed',
  'notifications/tasks/status',
]);

/** The protocol version of the modern era, which `era: "modern"` pins. */
const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** How long a STDIO server has to answer `server/discover` (era auto) before it is taken for a legacy one. */
const STDIO_PROBE_TIMEOUT_MS = 10_000;

/** How long a server whose stream broke has to answer a ping before the broken stream is all we know. */
const PROBE_TIMEOUT_MS = 10_000;

/** How long a failed connect waits for a remote transport to close before it reports the failure. */
const REMOTE_CLOSE_WAIT_MS = 2_000;
const closeWait = (): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, REMOTE_CLOSE_WAIT_MS).unref());

/** Rejects once a connect attempt is ended (its time-out, a disconnect or a removal). */
function attemptEnded(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    const end = (): void => reject(new Error('connect ended'));
    if (signal.aborted) end();
    else signal.addEventListener('abort', end, { once: true });
  });
}

/** Why a client's connection ended: what its pending requests are rejected with. */
interface CloseReason {
  message: string;
  code: string;
  data?: unknown;
}

/** The SDK's rejection of every pending request when a connection ends. */
function isConnectionClosed(error: unknown): boolean {
  const { SdkError, SdkErrorCode } = sdk();
  return error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed;
}

/** The SDK's own time-out of a request: the server did not answer in time, which proves nothing. */
function isTimeout(error: unknown): boolean {
  const { SdkError, SdkErrorCode } = sdk();
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

/**
 * Whether a failed ping shows the server unreachable: anything but an answer from the server. A
 * server's error answer (even "method not found") and our own time-out prove nothing either way.
 */
function unreachable(error: unknown): boolean {
  return answered(error) === undefined && sdk().remoteAnswerOf(error) === undefined;
}

/** The JSON-RPC code the daemon has always reported for a request the server did not answer in time. */
const REQUEST_TIMEOUT_CODE = -32001;

/**
 * The SDK's failures that are not a broken transport: the call failed, the connection is fine. Said
 * with the SDK's word for them (`INVALID_RESULT`, `METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION`…).
 */
const CALL_FAILURES: ReadonlySet<string> = new Set([
  'CAPABILITY_NOT_SUPPORTED',
  'INVALID_RESULT',
  'UNSUPPORTED_RESULT_TYPE',
  'INPUT_REQUIRED_ROUNDS_EXCEEDED',
  'LIST_PAGINATION_EXCEEDED',
  'METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION',
]);

/**
 * A failed request in the daemon's terms: the server's error answer becomes an McpError (its code,
 * message and data, as the routes report them), the SDK's time-out the -32001 it always was, and a
 * call the SDK refused an UpstreamError naming why. Anything else is left as it is: a transport failure.
 */
function answered(error: unknown): McpError | UpstreamError | undefined {
  const { ProtocolError, SdkError } = sdk();
  if (error instanceof ProtocolError) return new McpError(error.code, error.message, error.data);
  if (isTimeout(error)) {
    return new RequestTimedOut(REQUEST_TIMEOUT_CODE, 'Request timed out', (error as { data?: unknown }).data);
  }
  if (error instanceof SdkError && CALL_FAILURES.has(error.code)) {
    return new UpstreamError(error.message, error.code, error.data);
  }
  return undefined;
}

/** The most items, and pages, one list of all pages gathers (`listAll`). */
export const MAX_LIST_ITEMS = 100_000;
export const MAX_LIST_PAGES = 1_000;

/**
 * The SDK client's requests waiting for their answers, by JSON-RPC id, and their progress handlers
 * (protected members of its Protocol class): a handler given an Error rejects its request with it.
 */
interface WithResponseHandlers {
  _responseHandlers?: unknown;
  _progressHandlers?: unknown;
}

/** The SDK client's negotiated wire codec (a protected member of its Protocol class). */
interface WithWireCodec {
  _wireCodec?: () => { decodeResult(method: string, raw: unknown): { kind: string; error?: unknown } };
}

/** One registered MCP server and its pooled SDK client, connected lazily and re-established after a drop. */
export class ServerConnection {
  status: ServerStatus = 'disconnected';
  lastError?: string;
  private client?: Client;
  private connecting?: Promise<Client>;
  /** Ends the connect under way: `disconnect` (the server removed or stopped) or the connect time-out. */
  private connectAttempt?: AbortController;
  private closing = false;
  /** The ping that asks whether a remote server is still there, while one is out. */
  private probeRun: Promise<boolean> | undefined;
  /** Removed or replaced in the registry: what becomes of it is no longer the server's status. */
  private retired = false;
  /** Set as `retire` begins (why it ends): no connection is made any more. */
  private removed: 'removed' | 'replaced' | false = false;
  /** Set before a client closes (or as it does): turns the SDK's bare "Connection closed" into why. */
  private readonly closeReasons = new WeakMap<Client, CloseReason>();
  /**
   * A STDIO server's stderr and stray stdout lines, and a remote server's events that are no JSON-RPC
   * message: a burst, then a steady rate, reach the log.
   */
  private readonly outputLines = new OutputLineBudget((direction, line) =>
    this.publishOutputLine(direction, line),
  );
  private readonly secrets: string[];
  private readonly redactEntry?: Redactor;
  private initResult?: Pick<
    ServerRecord,
    | 'serverInfo'
    | 'capabilities'
    | 'protocolVersion'
    | 'era'
    | 'instructions'
    | 'handshake'
    | 'clientCapabilities'
  >;
  /** The roots this client offers the server (`roots/list`), set per server in the panel. */
  private roots: Root[];
  /** The level last set with `logging/setLevel`: sent again after each reconnect. */
  private loggingLevel?: LoggingLevel;
  /** Tool name → `_meta`, refreshed by every tools/list and dropped on `list_changed`. */
  private toolsMeta?: Map<string, JsonObject>;
  /** Tool name → its `execution.taskSupport` (MCP tasks), from the same listing. */
  private toolsTaskSupport = new Map<string, string>();
  /** Tool name → its `x-mcp-header` declarations (SEP-2243), on a modern connection, from the same listing. */
  private toolsHeaders = new Map<string, HeaderScan>();
  /** `resources/subscribe` at the legacy era, one `subscriptions/listen` stream at the modern (listen.ts). */
  readonly resourceSubscriptions: ResourceSubscriptions;
  /** Tasks at the modern era: the `io.modelcontextprotocol/tasks` extension (modern-tasks.ts). */
  readonly modernTasks = new ModernTasks({
    request: (method, params, options) => this.request(method, params, options),
    clientCapabilities: CLIENT_CAPABILITIES,
    answer: (request, signal) => this.answerInputRequest(request, signal),
  });

  constructor(
    readonly id: string,
    readonly name: string,
    readonly config: ServerConfig,
    private readonly deps: ConnectionDeps,
    roots: Root[] = [],
  ) {
    this.roots = roots;
    this.resourceSubscriptions = new ResourceSubscriptions(id, {
      ensureConnected: () => this.ensureConnected(),
      withClient: (call) => this.withClient(call),
      request: (method, params) => this.request(method, params),
      isCurrent: (client) => this.client === client,
      debug: (line) => deps.debug?.(line),
    });
    this.secrets = secretsOf(config);
    // OAuth adds the tokens, codes and verifiers of the server's flows to the list as it sees them.
    const oauth = config.transport !== 'stdio' && config.auth !== undefined;
    if (oauth) deps.oauth?.shareSecrets(id, this.secrets);
    // The log is shown and exported: a server echoing its own key must not put it there. The bus redacts
    // an entry once somebody reads it.
    const secrets = this.secrets;
    if (secrets.length || oauth) {
      this.redactEntry = (entry) =>
        ({
          ...entry,
          message: redactJson(entry.message, secrets),
          ...('headers' in entry && entry.headers && { headers: redactJson(entry.headers, secrets) }),
        }) as RpcLogEntry;
    }
  }

  record(): ServerRecord {
    const record: ServerRecord = {
      id: this.id,
      name: this.name,
      config: maskConfig(this.config),
      status: this.status,
    };
    if (this.lastError) record.lastError = this.lastError;
    if (this.initResult) Object.assign(record, this.initResult);
    if (this.loggingLevel) record.loggingLevel = this.loggingLevel;
    if (this.roots.length) record.roots = this.roots;
    const auth = this.deps.oauth?.info(this.id, this.config);
    if (auth) record.auth = auth;
    return record;
  }

  ensureConnected(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    // Removed or replaced: a call still holding this connection (a list between two pages) must not
    // start the server again, where nothing would ever stop it.
    if (this.removed) {
      return Promise.reject(
        new UpstreamError(`The server was ${this.removed} during the call.`, 'DISCONNECTED'),
      );
    }
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Closes the connection of a server removed or replaced. Its `disconnected` is told (what waited on it
   * ends), and nothing after: a call still holding it must not speak for the server that took its place.
   */
  async retire(why: 'removed' | 'replaced'): Promise<void> {
    this.removed = why;
    await this.disconnect();
    this.retired = true;
  }

  async disconnect(): Promise<void> {
    // A server still connecting (a silent one waits for the whole time-out) is not waited for.
    this.connectAttempt?.abort('disconnect');
    await this.connecting?.catch(() => {});
    // The listen stream is cancelled while the connection is still there to say so.
    await this.resourceSubscriptions.end();
    const client = this.client;
    this.client = undefined;
    this.toolsMeta = undefined;
    if (client) {
      this.closeReasons.set(client, {
        message: `The server was ${this.removed || 'disconnected'} during the call.`,
        code: 'DISCONNECTED',
      });
      this.closing = true;
      await client.close().catch(() => {});
      this.closing = false;
    }
    // Lines left out of a flood are said before the log moves on (a command records nothing after this).
    this.outputLines.flush();
    this.setStatus('disconnected');
  }

  get rootList(): Root[] {
    return this.roots;
  }

  /** Replaces the roots; a connected server hears `notifications/roots/list_changed`. */
  async setRoots(roots: Root[]): Promise<void> {
    this.roots = roots;
    this.tellStatus();
    await this.client?.sendRootsListChanged().catch((error: unknown) => {
      this.deps.debug?.(`${this.id}: roots/list_changed failed: ${String(error)}`);
    });
  }

  /**
   * The level of the server's log messages. At 2025-11-25 it is `logging/setLevel`: once the server
   * accepts it, the level is kept and sent again on reconnect. The 2026-07-28 revision has no such
   * method: the level goes in the `_meta` of every request from then on (`withLogLevel`).
   */
  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    await this.ensureConnected();
    if (!this.isModern) await this.request('logging/setLevel', { level });
    this.loggingLevel = level;
    this.tellStatus();
  }

  /**
   * Every page of tools/list, or the one page asked for. Every page replaces what the connection knows
   * of the tools (their `_meta`, task support, headers); one page adds its tools to it.
   */
  async listTools(page?: ListPage): Promise<ToolsListResponse> {
    const { items, rest } = page
      ? await this.listPage('tools/list', 'tools', page.cursor)
      : await this.listAll('tools/list', 'tools');
    const tools = items as ToolsListResponse['tools'];
    const meta = new Map<string, JsonObject>();
    for (const tool of tools) if (tool._meta) meta.set(tool.name, tool._meta);
    if (!page || !this.toolsMeta) {
      this.toolsMeta = new Map();
      this.toolsTaskSupport = new Map();
      this.toolsHeaders = new Map();
    }
    for (const tool of tools) this.toolsMeta.set(tool.name, tool._meta ?? {});
    for (const tool of tools) {
      const support = (tool as { execution?: { taskSupport?: unknown } }).execution?.taskSupport;
      if (typeof support === 'string') this.toolsTaskSupport.set(tool.name, support);
    }
    const invalidHeaders: Record<string, string> = {};
    if (this.initResult?.era === 'modern') {
      for (const tool of tools) {
        const scan = scanHeaderDeclarations(tool.inputSchema);
        this.toolsHeaders.set(tool.name, scan);
        if (!scan.valid) invalidHeaders[tool.name] = scan.reason;
      }
    }
    return {
      ...rest,
      tools,
      toolsMetadata: Object.fromEntries(meta),
      ...(Object.keys(invalidHeaders).length && { invalidHeaders }),
    };
  }

  /** Whether the server lists the tool; lists once per connection and again before saying no. */
  async hasTool(name: string): Promise<boolean> {
    if (this.toolsMeta?.has(name)) return true;
    await this.listTools();
    return this.toolsMeta?.has(name) ?? false;
  }

  toolMeta(name: string): JsonObject | undefined {
    return this.toolsMeta?.get(name);
  }

  /** Why a tool of a modern server must not be called: its `x-mcp-header` declarations break SEP-2243. */
  toolHeaderProblem(name: string): string | undefined {
    const scan = this.toolsHeaders.get(name);
    return scan && !scan.valid ? scan.reason : undefined;
  }

  /** Whether the tool may (`optional`) or must (`required`) run as a task; `forbidden` when it says nothing. */
  toolTaskSupport(name: string): string {
    return this.toolsTaskSupport.get(name) ?? 'forbidden';
  }

  /** Whether the connection speaks the modern era (2026-07-28), once connected. */
  get isModern(): boolean {
    return this.initResult?.era === 'modern';
  }

  /** The cheapest request that proves the server answers: the 2026-07-28 revision has no ping, so `server/discover`. */
  get pingMethod(): 'ping' | 'server/discover' {
    return this.isModern ? 'server/discover' : 'ping';
  }

  /**
   * The server's `tasks` capability (MCP 2025-11-25), or at the modern era its settings of the tasks
   * extension, once connected.
   */
  get tasksCapability(): JsonObject | undefined {
    const capabilities = this.initResult?.capabilities;
    const extensions = capabilities?.extensions as JsonObject | undefined;
    const tasks = this.isModern ? extensions?.[TASKS_EXTENSION_ID] : capabilities?.tasks;
    return tasks && typeof tasks === 'object' && !Array.isArray(tasks) ? (tasks as JsonObject) : undefined;
  }

  /**
   * tools/call through the generic request path: the SDK's callTool would validate structuredContent
   * against the outputSchema and throw, but the inspector must show the server's result as it is.
   * With `task` the tool runs as an MCP task: at 2025-11-25 the answer is the created task; at the
   * modern era the request declares the tasks extension, and the server decides (modern-tasks.ts).
   */
  callTool(name: string, args: JsonObject, options: RequestOptions, task?: JsonObject): Promise<Raw> {
    // On a modern connection over Streamable HTTP, the arguments marked x-mcp-header go as headers too.
    const scan = this.config.transport === 'http' ? this.toolsHeaders.get(name) : undefined;
    const headers = scan?.valid ? paramHeaders(scan.declarations, args) : {};
    const withHeaders = Object.keys(headers).length
      ? { ...options, headers: { ...options.headers, ...headers } }
      : options;
    const asTask = task && (this.isModern ? { _meta: this.modernTasks.meta } : { task });
    return this.request('tools/call', { name, arguments: args, ...asTask }, withHeaders);
  }

  /**
   * A task's result, which at 2026-07-28 the server inlines in what `tasks/get` answers: the SDK checks
   * a request's own result against the revision's schema, but not that one. It is checked here by the
   * same codec of the SDK as the `tools/call` result it stands for, and what breaks the schema becomes
   * its `resultProblem`, as for a direct call (result-problem.ts); the result is passed on as the server
   * sent it. A result without `resultType` is taken as complete, as a direct one is
   * (logging-transport.ts).
   */
  checkTaskResult(result: Raw): Raw {
    if (!this.isModern) return result;
    const codec = (this.client as WithWireCodec | undefined)?._wireCodec?.();
    const decoded = codec?.decodeResult('tools/call', { resultType: 'complete', ...result });
    if (decoded?.kind === 'invalid' && decoded.error instanceof Error) {
      noteResultProblem(result, decoded.error.message);
    }
    return result;
  }

  /** `tasks/get`: the task as the server describes it (at the modern era, checked: modern-tasks.ts). */
  getTask(taskId: string, options?: RequestOptions): Promise<Raw> {
    if (this.isModern) return this.modernTasks.get(taskId, options);
    return this.request('tasks/get', { taskId }, options);
  }

  /** `tasks/result`: the task's result as the server sent it, waited for while the task runs. */
  getTaskResult(taskId: string, options?: RequestOptions): Promise<Raw> {
    return this.request('tasks/result', { taskId }, options);
  }

  /**
   * `tasks/list`: one page of the server's tasks. The modern era has no `tasks/list`: the tasks created
   * through the daemon on this connection stand in for it.
   */
  async listTasks(cursor?: string, options?: RequestOptions): Promise<Raw> {
    if (this.isModern) return { tasks: await this.modernTasks.list() };
    return this.request('tasks/list', cursor ? { cursor } : {}, options);
  }

  /** `tasks/cancel`: the task as it is once cancelled. */
  cancelTask(taskId: string, options?: RequestOptions): Promise<Raw> {
    if (this.isModern) return this.modernTasks.cancel(taskId, options);
    return this.request('tasks/cancel', { taskId }, options);
  }

  /**
   * A modern task's input request, answered as the same request of the server's would be: elicitation
   * and sampling go to the person through the execution, `roots/list` gets the roots.
   */
  private async answerInputRequest(request: InputRequest, signal: AbortSignal): Promise<JsonObject> {
    if (request.method === 'elicitation/create') {
      return (await this.deps.onElicitation(this.id, request.params, signal)) as JsonObject;
    }
    if (request.method === 'sampling/createMessage') {
      return this.deps.onSampling(this.id, request.params, signal);
    }
    return { roots: this.roots.map((root) => ({ ...root })) };
  }

  /**
   * One page of a list as the server sent it, `nextCursor` included; the first without a cursor. A page
   * that breaks the 2026-07-28 schema, or a list's own rules (checked-page.ts), has its `resultProblem`
   * among the rest.
   */
  async listPage(method: string, key: string, cursor?: string): Promise<{ items: Raw[]; rest: Raw }> {
    const page = await this.request(method, cursor === undefined ? {} : { cursor });
    const { items, nextCursor, rest, problem } = checkedPage(page, key);
    return {
      items,
      rest: {
        ...rest,
        ...(nextCursor !== undefined && { nextCursor }),
        ...(problem && { resultProblem: problem }),
      },
    };
  }

  /**
   * Every page of a list joined; the `resultProblem` of each page that breaks the rules, joined too. A
   * server that gives a cursor it gave before, or more than MAX_LIST_ITEMS items or MAX_LIST_PAGES pages
   * (one that hands out a new cursor forever held the daemon until it ran out of memory), is stopped
   * there: what came so far is the list, and its `resultProblem` says why it ends.
   */
  async listAll(method: string, key: string): Promise<{ items: Raw[]; rest: Raw }> {
    const items: Raw[] = [];
    const problems: string[] = [];
    let rest: Raw;
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.request(method, cursor ? { cursor } : {});
      const checked = checkedPage(page, key);
      items.push(...checked.items);
      const { problem } = checked;
      if (problem) problems.push(seen.size ? `page ${seen.size + 1}: ${problem}` : problem);
      rest = checked.rest;
      const pages = seen.size + 1;
      cursor = checked.nextCursor;
      if (cursor === undefined) break;
      const stop = seen.has(cursor)
        ? `page ${pages} gave a nextCursor that page ${[...seen].indexOf(cursor) + 2} came with`
        : items.length >= MAX_LIST_ITEMS
          ? `the list passed ${MAX_LIST_ITEMS.toLocaleString('en')} items`
          : pages >= MAX_LIST_PAGES
            ? `the list passed ${MAX_LIST_PAGES.toLocaleString('en')} pages`
            : undefined;
      if (stop) {
        problems.push(`${stop}: stopped after ${pages} pages, ${items.length} items`);
        break;
      }
      seen.add(cursor);
    }
    return { items, rest: problems.length ? { ...rest, resultProblem: problems.join('; ') } : rest };
  }

  /**
   * One request, answered with the server's result. A 2026-07-28 result that breaks the revision's
   * schema is passed on as the server sent it, with the SDK's complaint (result-problem.ts).
   */
  async request(method: string, params: JsonObject, options?: RequestOptions): Promise<Raw> {
    // One logical call: the log groups the rounds of an `input_required` answer (logical-call.ts).
    const call = logicalCall(method);
    try {
      return await this.withClient(
        (client) =>
          withinCall(
            call,
            () =>
              client.request(
                { method, params: this.withLogLevel(params) },
                sdk().ANY_RESULT,
                options,
              ) as Promise<Raw>,
          ),
        options,
      );
    } catch (error) {
      keepSentErrorCode(call, error);
      return passBrokenResult(call, error);
    }
  }

  /** On a modern connection with a log level chosen: the request's params with it in `_meta`, unless the caller set one. */
  private withLogLevel(params: JsonObject): JsonObject {
    if (!this.loggingLevel || !this.isModern) return params;
    const key = sdk().LOG_LEVEL_META_KEY;
    const given = params._meta;
    const meta = typeof given === 'object' && given !== null && !Array.isArray(given) ? given : {};
    if (key in meta) return params;
    return { ...params, _meta: { ...meta, [key]: this.loggingLevel } };
  }

  private async withClient<T>(call: (client: Client) => Promise<T>, options?: RequestOptions): Promise<T> {
    // Connected: the request goes out now, not a turn later.
    const client = this.client ?? (await this.ensureConnected());
    try {
      return await call(client);
    } catch (error) {
      if (options?.signal?.aborted) throw error;
      // The SDK rejects what is pending with a bare "Connection closed" when the connection ends.
      const closed = isConnectionClosed(error) ? this.closeReasons.get(client) : undefined;
      if (closed) throw new UpstreamError(closed.message, closed.code, closed.data);
      if (error instanceof UpstreamError) throw error;
      const authFailure = this.oauthFailure(error);
      if (authFailure) {
        await this.dropAfterFailure(client, authFailure.message, {
          message: authFailure.message,
          code: String(authFailure.code),
        });
        if (authFailure.code === 'AUTHORIZATION_REQUIRED')
          this.setStatus('auth_required', authFailure.message);
        throw authFailure;
      }
      const failed = answered(error);
      if (failed) throw this.redacted(failed);
      // The server answered, but with an HTTP error status or a body that is no JSON-RPC: its words, not a
      // lost connection. The connection stays, unless the server says it no longer knows the session.
      const reply = sdk().remoteAnswerOf(error, this.secrets);
      if (reply) {
        const failure = this.redacted(new UpstreamError(reply.message, reply.code, reply.data));
        if (reply.sessionGone) {
          await this.dropAfterFailure(client, failure.message, {
            message: failure.message,
            code: reply.code,
            data: reply.data,
          });
        }
        throw failure;
      }
      // The connection was reset for a reason of the daemon's (a message past the size limit): that reason.
      const reset = this.closeReasons.get(client);
      if (reset) throw new UpstreamError(reset.message, reset.code, reset.data);
      // Not an answer from the server: the transport failed. Drop the client so the next call reconnects.
      const { reason, duringCall } = this.lost(sdk().failureText(error, this.secrets));
      await this.dropAfterFailure(client, reason, duringCall);
      throw new UpstreamError(duringCall.message, duringCall.code);
    }
  }

  /**
   * A server's error answer with the config's secrets replaced, message and data: a server that puts its
   * own key into an error (or echoes the headers it got) must not hand it to the caller.
   */
  private redacted(error: McpError | UpstreamError): McpError | UpstreamError {
    if (!this.secrets.length) return error;
    const message = redact(error.message, this.secrets);
    const data = redactJson(error.data, this.secrets);
    if (message === error.message && data === error.data) return error;
    if (error instanceof McpError) {
      const Kind = error instanceof RequestTimedOut ? RequestTimedOut : McpError;
      return new Kind(error.code, message, data);
    }
    return new UpstreamError(message, error.code, data);
  }

  /** Connects; `legacy` skips the era probe (the retry after a STDIO server that the probe ended). */
  private async connect(legacy = false): Promise<Client> {
    this.setStatus('connecting');
    const { Client, createTransport, explainConnectError, LoggingTransport, StdioTransport } =
      await loadClientRuntime();
    const client = new Client(CLIENT_INFO, {
      capabilities: CLIENT_CAPABILITIES,
      versionNegotiation: legacy ? undefined : this.versionNegotiation(),
    });
    allowTaskMethods(client);
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      this.deps.onElicitation(this.id, request.params as JsonObject, ctx.mcpReq.signal),
    );
    client.setRequestHandler(
      'sampling/createMessage',
      // The reply was checked against CreateMessageResult when the person sent it (respond).
      (request, ctx) =>
        this.deps.onSampling(
          this.id,
          request.params as JsonObject,
          ctx.mcpReq.signal,
        ) as Promise<CreateMessageResult>,
    );
    client.setRequestHandler('roots/list', () => ({
      roots: this.roots.map((root) => ({ ...root })),
    }));
    // Most notifications are taken before the SDK sees them (divertNotification); the rest end here.
    client.fallbackNotificationHandler = async (notification) => {
      this.onServerNotification(notification.method, notification.params as JsonObject | undefined);
    };
    let inner: Transport | undefined;
    let transport: LoggingTransport | undefined;
    // Watches the messages only until the handshake is over.
    let capture: HandshakeCapture | undefined = new HandshakeCapture();
    // The connect time-out bounds the whole handshake (with era auto, the server/discover probe and then
    // initialize), not each of its requests; `disconnect` ends it too. Ending it closes the transport,
    // which fails the request that waits.
    const attempt = new AbortController();
    this.connectAttempt = attempt;
    const deadline = setTimeout(() => attempt.abort('timeout'), this.deps.connectTimeoutMs);
    attempt.signal.addEventListener('abort', () => void transport?.close().catch(() => {}), { once: true });
    try {
      // Inside the try: a URL that cannot be parsed fails here, and must end in `error`, not `connecting`.
      this.deps.oauth?.beginAttempt(this.id);
      inner = createTransport(
        this.config,
        {
          onStderrLine: (line) => this.outputLines.take('stderr', line),
          onStdoutLine: (line) => this.outputLines.take('stdout', line),
          maxMessageBytes: this.deps.maxMessageBytes,
          onMessageTooLarge: (error) => void this.messageTooLarge(client, error),
          onUnreadableEvent: (event) =>
            event.ifReachable
              ? void this.reachable(client, event.ifReachable).then(
                  (there) => there && this.unreadableEvent(client, event),
                )
              : this.unreadableEvent(client, event),
        },
        this.deps.oauth?.providerFor(this.id, this.config),
        this.deps.oauth?.fetchFor(this.id, this.config),
      );
      transport = new LoggingTransport(
        inner,
        (direction, message, context) => {
          capture?.observe(direction, message);
          this.deps.bus.publish(
            {
              type: 'rpc',
              serverId: this.id,
              direction,
              timestamp: logTimestamp(),
              message: message as Raw,
              ...context,
            },
            this.redactEntry,
          );
        },
        this.divertNotification,
      );
      const connecting = client.connect(transport, { timeout: this.deps.connectTimeoutMs });
      if (inner instanceof StdioTransport) await connecting;
      else {
        // Closing a remote transport does not end every wait: an SSE client still waiting for its
        // stream's first event never settles. The attempt's end is raced, so no connect outlives its
        // deadline. (Closing a STDIO transport ends the child, and with it the wait, exit code known.)
        connecting.catch(() => {});
        await Promise.race([connecting, attemptEnded(attempt.signal)]);
      }
      // Ended just as the handshake finished: the transport is closing.
      if (attempt.signal.aborted) throw new Error('connect ended');
    } catch (caught) {
      // A STDIO child is waited for (its exit code and stderr explain the failure); a remote transport
      // that never started may never finish closing either, so it gets a bounded wait.
      const closing = client.close().catch(() => {});
      await (inner instanceof StdioTransport ? closing : Promise.race([closing, closeWait()]));
      const { SdkError, SdkErrorCode } = sdk();
      const ended = attempt.signal.reason as 'disconnect' | 'timeout' | undefined;
      if (ended === 'disconnect') {
        throw new UpstreamError('The server was disconnected while it was connecting.', 'DISCONNECTED');
      }
      // Whatever the closed transport made the SDK say, the time-out is what happened.
      const error =
        ended === 'timeout' ? new SdkError(SdkErrorCode.RequestTimeout, 'connect timed out') : caught;
      if (!legacy && this.probeEndedServer(error)) {
        // Some legacy STDIO servers stop at any request before initialize: started again, initialized.
        this.deps.debug?.(`${this.id}: the server/discover probe ended the server; initializing a new one`);
        return this.connect(true);
      }
      const authFailure = this.oauthFailure(error);
      if (authFailure) {
        const required = authFailure.code === 'AUTHORIZATION_REQUIRED';
        this.setStatus(required ? 'auth_required' : 'error', authFailure.message);
        throw authFailure;
      }
      // Closing waited for a STDIO child to end, so its exit code and stderr are known by now.
      const stdio = inner instanceof StdioTransport ? inner : undefined;
      const explained = explainConnectError(error, this.config, this.deps.connectTimeoutMs, stdio);
      // The server's own answer to the probe, when it refused it: often the reason it said nothing more.
      const probe = capture?.probeAnswer(this.secrets);
      const failure = new UpstreamError(
        redact(probe ? `${explained.message} ${probe}` : explained.message, this.secrets),
        explained.code,
        explained.data,
      );
      this.setStatus('error', failure.message);
      this.deps.debug?.(`${this.id}: connect failed: ${failure.message}`);
      throw failure;
    } finally {
      clearTimeout(deadline);
      if (this.connectAttempt === attempt) this.connectAttempt = undefined;
    }
    const stdio = inner instanceof StdioTransport ? inner : undefined;
    client.onclose = () => {
      if (this.client !== client || this.closing) return;
      this.client = undefined;
      this.toolsMeta = undefined;
      const { reason, duringCall } = this.describeClose(stdio);
      this.closeReasons.set(client, duringCall);
      this.setStatus('error', reason);
    };
    client.onerror = (error) => this.onTransportError(client, error);
    this.client = client;
    const protocolVersion = client.getNegotiatedProtocolVersion() ?? transport.protocolVersion;
    const handshake = capture.handshake(client.getProtocolEra(), this.secrets);
    // The server may echo a secret of its config (an env value, a header) anywhere in what it says of itself.
    const capabilities =
      capture.capabilities(client.getProtocolEra(), this.secrets) ??
      redactJson(client.getServerCapabilities(), this.secrets);
    const instructions = client.getInstructions();
    capture = undefined;
    const serverInfo = redactJson(client.getServerVersion(), this.secrets);
    this.initResult = {
      ...(serverInfo && { serverInfo: serverInfo as ServerRecord['serverInfo'] }),
      ...(capabilities && { capabilities: capabilities as JsonObject }),
      ...(protocolVersion && { protocolVersion }),
      ...(client.getProtocolEra() && { era: client.getProtocolEra() }),
      ...(instructions && { instructions: redact(instructions, this.secrets) }),
      ...(handshake && { handshake }),
      clientCapabilities: CLIENT_CAPABILITIES,
    };
    if (
      this.loggingLevel &&
      client.getServerCapabilities()?.logging &&
      client.getProtocolEra() !== 'modern'
    ) {
      // The level chosen before a reconnect holds after it; a refusal leaves the server's default.
      await client
        .request({ method: 'logging/setLevel', params: { level: this.loggingLevel } }, sdk().ANY_RESULT)
        .catch((error: unknown) =>
          this.deps.debug?.(`${this.id}: logging/setLevel after connect failed: ${String(error)}`),
        );
    }
    this.setStatus('connected');
    this.deps.debug?.(`${this.id}: connected (${this.config.transport})`);
    // At 2026-07-28 list changes come only on a listen stream: one stands open for them (listen.ts).
    if (client.getProtocolEra() === 'modern') {
      this.resourceSubscriptions.listenForListChanges(this.initResult.capabilities);
    }
    return client;
  }

  /**
   * How the client finds the server's era (config `era`, default `auto`): `legacy` initializes as a
   * 2025-11-25 client does; `modern` speaks only 2026-07-28; `auto` asks `server/discover` first and
   * falls back to `initialize` when the server does not know it. A STDIO server that does not answer
   * the probe at all within PROBE_TIMEOUT_MS is taken for a legacy one.
   */
  private versionNegotiation(): VersionNegotiationOptions | undefined {
    const era = this.config.era ?? 'auto';
    if (era === 'legacy') return undefined;
    if (era === 'modern') return { mode: { pin: MODERN_PROTOCOL_VERSION } };
    return {
      mode: 'auto',
      ...(this.config.transport === 'stdio' && {
        probe: { timeoutMs: Math.min(this.deps.connectTimeoutMs, STDIO_PROBE_TIMEOUT_MS) },
      }),
    };
  }

  /** Whether era auto's probe made a STDIO server end the connection (it exited, or closed its pipes). */
  private probeEndedServer(error: unknown): boolean {
    const { SdkError, SdkErrorCode } = sdk();
    return (
      this.config.transport === 'stdio' &&
      (this.config.era ?? 'auto') === 'auto' &&
      error instanceof SdkError &&
      error.code === SdkErrorCode.EraNegotiationFailed &&
      /connection closed during the server\/discover probe/.test(error.message)
    );
  }

  /** An OAuth failure in the daemon's words, redacted; undefined when the failure is not OAuth's. */
  private oauthFailure(error: unknown): UpstreamError | undefined {
    const failure = this.deps.oauth?.failed(this.id, error);
    if (!failure) return undefined;
    failure.message = redact(failure.message, this.secrets);
    return failure;
  }

  /** Why a connection ended by itself: for the record, and for the calls it leaves unanswered. */
  private describeClose(stdio: StdioTransport | undefined): { reason: string; duringCall: CloseReason } {
    let reason: string;
    let duringCall: CloseReason;
    if (stdio?.failure) {
      const { message, code, data } = stdio.failure;
      reason = `${message}: the connection was reset and the server process stopped; it is started again on the next call.`;
      duringCall = {
        message: `${message}: the connection was reset and the server process stopped.`,
        code,
        data,
      };
    } else if (stdio?.exit) {
      const { describeExit, stderrSuffix } = sdk();
      const suffix = stderrSuffix(stdio.stderrTail);
      reason = `The server process ${describeExit(stdio.exit)}; it is started again on the next call.${suffix}`;
      duringCall = {
        message: `The server process ${describeExit(stdio.exit)} during the call.${suffix}`,
        code: 'PROCESS_EXITED',
        data: { exitCode: stdio.exit.code, signal: stdio.exit.signal },
      };
    } else {
      reason = 'The connection closed; it is opened again on the next call.';
      duringCall = {
        message: 'The connection to the server closed during the call.',
        code: 'CONNECTION_LOST',
      };
    }
    return {
      reason: redact(reason, this.secrets),
      duringCall: { ...duringCall, message: redact(duringCall.message, this.secrets) },
    };
  }

  /**
   * The SDK's remote transports report a broken stream only through `onerror`, and leave pending calls
   * waiting for answers that cannot come. A legacy SSE stream cannot be resumed: once it breaks, the
   * session and every answer in flight are gone. A Streamable HTTP stream may be resumed (the SDK
   * retries it), so the server is asked with a ping whether it is still there.
   */
  private onTransportError(client: Client, error: Error): void {
    if (this.client !== client || this.closing) return;
    const detail = sdk().failureText(error, this.secrets);
    this.deps.debug?.(`${this.id}: transport error: ${detail}`);
    // An answer of the server's (an HTTP error status, a body that is no JSON-RPC) shows it there: the
    // call it answered says what it was (withClient), and nothing broke.
    if (sdk().remoteAnswerOf(error)) return;
    if (this.config.transport === 'sse' && error instanceof sdk().SseError) {
      void this.connectionLost(client, detail);
    } else if (this.config.transport === 'http') {
      void this.reachable(client, detail);
    }
  }

  /**
   * Whether a remote server still answers (a ping, or server/discover at the modern era); one that
   * cannot be reached is taken as lost, with `detail` saying what broke. One probe at a time.
   */
  private reachable(client: Client, detail: string): Promise<boolean> {
    this.probeRun ??= this.probe(client, detail).finally(() => {
      this.probeRun = undefined;
    });
    return this.probeRun;
  }

  private async probe(client: Client, detail: string): Promise<boolean> {
    try {
      await client.request({ method: this.pingMethod }, sdk().ANY_RESULT, {
        timeout: PROBE_TIMEOUT_MS,
      });
      return this.client === client;
    } catch (error) {
      if (this.client !== client) return false;
      // A probe refused for want of a grant shows the server there; the call that needs it says so.
      if (!unreachable(error) || this.deps.oauth?.explain(this.id, error)) return true;
      await this.connectionLost(
        client,
        `${detail}; a ${this.pingMethod} then failed: ${sdk().failureText(error, this.secrets)}`,
      );
      return false;
    }
  }

  /** What the record and the calls in flight say when the connection to a remote server broke. */
  private lost(detail: string): { reason: string; duringCall: CloseReason } {
    return {
      reason: `The connection to the server was lost (${detail}); it is opened again on the next call.`,
      duringCall: {
        message: `The connection to the server was lost during the call: ${detail}`,
        code: 'CONNECTION_LOST',
      },
    };
  }

  /** An HTTP or SSE server's message passed the size limit: the connection is reset, as for a STDIO one. */
  private messageTooLarge(client: Client, error: { message: string; data: unknown }): Promise<void> {
    return this.dropAfterFailure(
      client,
      `${error.message}: the connection was reset; it is opened again on the next call.`,
      { message: `${error.message}: the connection was reset.`, code: 'MESSAGE_TOO_LARGE', data: error.data },
    );
  }

  /**
   * An HTTP or SSE server's event that is no JSON-RPC message (event-check.ts): the log shows its start,
   * and the calls it was meant to answer fail at once with 502 saying what it was (NOT_JSON or
   * NOT_JSON_RPC, as an answer to a POST would), where they waited for their time-out. The server is
   * there and answering, so it stays connected, and the next call goes to it. So too a Streamable HTTP
   * POST's answer that holds no response to its request, after which none can come (NO_RESPONSE: its
   * messages are logged as received, so no event line).
   */
  private unreadableEvent(client: Client, { error, fails, logged }: UnreadableEvent): void {
    const { excerpt, remoteAnswerOf } = sdk();
    if (!logged) this.outputLines.take('event', excerpt(error.body, this.secrets));
    const { _responseHandlers: handlers, _progressHandlers: progress } =
      client as unknown as WithResponseHandlers;
    if (!(handlers instanceof Map)) {
      // An SDK that keeps its requests elsewhere: the connection is reset, so they fail saying why.
      const answer = remoteAnswerOf(error, this.secrets);
      if (!answer || (fails !== 'pending' && fails.length === 0)) return;
      const message = redact(answer.message, this.secrets);
      void this.dropAfterFailure(client, `${message}; the connection was reset`, {
        message,
        code: answer.code,
        data: answer.data,
      });
      return;
    }
    // The SDK keys its requests by number, as it does a response's id.
    const ids = fails === 'pending' ? [...(handlers.keys() as Iterable<number>)] : fails.map(Number);
    for (const id of ids) {
      const settle: unknown = handlers.get(id);
      if (typeof settle !== 'function') continue;
      handlers.delete(id);
      if (progress instanceof Map) progress.delete(id);
      settle(error);
    }
  }

  /** Closes a client whose server is gone: its pending calls fail at once, saying why. */
  private connectionLost(client: Client, detail: string): Promise<void> {
    const { reason, duringCall } = this.lost(detail);
    return this.dropAfterFailure(client, reason, duringCall);
  }

  private async dropAfterFailure(client: Client, reason: string, duringCall: CloseReason): Promise<void> {
    if (this.client !== client) return;
    this.closeReasons.set(client, duringCall);
    this.client = undefined;
    this.toolsMeta = undefined;
    // The record says why before the pending calls hear of it.
    this.setStatus('error', reason);
    this.closing = true;
    await client.close().catch(() => {});
    this.closing = false;
  }

  /**
   * Takes the notifications the SDK client has no handler of its own for (it handles only progress and
   * cancellation): handed to the SDK, each would be tried against every JSON-RPC message schema, some
   * failed parses costing more than the rest of the daemon's work on it, only to reach the fallback
   * handler. They are handled a microtask later, as the SDK would, so they keep their order with the
   * notifications it does handle. Params that are not an object are left to the SDK, which reports them.
   */
  private readonly divertNotification = (notification: JSONRPCNotification): boolean => {
    const { method, params } = notification;
    if (!DIRECT_NOTIFICATIONS.has(method)) return false;
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
      return false;
    }
    queueMicrotask(() => this.onServerNotification(method, params as JsonObject | undefined));
    return true;
  };

  private onServerNotification(method: string, params: JsonObject | undefined): void {
    if (method === 'notifications/tools/list_changed') this.toolsMeta = undefined;
    this.deps.onNotification?.(this.id, method, params);
  }

  /**
   * A stderr line, or a stdout line that is not JSON-RPC, of a STDIO server; or the start of an HTTP or
   * SSE server's event that is no JSON-RPC message.
   */
  private publishOutputLine(direction: OutputDirection, line: string): void {
    this.deps.bus.publish(
      {
        type: 'rpc',
        serverId: this.id,
        direction,
        timestamp: logTimestamp(),
        message: line,
      },
      this.redactEntry,
    );
  }

  private setStatus(status: ServerStatus, lastError?: string): void {
    this.status = status;
    if (status === 'error' || status === 'auth_required') this.lastError = lastError;
    else if (status === 'connected') this.lastError = undefined;
    if (status !== 'connected') this.initResult = status === 'connecting' ? this.initResult : undefined;
    this.tellStatus();
  }

  private tellStatus(): void {
    if (!this.retired) this.deps.onStatus?.(this.record());
  }
}

/**
 * The server's error as it sent it: the SDK maps some codes to others (a resource-not-found `-32002` to
 * `-32602`), and the answer then contradicted the log. The error is the SDK's; only its code is set back.
 */
function keepSentErrorCode(call: LogicalCall, error: unknown): void {
  const sent = call.sentErrorCode;
  if (!isMcpError(error) || typeof sent !== 'number' || !Number.isSafeInteger(sent) || error.code === sent)
    return;
  Object.defineProperty(error, 'code', { value: sent, writable: true, enumerable: true, configurable: true });
}
