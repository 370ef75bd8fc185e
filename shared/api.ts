/** Request and response bodies of the tools, resources and prompts routes (SPEC part 4). */
import type { LOGGING_LEVELS } from './schemas.ts';

export type JsonObject = Record<string, unknown>;

export interface ServerRequest {
  serverId: string;
}

/**
 * One page of a list instead of every page joined: `cursor` asks for the page the server gave that
 * cursor for (its `nextCursor` of the page before), `page: "first"` for the first page. Not both.
 */
export interface ListPageOptions {
  cursor?: string;
  page?: 'first';
}

/** The page the daemon fetches: the first when `cursor` is absent (every page is asked for with none). */
export interface ListPage {
  cursor?: string;
}

/** `POST /tools/list`, `/resources/list`, `/resources/templates/list` and `/prompts/list`. */
export interface ListRequest extends ServerRequest, ListPageOptions {}

export interface ToolsListResponse extends ResultProblem {
  tools: Array<{ name: string; inputSchema: JsonObject; outputSchema?: JsonObject; _meta?: JsonObject }>;
  /** Tool name → that tool's cached `_meta`. */
  toolsMetadata: Record<string, JsonObject>;
  /**
   * Tool name → why its `x-mcp-header` declarations (MCP 2026-07-28, SEP-2243) make it uncallable, for
   * the tools of a modern server that break them; such a tool is listed but `execute` refuses it (400).
   */
  invalidHeaders?: Record<string, string>;
  /** Asked for one page (ListPageOptions): the server's cursor for the next page, when there is one. */
  nextCursor?: string;
  [extra: string]: unknown;
}

export interface ExecuteRequest {
  serverId: string;
  toolName: string;
  parameters?: JsonObject;
  /** Tool-call time-out in milliseconds, reset by progress notifications. Default 5 minutes. */
  timeoutMs?: number;
  /**
   * Call the tool as an MCP task (2025-11-25, experimental): the answer is the created task
   * (`task_created`), whose status and result are asked for later with the tasks routes. `ttl` is the
   * task's time to live in milliseconds, asked of the server.
   */
  task?: TaskParams;
  /** The same as `task: {}`. */
  runAsTask?: boolean;
}

/** The `task` param of a task-augmented `tools/call`. */
export interface TaskParams {
  ttl?: number;
}

/** An MCP task as the server reports it (`tasks/get`, `tasks/list`, CreateTaskResult.task). */
export interface McpTask {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  ttl: number | null;
  createdAt: string;
  lastUpdatedAt: string;
  pollInterval?: number;
  statusMessage?: string;
  [extra: string]: unknown;
}

/** `POST /api/mcp/tasks/get`, `/tasks/result` and `/tasks/cancel`: one task of a server. */
export interface TaskRequest {
  serverId: string;
  taskId: string;
}

/** `POST /api/mcp/tasks/list`: every page of the server's `tasks/list`, joined. */
export interface TasksListResponse {
  tasks: McpTask[];
  [extra: string]: unknown;
}

export interface ElicitationResponse {
  action: 'accept' | 'decline' | 'cancel';
  content?: JsonObject;
}

export interface RespondRequest {
  requestId: string;
  response: ElicitationResponse;
}

export interface CancelRequest {
  executionId: string;
}

/**
 * Beside a server's result that breaks the MCP 2026-07-28 schema, which the daemon passes on as the
 * server sent it (`resultType` included): what the MCP SDK's check of the result found wrong, each issue
 * as `path: message`. Absent for a well-formed result, and at 2025-11-25, where results are not checked.
 */
export interface ResultProblem {
  resultProblem?: string;
}

export interface ExecutionCompleted extends ResultProblem {
  status: 'completed';
  executionId: string;
  /** The MCP call-tool result, passed through unvalidated. */
  result: JsonObject;
  /** The task the result came from: a tool run as a task, its result waited for. */
  taskId?: string;
}

/** A tool called as a task: the server created it and works on it; its result is asked for later. */
export interface ExecutionTaskCreated {
  status: 'task_created';
  executionId: string;
  /** CreateTaskResult.task as the server sent it. */
  task: McpTask;
}

/** What a server asks of the person during a call: `elicitation/create` or `sampling/createMessage`. */
export type InputRequestKind = 'elicitation' | 'sampling';

export interface ElicitationRequired {
  status: 'elicitation_required';
  /**
   * `elicitation`: answer with `{ action, content? }` as MCP's ElicitResult. `sampling`: accept with the
   * CreateMessageResult as `content` (`{ role, content, model, stopReason? }`), or decline/cancel to reject.
   */
  kind: InputRequestKind;
  executionId: string;
  requestId: string;
  /**
   * The server's params: for `elicitation`, message and requestedSchema (form) or url (url mode); for
   * `sampling`, messages, systemPrompt, maxTokens, modelPreferences, tools….
   */
  request: JsonObject;
  timestamp: string;
  /**
   * Set when the call failed with -32042, URL elicitation required (MCP 2025-11-25): `request` is URL
   * `index` of the `count` the server listed (`{ mode: "url", elicitationId, url, message }`). Accept once
   * finished at the URL; when all are accepted the call is made again, round `round` of at most
   * `maxRounds`. Decline or cancel ends the call with the server's error.
   */
  retry?: UrlElicitationRetry;
}

/** Where a URL elicitation of a -32042 error stands: which of the server's URLs, which retry. */
export interface UrlElicitationRetry {
  round: number;
  maxRounds: number;
  index: number;
  count: number;
}

export interface ExecutionCancelled {
  status: 'cancelled';
  executionId: string;
}

export type ExecutionOutcome =
  ExecutionCompleted | ElicitationRequired | ExecutionCancelled | ExecutionTaskCreated;

export interface ResourceReadRequest {
  serverId: string;
  uri: string;
}

export interface PromptGetRequest {
  serverId: string;
  name: string;
  args?: Record<string, unknown>;
}

/** `POST /api/mcp/completions/complete`: MCP `completion/complete` for a prompt or template argument. */
export interface CompleteRequest {
  serverId: string;
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  /** Values of the other arguments already filled in. */
  context?: { arguments?: Record<string, string> };
}

/** The server's `completion/complete` result, passed through: `completion.values` are the suggestions. */
export interface CompleteResponse extends ResultProblem {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [extra: string]: unknown;
}

/** `POST /api/mcp/servers/:id/ping`: the server answered `ping` after this many milliseconds. */
export interface PingResponse {
  roundTripMs: number;
  /** What was sent: `ping`, or on a 2026-07-28 server, which has none, `server/discover`. */
  method: 'ping' | 'server/discover';
}

export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

/** `POST /api/mcp/servers/:id/logging-level`: the level sent with `logging/setLevel`. */
export interface LoggingLevelRequest {
  level: LoggingLevel;
}

export interface ImportServersRequest {
  mcpServers: Record<string, JsonObject>;
}
