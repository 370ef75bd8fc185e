/** Request and response bodies of the tools, resources and prompts routes (SPEC part 4). */

export type JsonObject = Record<string, unknown>;

export interface ServerRequest {
  serverId: string;
}

export interface ToolsListResponse {
  tools: Array<{ name: string; inputSchema: JsonObject; outputSchema?: JsonObject; _meta?: JsonObject }>;
  /** Tool name → that tool's cached `_meta`. */
  toolsMetadata: Record<string, JsonObject>;
  [extra: string]: unknown;
}

export interface ExecuteRequest {
  serverId: string;
  toolName: string;
  parameters?: JsonObject;
  /** Tool-call time-out in milliseconds, reset by progress notifications. Default 5 minutes. */
  timeoutMs?: number;
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

export interface ExecutionCompleted {
  status: 'completed';
  executionId: string;
  /** The MCP call-tool result, passed through unvalidated. */
  result: JsonObject;
}

export interface ElicitationRequired {
  status: 'elicitation_required';
  executionId: string;
  requestId: string;
  /** The MCP `elicitation/create` params: message, requestedSchema (form) or url (url mode). */
  request: JsonObject;
  timestamp: string;
}

export interface ExecutionCancelled {
  status: 'cancelled';
  executionId: string;
}

export type ExecutionOutcome = ExecutionCompleted | ElicitationRequired | ExecutionCancelled;

export interface ResourceReadRequest {
  serverId: string;
  uri: string;
}

export interface PromptGetRequest {
  serverId: string;
  name: string;
  args?: Record<string, unknown>;
}

export interface ImportServersRequest {
  mcpServers: Record<string, JsonObject>;
}
