import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import type { RpcCallRound } from '../../shared/logs.ts';

/**
 * One request the daemon makes (a tool call, a listing…) as the log groups it. At 2026-07-28 the SDK
 * answers a server's `input_required` itself: it asks the daemon's handlers for the input, then sends
 * the request again with the answers under a new JSON-RPC id, one round after another, until the result
 * is complete. Nothing in those messages says they belong together (the server echoes `requestState`
 * only if it chose to send one), so the daemon runs each request in a context of its own, and every
 * request of the same method sent within it is the next round.
 */
export interface LogicalCall {
  readonly id: string;
  readonly method: string;
  rounds: number;
  /**
   * On a 2026-07-28 connection, the result of the call's latest response as the server sent it: the
   * SDK checks each result against the revision's schema and keeps only its complaint when it fails,
   * where the inspector shows the result anyway (server-connection.ts). Left unset at 2025-11-25.
   */
  sentResult: unknown;
  /**
   * The error code of the call's latest error response as the server sent it: the SDK rewrites some
   * (a resource-not-found `-32002` becomes `-32602`), where the inspector reports the server's own.
   */
  sentErrorCode?: unknown;
}

const calls = new AsyncLocalStorage<LogicalCall>();
/** Call ids are unique across daemon runs, so an exported log never mixes two daemons' calls. */
const PREFIX = randomBytes(3).toString('hex');
let lastCall = 0;

/** A new logical call of `method`: run the requests it makes with `withinCall`, which counts their rounds. */
export function logicalCall(method: string): LogicalCall {
  return { id: `${PREFIX}-${++lastCall}`, method, rounds: 0, sentResult: undefined };
}

/** The logical call the code runs for, if any. */
export function currentCall(): LogicalCall | undefined {
  return calls.getStore();
}

/** Runs `deliver` in a call's context: the SDK's next round is sent from the code that reads an answer. */
export function withinCall<T>(call: LogicalCall | undefined, deliver: () => T): T {
  return call ? calls.run(call, deliver) : deliver();
}

/** The round a request sent now opens, when it is one of the current call's own requests. */
export function nextRound(method: string): { call: LogicalCall; tag: RpcCallRound } | undefined {
  const call = calls.getStore();
  if (!call || call.method !== method) return undefined;
  call.rounds += 1;
  return { call, tag: { id: call.id, round: call.rounds } };
}
