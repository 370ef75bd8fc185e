/**
 * Every JSON route of the API, by method and path under `/api/mcp` (path parameters as `:name`), with
 * its request body and its answer. The daemon's routes answer `satisfies Answer<route>` and the front
 * end's daemon client calls them by these names, so the two sides cannot drift apart.
 */
import type {
  CancelRequest,
  CompleteRequest,
  CompleteResponse,
  ElicitationRequired,
  ExecuteRequest,
  ExecutionCancelled,
  ExecutionOutcome,
  ImportServersRequest,
  JsonObject,
  ListRequest,
  LoggingLevelRequest,
  McpTask,
  PingResponse,
  PromptGetRequest,
  ResourceReadRequest,
  ResultProblem,
  RespondRequest,
  ServerRequest,
  TaskRequest,
  TasksListResponse,
  ToolsListResponse,
} from './api.ts';
import type { HealthResponse } from './health.ts';
import type { RpcLogEntry } from './logs.ts';
import type { UserResponse } from './user.ts';
import type { AuthStartRequest, AuthTrace } from './oauth.ts';
import type { PutServerRequest, Root, ServerRecord } from './servers.ts';
import type { WidgetStoreRequest, WidgetStoreResponse } from './widgets.ts';

export interface ServersResponse {
  servers: ServerRecord[];
}

export interface RemovedServer {
  success: true;
  id: string;
}

export interface RootsRequest {
  roots: Root[];
}

export interface ActiveExecutionResponse {
  /**
   * The call holding the lock; with `elicitation` (the 202 body it was answered with) while it waits for
   * an answer that was handed out, so a client that lost that answer (a popup closed) can give it.
   */
  activeExecution: {
    id: string;
    serverId: string;
    toolName: string;
    elicitation?: ElicitationRequired;
  } | null;
}

/**
 * A list the server sent, every page joined, passed through as it came: the items are the server's
 * (MCP's Resource, ResourceTemplate or Prompt when it follows the spec) and other fields of its result stay.
 * Asked for one page (ListPageOptions), that page as it came, with the server's `nextCursor` if any.
 */
export type ListAnswer<Key extends string> = { [K in Key]: JsonObject[] } & ResultProblem & {
    [extra: string]: unknown;
  };

/** `resources/read` or `prompts/get`: the server's result as it came. */
export interface ContentResponse extends ResultProblem {
  content: JsonObject;
}

/** One entry of the live log, whole (`GET /rpc-logs/:seq`). */
export interface LogEntryResponse {
  entry: RpcLogEntry;
}

export interface SubscriptionResponse {
  subscribed: boolean;
  serverId: string;
  uri: string;
}

interface Route<Body, Answer> {
  body: Body;
  answer: Answer;
}

export interface ApiRoutes {
  'GET /health': Route<undefined, HealthResponse>;
  'GET /user': Route<undefined, UserResponse>;
  'GET /servers/': Route<undefined, ServersResponse>;
  'POST /servers/import': Route<ImportServersRequest, ServersResponse>;
  'GET /servers/:id': Route<undefined, ServerRecord>;
  'PUT /servers/:id': Route<PutServerRequest, ServerRecord>;
  'DELETE /servers/:id': Route<undefined, RemovedServer>;
  'POST /servers/:id/connect': Route<undefined, ServerRecord>;
  'POST /servers/:id/disconnect': Route<undefined, ServerRecord>;
  'POST /servers/:id/ping': Route<undefined, PingResponse>;
  'POST /servers/:id/logging-level': Route<LoggingLevelRequest, ServerRecord>;
  'PUT /servers/:id/roots': Route<RootsRequest, ServerRecord>;
  'POST /servers/:id/auth/start': Route<AuthStartRequest | undefined, ServerRecord>;
  'DELETE /servers/:id/auth': Route<undefined, ServerRecord>;
  'GET /servers/:id/auth/trace': Route<undefined, AuthTrace>;
  'POST /servers/:id/auth/trace/next': Route<undefined, AuthTrace>;
  'DELETE /servers/:id/auth/trace': Route<undefined, AuthTrace>;
  'POST /tools/list': Route<ListRequest, ToolsListResponse>;
  'POST /tools/execute': Route<ExecuteRequest, ExecutionOutcome>;
  'POST /tools/respond': Route<RespondRequest, ExecutionOutcome>;
  'POST /tools/cancel': Route<CancelRequest, ExecutionCancelled>;
  'GET /tools/active': Route<undefined, ActiveExecutionResponse>;
  'POST /tasks/list': Route<ServerRequest, TasksListResponse>;
  'POST /tasks/get': Route<TaskRequest, McpTask>;
  'POST /tasks/result': Route<TaskRequest, ExecutionOutcome>;
  'POST /tasks/cancel': Route<TaskRequest, McpTask>;
  'POST /resources/list': Route<ListRequest, ListAnswer<'resources'>>;
  'POST /resources/templates/list': Route<ListRequest, ListAnswer<'resourceTemplates'>>;
  'POST /resources/read': Route<ResourceReadRequest, ContentResponse>;
  'POST /resources/subscribe': Route<ResourceReadRequest, SubscriptionResponse>;
  'POST /resources/unsubscribe': Route<ResourceReadRequest, SubscriptionResponse>;
  'POST /resources/widget/store': Route<WidgetStoreRequest, WidgetStoreResponse>;
  'POST /prompts/list': Route<ListRequest, ListAnswer<'prompts'>>;
  'POST /prompts/get': Route<PromptGetRequest, ContentResponse>;
  'POST /completions/complete': Route<CompleteRequest, CompleteResponse>;
  'GET /rpc-logs/:seq': Route<undefined, LogEntryResponse>;
}

export type RouteName = keyof ApiRoutes;

/** Every route's name, for code that walks them all (a test checks that the daemon has each one). */
export const ROUTE_NAMES = [
  'GET /health',
  'GET /user',
  'GET /servers/',
  'POST /servers/import',
  'GET /servers/:id',
  'PUT /servers/:id',
  'DELETE /servers/:id',
  'POST /servers/:id/connect',
  'POST /servers/:id/disconnect',
  'POST /servers/:id/ping',
  'POST /servers/:id/logging-level',
  'PUT /servers/:id/roots',
  'POST /servers/:id/auth/start',
  'DELETE /servers/:id/auth',
  'GET /servers/:id/auth/trace',
  'POST /servers/:id/auth/trace/next',
  'DELETE /servers/:id/auth/trace',
  'POST /tools/list',
  'POST /tools/execute',
  'POST /tools/respond',
  'POST /tools/cancel',
  'GET /tools/active',
  'POST /tasks/list',
  'POST /tasks/get',
  'POST /tasks/result',
  'POST /tasks/cancel',
  'POST /resources/list',
  'POST /resources/templates/list',
  'POST /resources/read',
  'POST /resources/subscribe',
  'POST /resources/unsubscribe',
  'POST /resources/widget/store',
  'POST /prompts/list',
  'POST /prompts/get',
  'POST /completions/complete',
  'GET /rpc-logs/:seq',
] as const satisfies readonly RouteName[];

// A route added to ApiRoutes but not to ROUTE_NAMES fails to compile here.
type Unlisted = Exclude<RouteName, (typeof ROUTE_NAMES)[number]>;
export const ROUTE_NAMES_COMPLETE: [Unlisted] extends [never] ? true : Unlisted = true;
export type Answer<R extends RouteName> = ApiRoutes[R]['answer'];
export type Body<R extends RouteName> = ApiRoutes[R]['body'];

/** The `:name` parameters of a route's path. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

export type PathParams<R extends RouteName> = { [K in ParamNames<R>]: string };

/** The method and the path of a route with its parameters filled in, each percent-encoded. */
export function routeRequest<R extends RouteName>(
  route: R,
  params: PathParams<R>,
): { method: string; path: string } {
  const space = route.indexOf(' ');
  const values = params as Record<string, string>;
  const path = route
    .slice(space + 1)
    .replace(/:([A-Za-z]+)/g, (_match, name: string) => encodeURIComponent(values[name] ?? ''));
  return { method: route.slice(0, space), path };
}
