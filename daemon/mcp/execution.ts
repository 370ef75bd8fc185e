import { randomUUID } from 'node:crypto';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type {
  ElicitationResponse,
  ExecutionOutcome,
  InputRequestKind,
  JsonObject,
} from '../../shared/api.ts';
import { samplingAnswerSchema } from '../../shared/schemas.ts';
import { DaemonError } from '../errors.ts';
import { invalidRequest, problemsOf } from '../http/validate.ts';
import type { LiveEvent } from '../live/live-events.ts';
import type { ServerConnection } from './server-connection.ts';

export interface ExecutionLimits {
  /** Default tool-call time-out; progress notifications reset it, pending elicitations pause it. */
  toolTimeoutMs: number;
  /** An elicitation nobody answers within this time is answered `cancel`, so the lock never sticks. */
  elicitationTimeoutMs: number;
}

/** A request from the server that waits for the person at the inspector: elicitation or sampling. */
interface PendingElicitation {
  kind: InputRequestKind;
  requestId: string;
  request: JsonObject;
  timestamp: string;
  delivered: boolean;
  /** Settles the server's request with the person's answer; cancel when nobody answers. */
  answer: (response: ElicitationResponse) => void;
  timer: NodeJS.Timeout;
}

/** MCP's error for a sampling request the user rejected (the spec's example code, -1). */
export class SamplingRejected extends Error {
  override name = 'McpError';
  readonly code = -1;
  constructor(action: string) {
    super(`The user ${action === 'decline' ? 'rejected' : 'cancelled'} the sampling request`);
  }
}

class Cancelled extends Error {}

type Finish = { outcome: ExecutionOutcome } | { error: unknown };

/** One tool call in flight: its pending elicitations and whoever waits for its next event. */
class Execution {
  readonly id = randomUUID();
  readonly pending: PendingElicitation[] = [];
  readonly abort = new AbortController();
  finished?: Finish;
  private waiters: Array<() => void> = [];
  private timer?: NodeJS.Timeout;

  constructor(
    readonly serverId: string,
    readonly toolName: string,
    private readonly timeoutMs: number,
  ) {}

  /** (Re)starts the tool-call time-out; paused while an elicitation waits for the user. */
  armTimer(): void {
    clearTimeout(this.timer);
    if (this.finished || this.pending.length > 0) return;
    this.timer = setTimeout(() => {
      const seconds = Math.round(this.timeoutMs / 100) / 10;
      this.abort.abort(
        new DaemonError(
          'tool_timeout',
          `Tool "${this.toolName}" did not finish within ${seconds} s without progress`,
        ),
      );
    }, this.timeoutMs);
  }

  finish(finish: Finish): void {
    if (this.finished) return;
    this.finished = finish;
    clearTimeout(this.timer);
    for (const pending of this.pending.splice(0)) {
      clearTimeout(pending.timer);
      pending.answer({ action: 'cancel' });
    }
    this.wake();
  }

  wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** The next thing to tell the caller: the result, an elicitation not yet shown, or one still unanswered. */
  next(): Promise<ExecutionOutcome> {
    return new Promise((resolve, reject) => {
      const settle = (): void => {
        const finished = this.finished;
        if (finished) {
          if ('outcome' in finished) resolve(finished.outcome);
          else reject(finished.error);
          return;
        }
        const elicitation = this.pending.find((p) => !p.delivered) ?? this.pending[0];
        if (elicitation) {
          elicitation.delivered = true;
          resolve({
            status: 'elicitation_required',
            kind: elicitation.kind,
            executionId: this.id,
            requestId: elicitation.requestId,
            request: elicitation.request,
            timestamp: elicitation.timestamp,
          });
          return;
        }
        this.waiters.push(settle);
      };
      settle();
    });
  }
}

/** The service-wide one-at-a-time execution lock with its elicitation queue (SPEC part 3). */
export class ExecutionManager {
  private active?: Execution;

  constructor(
    private readonly limits: ExecutionLimits,
    /** Progress and pending elicitations, for the live channel. */
    private readonly onEvent: (event: LiveEvent) => void = () => {},
  ) {}

  get activeExecution(): { id: string; serverId: string; toolName: string } | undefined {
    const active = this.active;
    return active && { id: active.id, serverId: active.serverId, toolName: active.toolName };
  }

  async execute(
    connection: ServerConnection,
    toolName: string,
    parameters: JsonObject,
    timeoutMs = this.limits.toolTimeoutMs,
  ): Promise<ExecutionOutcome> {
    const activeExecution = this.activeExecution;
    if (activeExecution) {
      throw new DaemonError('execution_busy', 'Another execution is already in progress', {
        activeExecution,
      });
    }
    const execution = new Execution(connection.id, toolName, timeoutMs);
    this.active = execution;
    try {
      if (!(await connection.hasTool(toolName))) {
        throw new DaemonError('tool_not_found', `Unknown tool "${toolName}" on server "${connection.id}"`);
      }
    } catch (error) {
      this.release(execution);
      throw error;
    }
    execution.armTimer();
    connection
      .callTool(toolName, parameters, {
        signal: execution.abort.signal,
        // The SDK's own time-out cannot pause while the user answers an elicitation: ours does.
        timeout: 2_147_483_647,
        onprogress: (progress) => {
          execution.armTimer();
          this.onEvent({
            type: 'progress',
            serverId: execution.serverId,
            executionId: execution.id,
            toolName,
            progress: progress.progress,
            ...(progress.total !== undefined && { total: progress.total }),
            ...(progress.message !== undefined && { message: progress.message }),
          });
        },
      })
      .then(
        (result): Finish => ({ outcome: { status: 'completed', executionId: execution.id, result } }),
        (error: unknown): Finish => {
          // The SDK rejects an aborted request with an McpError wrapping the abort reason; the reason
          // itself (Cancelled, or the DaemonError of the time-out) says what happened.
          const signal = execution.abort.signal;
          const reason: unknown = signal.aborted ? signal.reason : error;
          return reason instanceof Cancelled
            ? { outcome: { status: 'cancelled', executionId: execution.id } }
            : { error: reason };
        },
      )
      .then((finish) => {
        // The lock is free before anyone hears of the end, so an immediate next execute succeeds.
        this.release(execution);
        execution.finish(finish);
      });
    return execution.next();
  }

  respond(requestId: string, response: ElicitationResponse): Promise<ExecutionOutcome> {
    const execution = this.active;
    if (!execution) {
      throw new DaemonError(
        'elicitation_not_found',
        'No execution is active, so there is no elicitation to answer',
      );
    }
    const index = execution.pending.findIndex((p) => p.requestId === requestId);
    const pending = execution.pending[index];
    if (!pending) {
      throw new DaemonError('elicitation_not_found', `No pending elicitation has requestId "${requestId}"`);
    }
    if (pending.kind === 'sampling' && response.action === 'accept') {
      // The reply goes to the server as its CreateMessageResult: it must be one. The request stays open.
      const problems = problemsOf(samplingAnswerSchema, response.content ?? {});
      if (problems.length) {
        throw invalidRequest(problems.map((p) => ({ ...p, path: `response.content.${p.path}` })));
      }
    }
    execution.pending.splice(index, 1);
    clearTimeout(pending.timer);
    pending.answer(response);
    execution.armTimer();
    return execution.next();
  }

  /** Ends the active execution: the SDK sends `notifications/cancelled` to the server. */
  cancel(executionId: string): { status: 'cancelled'; executionId: string } {
    const execution = this.active;
    if (!execution || execution.id !== executionId)
      throw new DaemonError('execution_not_found', `No active execution has id "${executionId}"`);
    execution.abort.abort(new Cancelled('Cancelled by the user'));
    return { status: 'cancelled', executionId };
  }

  /** The elicitation handler of every connection: queues the request on the execution of that server. */
  handleElicitation = (serverId: string, request: JsonObject, signal: AbortSignal): Promise<ElicitResult> =>
    this.ask('elicitation', serverId, request, signal, (response, resolve) =>
      resolve(
        response.action === 'accept'
          ? { action: 'accept', content: (response.content ?? {}) as ElicitResult['content'] }
          : { action: response.action },
      ),
    );

  /**
   * The sampling handler of every connection: `sampling/createMessage` during a tool call goes to the
   * person like an elicitation, who writes the reply (accept, with a CreateMessageResult as content) or
   * rejects it. Outside a call of that server nobody can answer, and the server hears so.
   */
  handleSampling = (serverId: string, request: JsonObject, signal: AbortSignal): Promise<JsonObject> =>
    this.ask<JsonObject>('sampling', serverId, request, signal, (response, resolve, reject) => {
      if (response.action === 'accept') resolve(response.content ?? {});
      else reject(new SamplingRejected(response.action));
    });

  private ask<T>(
    kind: InputRequestKind,
    serverId: string,
    request: JsonObject,
    signal: AbortSignal,
    settle: (
      response: ElicitationResponse,
      resolve: (value: T) => void,
      reject: (error: Error) => void,
    ) => void,
  ): Promise<T> {
    const execution = this.active;
    if (!execution || execution.serverId !== serverId || execution.finished) {
      return new Promise((resolve, reject) => settle({ action: 'cancel' }, resolve, reject));
    }
    return new Promise((resolve, reject) => {
      const answer = (response: ElicitationResponse) => settle(response, resolve, reject);
      const pending: PendingElicitation = {
        kind,
        requestId: randomUUID(),
        request,
        timestamp: new Date().toISOString(),
        delivered: false,
        answer,
        timer: setTimeout(() => {
          const index = execution.pending.indexOf(pending);
          if (index >= 0) execution.pending.splice(index, 1);
          answer({ action: 'cancel' });
          execution.armTimer();
        }, this.limits.elicitationTimeoutMs),
      };
      // The server may give up on its request (it was cancelled): forget it.
      signal.addEventListener('abort', () => {
        const index = execution.pending.indexOf(pending);
        if (index >= 0) execution.pending.splice(index, 1);
        clearTimeout(pending.timer);
        execution.armTimer();
      });
      execution.pending.push(pending);
      execution.armTimer();
      execution.wake();
      this.onEvent({
        type: 'elicitation',
        serverId,
        toolName: execution.toolName,
        elicitation: {
          status: 'elicitation_required',
          kind,
          executionId: execution.id,
          requestId: pending.requestId,
          request,
          timestamp: pending.timestamp,
        },
      });
    });
  }

  private release(execution: Execution): void {
    if (this.active === execution) this.active = undefined;
  }
}
