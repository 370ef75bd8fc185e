import type {
  ElicitationRequired,
  ElicitationResponse,
  ExecutionOutcome,
  JsonObject,
  McpTask,
  TaskParams,
} from '../../shared/api';
import { markRaw } from 'vue';
import { DaemonError, type DaemonClient } from '../app/daemon-client';

/** One tool call as the panel, the popup and a widget's host see it. */
export interface Run {
  toolName: string;
  serverId: string;
  startedAt: number;
  finishedAt?: number;
  /** The arguments the tool was called with (a widget gets them as `toolInput`). */
  parameters?: Record<string, unknown>;
  state: 'running' | 'elicitation' | 'completed' | 'cancelled' | 'failed';
  executionId?: string;
  elicitation?: ElicitationRequired;
  result?: JsonObject;
  /** What breaks the 2026-07-28 schema in the result, which the daemon passed on as sent. */
  resultProblem?: string;
  error?: string;
  /** The latest progress notification of this call, from the live channel. */
  progress?: { progress: number; total?: number; message?: string };
  /** The daemon could not be reached at all (it stopped, or moved): the caller checks its health. */
  unreachable?: boolean;
  /** Set on a 409: the call that holds the daemon's lock. */
  blockedBy?: { id: string; serverId: string; toolName: string };
  /** Asks the daemon to run the tool as an MCP task (`task` of execute). */
  runAsTask?: TaskParams;
  /** The task the server created for a run as a task: it ends here, the task goes on. */
  task?: McpTask;
  /** URL elicitations the server said were finished (`notifications/elicitation/complete`), by id. */
  completedElicitations?: string[];
}

export const isActive = (run: Run | null | undefined): boolean =>
  run?.state === 'running' || run?.state === 'elicitation';

/** A run that has not been sent yet. */
export function newRun(serverId: string, toolName: string, parameters: Record<string, unknown>): Run {
  return { serverId, toolName, parameters, startedAt: Date.now(), state: 'running' };
}

/** Applies an execute or respond answer (200 or 202) to the run. */
export function settleRun(target: Run, outcome: ExecutionOutcome): void {
  target.executionId = outcome.executionId;
  target.elicitation = outcome.status === 'elicitation_required' ? outcome : undefined;
  if (outcome.status === 'elicitation_required') {
    target.state = 'elicitation';
    return;
  }
  target.finishedAt = Date.now();
  if (outcome.status === 'task_created') {
    target.state = 'completed';
    target.task = outcome.task;
  } else if (outcome.status === 'completed') {
    target.state = 'completed';
    // Never changed once received, and may be megabytes: not made reactive, so no watcher walks it.
    target.result = markRaw(outcome.result);
    target.resultProblem = outcome.resultProblem;
  } else {
    target.state = 'cancelled';
  }
}

/** Marks the run failed with a sentence that says what happened; a 409 names the call that blocks it. */
export function failRun(target: Run, error: unknown): void {
  target.state = 'failed';
  target.finishedAt = Date.now();
  target.elicitation = undefined;
  if (error instanceof DaemonError && error.status === 409 && error.body.activeExecution) {
    target.blockedBy = error.body.activeExecution;
    const { toolName, serverId } = error.body.activeExecution;
    target.error = `Another tool call is running: "${toolName}" on ${serverId}. The daemon runs one call at a time; wait for it or cancel it.`;
  } else if (error instanceof DaemonError && error.unreachable) {
    target.unreachable = true;
    target.error = error.message;
  } else if (error instanceof DaemonError && error.status === 504) {
    target.error = `Timed out: ${error.message}`;
  } else {
    target.error = (error as Error).message;
  }
}

/**
 * Drives runs through the daemon: execute, answer an elicitation, cancel. The panel, the popup and
 * widgets each hold their runs (pass the reactive object, so changes after an await reach the view);
 * this is the one place that talks to `/tools/execute`, `/tools/respond` and `/tools/cancel`.
 */
export class ToolRunner {
  constructor(private readonly client: () => DaemonClient) {}

  /** Sends the run; it ends completed, cancelled, failed, or waiting in `elicitation`. */
  async execute(target: Run): Promise<void> {
    const { serverId, toolName, parameters } = target;
    try {
      settleRun(
        target,
        await this.client().execute({
          serverId,
          toolName,
          parameters: parameters ?? {},
          ...(target.runAsTask && { task: target.runAsTask }),
        }),
      );
    } catch (error) {
      failRun(target, error);
    }
  }

  /**
   * The daemon's call that waits for an answer someone was handed and has not given (a popup closed
   * over its question, a page reloaded), as a run in `elicitation` that `respond` can answer; else null.
   */
  async waiting(): Promise<Run | null> {
    let active;
    try {
      ({ activeExecution: active } = await this.client().activeExecution());
    } catch {
      return null;
    }
    if (!active?.elicitation) return null;
    return {
      serverId: active.serverId,
      toolName: active.toolName,
      startedAt: Date.now(),
      state: 'elicitation',
      executionId: active.id,
      elicitation: active.elicitation,
    };
  }

  /** Answers the run's elicitation; the daemon replies with the result or the next elicitation. */
  async respond(target: Run, response: ElicitationResponse): Promise<void> {
    const elicitation = target.elicitation;
    if (!elicitation) return;
    target.state = 'running';
    target.elicitation = undefined;
    try {
      settleRun(target, await this.client().respond(elicitation.requestId, response));
    } catch (error) {
      failRun(target, error);
    }
  }

  /**
   * Cancels the run, or the call that blocked it (409): answers `blocker` when that call was cancelled
   * (the caller drops the failed run), `run` when this one was, `none` when nothing was running.
   */
  async cancel(target: Run): Promise<'blocker' | 'run' | 'none'> {
    try {
      const client = this.client();
      const id =
        target.blockedBy?.id ?? target.executionId ?? (await client.activeExecution()).activeExecution?.id;
      if (!id) return 'none';
      await client.cancel(id);
      if (target.blockedBy) return 'blocker';
      // While an elicitation waits no request of ours is open to answer `cancelled`: settle it here.
      if (target.state === 'elicitation') settleRun(target, { status: 'cancelled', executionId: id });
      return 'run';
    } catch (error) {
      failRun(target, error);
      return 'none';
    }
  }

  /**
   * Runs to the end for a caller that wants the result itself (a widget's `callTool`): each
   * elicitation is put to `ask`, whose answer goes back to the daemon. Rejects with an Error when the
   * call fails or is cancelled.
   */
  async complete(
    target: Run,
    ask: (elicitation: ElicitationRequired) => Promise<ElicitationResponse>,
  ): Promise<JsonObject> {
    await this.execute(target);
    while (target.state === 'elicitation' && target.elicitation) {
      await this.respond(target, await ask(target.elicitation));
    }
    if (target.state === 'completed' && target.result) return target.result;
    if (target.state === 'cancelled') throw new Error(`The call of ${target.toolName} was cancelled`);
    throw new Error(target.error ?? `The call of ${target.toolName} failed`);
  }
}
