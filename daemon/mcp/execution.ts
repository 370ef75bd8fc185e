import { randomUUID } from 'node:crypto';
import type { ElicitResult, RequestOptions } from '@modelcontextprotocol/client';
import type {
  ElicitationRequired,
  ElicitationResponse,
  ExecutionCompleted,
  ExecutionOutcome,
  InputRequestKind,
  JsonObject,
  McpTask,
  TaskParams,
  UrlElicitationRetry,
} from '../../shared/api.ts';
import { elicitationAnswerSchema, samplingAnswerSchema } from '../../shared/schemas.ts';
import { DaemonError, quotedName, UpstreamError } from '../errors.ts';
import { invalidRequest, problemsOf } from '../http/validate.ts';
import type { LiveEvent } from '../live/live-events.ts';
import type { ActiveExecutionResponse } from '../../shared/routes.ts';
import { createdTaskOf, endOf, needsTasksExtension } from './modern-tasks.ts';
import { resultProblemOf } from './result-problem.ts';
import type { ServerConnection } from './server-connection.ts';
import {
  MAX_URL_ELICITATION_ROUNDS,
  type UrlElicitation,
  urlElicitationError,
  urlElicitationRequired,
} from './url-elicitation.ts';

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
  /** A URL elicitation of a -32042 error: the call is retried once all of them are accepted. */
  retry?: UrlElicitationRetry;
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

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

const taskKey = (serverId: string, taskId: string): string => `${serverId}\n${taskId}`;

/**
 * A call ended with the server's result: with its `resultProblem` when the result breaks the 2026-07-28
 * schema and is passed on as sent (result-problem.ts).
 */
function completed(executionId: string, result: JsonObject, taskId?: string): ExecutionCompleted {
  return { status: 'completed', executionId, ...(taskId && { taskId }), result, ...resultProblemOf(result) };
}

/** A request to run as a task that this tool or server cannot honour: the request does not fit. */
function taskRefused(message: string): DaemonError {
  return new DaemonError('invalid_request', message, { problems: [{ path: 'task', message }] });
}

type Finish = { outcome: ExecutionOutcome } | { error: unknown };

/** What the caller is told of a pending request: the 202 body, and the live channel's `elicitation`. */
function elicitationRequired(executionId: string, pending: PendingElicitation): ElicitationRequired {
  return {
    status: 'elicitation_required',
    kind: pending.kind,
    executionId,
    requestId: pending.requestId,
    request: pending.request,
    timestamp: pending.timestamp,
    ...(pending.retry && { retry: pending.retry }),
  };
}

/** One tool call in flight: its pending elicitations and whoever waits for its next event. */
class Execution {
  readonly id = randomUUID();
  readonly pending: PendingElicitation[] = [];
  readonly abort = new AbortController();
  finished?: Finish;
  /** The MCP task whose result this execution waits for. */
  taskId?: string;
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
      const ms = this.timeoutMs;
      const within = ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
      this.abort.abort(
        new DaemonError(
          'tool_timeout',
          `Tool "${this.toolName}" did not finish within ${within} without progress`,
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
          resolve(elicitationRequired(this.id, elicitation));
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
  /** Server and task id → the tool that created the task, to name an execution waiting for it. */
  private readonly taskTools = new Map<string, string>();

  constructor(
    private readonly limits: ExecutionLimits,
    /** Progress and pending elicitations, for the live channel. */
    private readonly onEvent: (event: LiveEvent) => void = () => {},
  ) {}

  get activeExecution(): { id: string; serverId: string; toolName: string } | undefined {
    const active = this.active;
    return active && { id: active.id, serverId: active.serverId, toolName: active.toolName };
  }

  /**
   * The active call with the request it waits on, as `GET /tools/active` tells it: the first request
   * already handed out and not yet answered (one not yet handed out comes with the next `respond`).
   */
  get activeWithElicitation(): ActiveExecutionResponse['activeExecution'] {
    const active = this.active;
    if (!active) return null;
    const waiting = active.finished ? undefined : active.pending.find((p) => p.delivered);
    return {
      id: active.id,
      serverId: active.serverId,
      toolName: active.toolName,
      ...(waiting && { elicitation: elicitationRequired(active.id, waiting) }),
    };
  }

  /**
   * Calls a tool. A tool whose `execution.taskSupport` is `required` runs as an MCP task whose result
   * is waited for under the lock, so the answer is the same as for any tool. With `task` the tool runs
   * as a task and the answer is the created task: the lock is held only while the server creates it.
   */
  async execute(
    connection: ServerConnection,
    toolName: string,
    parameters: JsonObject,
    timeoutMs = this.limits.toolTimeoutMs,
    task?: TaskParams,
  ): Promise<ExecutionOutcome> {
    return this.run(
      connection,
      toolName,
      timeoutMs,
      async () => {
        if (!(await connection.hasTool(toolName))) {
          throw new DaemonError(
            'tool_not_found',
            `Unknown tool ${quotedName(toolName)} on server "${connection.id}"`,
          );
        }
        const headerProblem = connection.toolHeaderProblem(toolName);
        if (headerProblem) {
          const message = `Tool "${toolName}" cannot be called: its inputSchema breaks the x-mcp-header rules of MCP 2026-07-28 (${headerProblem})`;
          throw new DaemonError('invalid_request', message, {
            problems: [{ path: 'toolName', message }],
          });
        }
        const support = connection.toolTaskSupport(toolName);
        // At the modern era tools do not say whether they support tasks: the server decides per call.
        if (task && !connection.isModern && support !== 'optional' && support !== 'required') {
          throw taskRefused(
            `Tool "${toolName}" cannot run as a task: its execution.taskSupport is "${support}"`,
          );
        }
        if ((task || support === 'required') && !connection.tasksCapability) {
          throw taskRefused(
            `Tool "${toolName}" ${task ? 'was asked to run' : 'must run'} as a task, but server "${connection.id}" does not declare the tasks capability`,
          );
        }
        return task ?? (support === 'required' ? {} : undefined);
      },
      async (execution, options, runAs) => {
        if (!runAs) {
          try {
            const result = await this.withUrlElicitations(execution, () =>
              connection.callTool(toolName, parameters, options),
            );
            return completed(execution.id, result);
          } catch (error) {
            // A modern server says the tool must run as a task (-32021): it runs as one, waited for.
            const mustBeTask =
              connection.isModern && connection.tasksCapability && needsTasksExtension(error);
            if (!mustBeTask) throw error;
          }
        }
        const created = await connection.callTool(toolName, parameters, options, { ...runAs });
        if (connection.isModern) {
          return this.modernCreated(connection, execution, toolName, created, task, options);
        }
        const createdTask = (created as { task?: McpTask }).task;
        if (!createdTask || typeof createdTask.taskId !== 'string') {
          throw new UpstreamError(
            `Tool "${toolName}" was called as a task, but the server answered without a task`,
            'NO_TASK',
            created,
          );
        }
        this.nameTask(connection, createdTask.taskId, toolName);
        if (task) return { status: 'task_created', executionId: execution.id, task: createdTask };
        return this.awaitTaskResult(connection, execution, createdTask.taskId, options);
      },
    );
  }

  /** Remembers which tool created a task, to name an execution waiting for it. */
  private nameTask(connection: ServerConnection, taskId: string, toolName: string): void {
    this.taskTools.set(taskKey(connection.id, taskId), toolName);
    // Kept for naming only: the oldest names go first.
    if (this.taskTools.size > 1000) this.taskTools.delete(this.taskTools.keys().next().value!);
  }

  /**
   * A modern server's answer to a call that declared the tasks extension: a task, created (`task`) or
   * waited for, or the tool's result when the server ran it at once, as it may.
   */
  private modernCreated(
    connection: ServerConnection,
    execution: Execution,
    toolName: string,
    answer: JsonObject,
    task: TaskParams | undefined,
    options: RequestOptions,
  ): Promise<ExecutionOutcome> | ExecutionOutcome {
    const raw = createdTaskOf(answer);
    if (!raw) return completed(execution.id, answer);
    const created = connection.modernTasks.remember(raw);
    this.nameTask(connection, created.taskId, toolName);
    if (task) return { status: 'task_created', executionId: execution.id, task: created };
    return this.awaitTaskResult(connection, execution, created.taskId, options);
  }

  /**
   * A task's result (`tasks/result`). Of a task that has ended, at once and without the lock; of one
   * still running, waited for under the lock like a tool call, since the elicitations and sampling
   * requests the task raises arrive on that wait.
   */
  async taskResult(connection: ServerConnection, taskId: string): Promise<ExecutionOutcome> {
    const task = (await connection.getTask(taskId)) as McpTask;
    if (TERMINAL.has(task.status)) {
      // A modern task inlines its result (or error) in what tasks/get answered.
      const result = connection.isModern
        ? connection.checkTaskResult(endOf(task))
        : await connection.getTaskResult(taskId);
      return completed(randomUUID(), result as JsonObject, taskId);
    }
    const toolName = this.taskTools.get(taskKey(connection.id, taskId)) ?? 'tasks/result';
    return this.run(
      connection,
      toolName,
      this.limits.toolTimeoutMs,
      async () => undefined,
      (execution, options) => this.awaitTaskResult(connection, execution, taskId, options),
    );
  }

  /** `tasks/cancel`; an execution waiting for that task's result ends `cancelled`. */
  async cancelTask(connection: ServerConnection, taskId: string): Promise<McpTask> {
    const active = this.active;
    if (active && active.serverId === connection.id && active.taskId === taskId && !active.finished) {
      active.abort.abort(new Cancelled('Cancelled by the user'));
    }
    return (await connection.cancelTask(taskId)) as McpTask;
  }

  private async awaitTaskResult(
    connection: ServerConnection,
    execution: Execution,
    taskId: string,
    options: RequestOptions,
  ): Promise<ExecutionOutcome> {
    execution.taskId = taskId;
    // Ending the wait ends the task too: the server hears tasks/cancel.
    const onAbort = (): void => {
      void connection.cancelTask(taskId).catch(() => {});
    };
    execution.abort.signal.addEventListener('abort', onAbort, { once: true });
    // A modern task is polled; a change of its status shows it alive, as a status notification does.
    const result = connection.isModern
      ? connection.checkTaskResult(
          await connection.modernTasks.result(taskId, options, () => execution.armTimer()),
        )
      : await connection.getTaskResult(taskId, options);
    execution.abort.signal.removeEventListener('abort', onAbort);
    return completed(execution.id, result as JsonObject, taskId);
  }

  /**
   * A request retried after the person finished the URL elicitations of its -32042 error (MCP
   * 2025-11-25): each URL goes to the caller in turn through the 202 flow, and once all are accepted
   * the request is made again, at most MAX_URL_ELICITATION_ROUNDS times. A decline or cancel, or a server
   * still asking after the last round, ends the call with the server's error saying why; an error whose
   * elicitations do not hold up (urlElicitationRequired) is returned as it came.
   */
  private async withUrlElicitations<T>(execution: Execution, request: () => Promise<T>): Promise<T> {
    for (let round = 1; ; round++) {
      try {
        return await request();
      } catch (error) {
        const required = urlElicitationRequired(error);
        if (!required) throw error;
        if (round > MAX_URL_ELICITATION_ROUNDS) {
          throw urlElicitationError(
            required.error,
            `The server still asked for URL elicitation after ${MAX_URL_ELICITATION_ROUNDS} retries, so the call was not retried again.`,
          );
        }
        for (const [index, elicitation] of required.elicitations.entries()) {
          const retry = {
            round,
            maxRounds: MAX_URL_ELICITATION_ROUNDS,
            index: index + 1,
            count: required.elicitations.length,
          };
          const action = await this.askUrl(execution, elicitation, retry);
          if (action !== 'accept') {
            const why =
              action === 'decline'
                ? 'The user declined the URL elicitation, so the call was not retried.'
                : 'The URL elicitation was cancelled, so the call was not retried.';
            throw urlElicitationError(required.error, why);
          }
        }
      }
    }
  }

  /**
   * Hands one URL elicitation to the caller and waits for the answer. The server is not waiting on
   * it (its request already failed), so ending the call must end this wait too.
   */
  private askUrl(
    execution: Execution,
    elicitation: UrlElicitation,
    retry: UrlElicitationRetry,
  ): Promise<ElicitationResponse['action']> {
    const signal = execution.abort.signal;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.ask<ElicitationResponse['action']>(
        'elicitation',
        execution.serverId,
        { ...elicitation },
        signal,
        (response, settle) => settle(response.action),
        retry,
      )
        .then(resolve, reject)
        .finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** One call under the lock: `prepare` checks before it starts (the lock is released if it throws). */
  private async run<P>(
    connection: ServerConnection,
    toolName: string,
    timeoutMs: number,
    prepare: () => Promise<P>,
    call: (execution: Execution, options: RequestOptions, prepared: P) => Promise<ExecutionOutcome>,
  ): Promise<ExecutionOutcome> {
    const activeExecution = this.activeExecution;
    if (activeExecution) {
      throw new DaemonError('execution_busy', 'Another execution is already in progress', {
        activeExecution,
      });
    }
    const execution = new Execution(connection.id, toolName, timeoutMs);
    this.active = execution;
    let prepared: P;
    try {
      prepared = await prepare();
    } catch (error) {
      this.release(execution);
      throw error;
    }
    const options: RequestOptions = {
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
    };
    call(execution, options, prepared)
      .then(
        (outcome): Finish => ({ outcome }),
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
    // Armed once the request is on its way (the call sends it before its first wait).
    execution.armTimer();
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
      throw new DaemonError(
        'elicitation_not_found',
        `No pending elicitation has requestId ${quotedName(requestId)}`,
      );
    }
    if (response.action === 'accept') {
      // The reply goes to the server as its CreateMessageResult, or as an ElicitResult's content: it must
      // be one (a form's values may still break the server's schema, to test how the server takes that).
      // Refused, the request stays open for a better answer.
      const problems =
        pending.kind === 'sampling'
          ? problemsOf(samplingAnswerSchema, response.content ?? {})
          : response.content === undefined
            ? []
            : problemsOf(elicitationAnswerSchema, response.content);
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

  /** A status notification of the task an execution waits for shows it alive, as progress does. */
  onTaskStatus(serverId: string, params: JsonObject | undefined): void {
    const active = this.active;
    if (active && active.serverId === serverId && active.taskId && params?.taskId === active.taskId) {
      active.armTimer();
    }
  }

  /** Ends the active execution: the SDK sends `notifications/cancelled` to the server. */
  cancel(executionId: string): { status: 'cancelled'; executionId: string } {
    const execution = this.active;
    if (!execution || execution.id !== executionId)
      throw new DaemonError('execution_not_found', `No active execution has id ${quotedName(executionId)}`);
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
    retry?: UrlElicitationRetry,
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
        ...(retry && { retry }),
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
        elicitation: elicitationRequired(execution.id, pending),
      });
    });
  }

  private release(execution: Execution): void {
    if (this.active === execution) this.active = undefined;
  }
}
