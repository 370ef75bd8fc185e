/**
 * Messages of the live channel (`GET /api/mcp/ws`, DESIGN "Live channel"): what the front end must not
 * poll for. Server to client only; the client says where to resume in the connection URL
 * (`?bootId=…&since=<seq>`, or `?replay=N` on a first connection).
 */
import type { ElicitationRequired, JsonObject } from './api.ts';
import type { RpcLogEntry } from './logs.ts';
import type { AuthTrace } from './oauth.ts';
import type { ServerRecord } from './servers.ts';

/** First message of every connection. `bootId` changes when the daemon restarts (sequence numbers restart). */
export interface HelloMessage {
  type: 'hello';
  bootId: string;
  version: string;
  /** The last log sequence number the daemon has assigned (0 when none). */
  lastSeq: number;
}

export interface RpcMessage {
  type: 'rpc';
  entry: RpcLogEntry;
}

export interface ServerStatusMessage {
  type: 'server-status';
  server: ServerRecord;
}

/** A server was removed from the daemon (one added or changed comes as its `server-status`). */
export interface ServerRemovedMessage {
  type: 'server-removed';
  serverId: string;
}

/** A server-to-client MCP notification: logging messages, `list_changed`, `resources/updated`, … */
export interface NotificationMessage {
  type: 'notification';
  serverId: string;
  method: string;
  params?: JsonObject;
}

/** Progress of the running tool call, already matched to its execution. */
export interface ProgressMessage {
  type: 'progress';
  serverId: string;
  executionId: string;
  toolName: string;
  progress: number;
  total?: number;
  message?: string;
}

/** An elicitation the running tool call raised and that waits for an answer (`POST /tools/respond`). */
export interface ElicitationMessage {
  type: 'elicitation';
  serverId: string;
  toolName: string;
  elicitation: ElicitationRequired;
}

/** A server's auth debugger record changed: a step began, ended or waits (`GET /servers/:id/auth/trace`). */
export interface AuthTraceMessage {
  type: 'auth-trace';
  trace: AuthTrace;
}

export type LiveMessage =
  | HelloMessage
  | RpcMessage
  | ServerStatusMessage
  | ServerRemovedMessage
  | NotificationMessage
  | ProgressMessage
  | ElicitationMessage
  | AuthTraceMessage;
