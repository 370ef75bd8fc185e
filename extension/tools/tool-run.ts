import type { ElicitationRequired, ExecutionOutcome, JsonObject } from '../../shared/api';
import { DaemonError } from '../app/daemon-client';

/** One tool call as the panel and the popup show it. */
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
  error?: string;
  /** The latest progress notification of this call, from the live channel. */
  progress?: { progress: number; total?: number; message?: string };
  /** Set on a 409: the call that holds the daemon's lock. */
  blockedBy?: { id: string; serverId: string; toolName: string };
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
  if (outcome.status === 'completed') {
    target.state = 'completed';
    target.result = outcome.result;
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
  } else if (error instanceof DaemonError && error.status === 504) {
    target.error = `Timed out: ${error.message}`;
  } else {
    target.error = (error as Error).message;
  }
}
