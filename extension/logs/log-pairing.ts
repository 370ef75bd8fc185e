/**
 * Display rows of the live JSON-RPC log, built incrementally: each request is paired with its response
 * (same server, same id, opposite direction) and its latency; notifications, stderr lines and responses
 * whose request is gone show as rows of their own. Appending an entry costs O(1) amortised, so the log
 * view stays smooth at 100,000 rows; only a filter change re-scans the rows.
 *
 * A request ends in one of four states: `ok` or `error` by its response; `cancelled` once a
 * `notifications/cancelled` names its id (sent the same way as the request; a late response is still
 * paired, the row stays cancelled); `failed` when it can no longer be answered: an `initialize` answered
 * with an error, or any request still waiting when its server's connection ended (the server exited,
 * was disconnected, or a new `initialize` started another connection).
 *
 * The requests of one logical call (the daemon tags them, see shared/logs.ts `call`) are grouped: at
 * 2026-07-28 a server may answer `input_required`, and the client sends the request again, under a new
 * id, with what it asked for. Each round's row knows its number and how many rounds the call has had.
 */
import type { RpcLogEntry, RpcMessageEntry } from '../../shared/logs.ts';
import { callLabel } from './log-notes.ts';

export type LogRowKind = 'request' | 'notification' | 'stderr' | 'response';
export type LogRowStatus = 'pending' | 'ok' | 'error' | 'cancelled' | 'failed';
export type JsonRpcId = string | number;

/** A request's place in its logical call. */
export interface LogRound {
  call: string;
  /** From 1. */
  round: number;
  /** Rounds of the call so far: the rows of earlier rounds are updated as more come. */
  rounds: number;
  /** The call's method and the tool, prompt or resource it names, e.g. `tools/call ask`. */
  label: string;
}

export interface LogRow {
  /** Unique for the model's lifetime and kept when the response arrives: a stable list key. */
  key: number;
  kind: LogRowKind;
  serverId: string;
  /** Direction of the row's first entry: `receive` for a request the server sent (elicitation, sampling). */
  direction: RpcLogEntry['direction'];
  timestamp: string;
  /** The method of a request or notification; undefined for stderr lines and orphan responses. */
  method?: string;
  id?: JsonRpcId | null;
  /** The request, notification, stderr line or orphan response. */
  entry: RpcLogEntry;
  /** A request's response once it arrived. */
  response?: RpcMessageEntry;
  /** Requests and responses only. */
  status?: LogRowStatus;
  /** Time from request to response; requests with a response only. */
  latencyMs?: number;
  /** A request the daemon sent as a round of a logical call. */
  round?: LogRound;
}

export interface LogFilter {
  /** Servers to show; empty shows every server. */
  serverIds: readonly string[];
  /** Case-insensitive substring of the method; a response matches through its request's method. */
  method: string;
}

export const NO_FILTER: LogFilter = { serverIds: [], method: '' };

/** An array that drops from the front in O(1) amortised: dropped slots are compacted away in bulk. */
class Window<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  at(index: number): T | undefined {
    return index >= 0 && index < this.length ? this.items[this.head + index] : undefined;
  }

  set(index: number, value: T): void {
    this.items[this.head + index] = value;
  }

  push(value: T): void {
    this.items.push(value);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const value = this.items[this.head++];
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return value;
  }

  toArray(): T[] {
    return this.items.slice(this.head);
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || typeof value === 'number';
}

/** Where a request waits for its response: `1` and `"1"` are different JSON-RPC ids. */
function pendingKey(serverId: string, id: JsonRpcId, requestDirection: 'send' | 'receive'): string {
  return `${serverId}:${JSON.stringify(id)}:${requestDirection}`;
}

function statusOf(message: Record<string, unknown>): LogRowStatus {
  return message.error !== undefined ? 'error' : 'ok';
}

/** A request's status once its response came: a refused `initialize` means no connection at all. */
function answeredStatus(request: LogRow, message: Record<string, unknown>): LogRowStatus {
  if (request.status === 'cancelled') return 'cancelled';
  const status = statusOf(message);
  return status === 'error' && request.method === 'initialize' ? 'failed' : status;
}

const CANCELLED = 'notifications/cancelled';

/** Logical calls whose rounds are still grouped: one this old has long had all its rounds. */
const MAX_CALLS = 1000;

interface CallRows {
  label: string;
  rounds: number;
  /** Absolute indexes of its request rows. */
  rows: number[];
}

/** The raw entries a row stands for, in arrival order. */
export function rowEntries(row: LogRow): RpcLogEntry[] {
  return row.response ? [row.entry, row.response] : [row.entry];
}

export class LogModel {
  private readonly all = new Window<LogRow>();
  /** Absolute indexes (see `dropped`) of the rows that match the filter, ascending. */
  private readonly visible = new Window<number>();
  /** Requests waiting for their response, by `pendingKey`, as absolute row indexes. */
  private readonly pending = new Map<string, number>();
  /** Recent logical calls by id, oldest first. */
  private readonly calls = new Map<string, CallRows>();
  /** Rows dropped from the front so far: row `i` of `all` has absolute index `dropped + i`. */
  private dropped = 0;
  private nextKey = 1;
  private currentFilter: LogFilter = NO_FILTER;
  private methodNeedle = '';

  constructor(readonly maxRows = 100_000) {}

  get filter(): LogFilter {
    return this.currentFilter;
  }

  /** Rows held, filtered or not. */
  get rowCount(): number {
    return this.all.length;
  }

  get visibleCount(): number {
    return this.visible.length;
  }

  rowAt(index: number): LogRow | undefined {
    return this.all.at(index);
  }

  visibleAt(index: number): LogRow | undefined {
    const absolute = this.visible.at(index);
    return absolute === undefined ? undefined : this.all.at(absolute - this.dropped);
  }

  get rows(): LogRow[] {
    return this.all.toArray();
  }

  get visibleRows(): LogRow[] {
    return this.visible.toArray().map((absolute) => this.all.at(absolute - this.dropped) as LogRow);
  }

  add(entry: RpcLogEntry): void {
    // A server's output line: stderr, a stdout line that is not JSON-RPC, or the start of an event that
    // is no JSON-RPC message; shown as it came.
    if (entry.direction === 'stderr' || entry.direction === 'stdout' || entry.direction === 'event') {
      this.push({ kind: 'stderr', entry });
      return;
    }
    const { message, serverId, direction } = entry;
    const method = typeof message.method === 'string' ? message.method : undefined;
    const id = message.id;
    if (method !== undefined) {
      if (!isId(id)) {
        this.push({ kind: 'notification', entry, method });
        if (method === CANCELLED) this.cancel(serverId, direction, message.params);
        return;
      }
      // A new connection: what the last one left unanswered will never be answered now.
      if (method === 'initialize' && direction === 'send') this.endServer(serverId);
      const joined = direction === 'send' ? this.joinCall(entry) : undefined;
      const absolute = this.push({
        kind: 'request',
        entry,
        method,
        id,
        status: 'pending',
        ...(joined && { round: joined.round }),
      });
      joined?.call.rows.push(absolute);
      // A reused id (a reconnected server starts again at 0) answers the newest request.
      this.pending.set(pendingKey(serverId, id, direction), absolute);
      return;
    }
    if (isId(id)) {
      const key = pendingKey(serverId, id, direction === 'send' ? 'receive' : 'send');
      const absolute = this.pending.get(key);
      const request = absolute === undefined ? undefined : this.all.at(absolute - this.dropped);
      if (absolute !== undefined && request) {
        this.pending.delete(key);
        // A new object, so views holding the old one see the change.
        this.all.set(absolute - this.dropped, {
          ...request,
          response: entry,
          status: answeredStatus(request, message),
          latencyMs: Date.parse(entry.timestamp) - Date.parse(request.timestamp),
        });
        return;
      }
    }
    this.push({ kind: 'response', entry, id: isId(id) ? id : null, status: statusOf(message) });
  }

  /**
   * The server's connection ended (it exited, failed to start or was disconnected): its requests still
   * waiting become `failed`. A response that comes anyway shows as a row of its own.
   */
  endServer(serverId: string): void {
    for (const [key, absolute] of this.pending) {
      const row = this.all.at(absolute - this.dropped);
      if (!row || row.serverId !== serverId) continue;
      this.pending.delete(key);
      if (row.status === 'pending') this.all.set(absolute - this.dropped, { ...row, status: 'failed' });
    }
  }

  /**
   * The round a request opens in its logical call. When it makes the call longer, the rows of the
   * earlier rounds (those still held) are told how many rounds there are now.
   */
  private joinCall(entry: RpcMessageEntry): { call: CallRows; round: LogRound } | undefined {
    const tag = entry.call;
    if (!tag || typeof tag.id !== 'string' || !Number.isSafeInteger(tag.round) || tag.round < 1) {
      return undefined;
    }
    let call = this.calls.get(tag.id);
    if (!call) {
      call = { label: callLabel(entry.message), rounds: 0, rows: [] };
      this.calls.set(tag.id, call);
      if (this.calls.size > MAX_CALLS) this.calls.delete(this.calls.keys().next().value as string);
    }
    if (tag.round > call.rounds) {
      call.rounds = tag.round;
      for (const absolute of call.rows) {
        const row = this.all.at(absolute - this.dropped);
        if (row?.round)
          this.all.set(absolute - this.dropped, { ...row, round: { ...row.round, rounds: call.rounds } });
      }
    }
    return { call, round: { call: tag.id, round: tag.round, rounds: call.rounds, label: call.label } };
  }

  addAll(entries: Iterable<RpcLogEntry>): void {
    for (const entry of entries) this.add(entry);
  }

  /** `notifications/cancelled` for `params.requestId`: the request sent the same way is cancelled. */
  private cancel(serverId: string, direction: 'send' | 'receive', params: unknown): void {
    const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
    if (!isId(requestId)) return;
    const absolute = this.pending.get(pendingKey(serverId, requestId, direction));
    const row = absolute === undefined ? undefined : this.all.at(absolute - this.dropped);
    // Kept waiting: a response that comes after all still pairs with it.
    if (absolute !== undefined && row) this.all.set(absolute - this.dropped, { ...row, status: 'cancelled' });
  }

  /** Shows only the rows that match; O(rows). */
  setFilter(filter: LogFilter): void {
    this.currentFilter = { serverIds: [...filter.serverIds], method: filter.method };
    this.methodNeedle = filter.method.toLowerCase();
    this.visible.clear();
    for (let i = 0; i < this.all.length; i++) {
      if (this.matches(this.all.at(i) as LogRow)) this.visible.push(this.dropped + i);
    }
  }

  /**
   * Puts an entry fetched whole in place of the cut one the replay sent (shared/logs.ts `cut`), in the
   * row that holds it; false when no row does any longer. O(rows), from the newest.
   */
  fillIn(cut: RpcLogEntry, whole: RpcLogEntry): boolean {
    for (let i = this.all.length - 1; i >= 0; i--) {
      const row = this.all.at(i) as LogRow;
      if (row.entry === cut) {
        this.all.set(i, { ...row, entry: whole });
        return true;
      }
      if (row.response === cut && (whole.direction === 'send' || whole.direction === 'receive')) {
        this.all.set(i, { ...row, response: whole });
        return true;
      }
    }
    return false;
  }

  clear(): void {
    this.dropped += this.all.length;
    this.all.clear();
    this.visible.clear();
    this.pending.clear();
    this.calls.clear();
  }

  private matches(row: LogRow): boolean {
    const { serverIds } = this.currentFilter;
    if (serverIds.length > 0 && !serverIds.includes(row.serverId)) return false;
    return !this.methodNeedle || (row.method?.toLowerCase().includes(this.methodNeedle) ?? false);
  }

  /** Appends a row, drops the oldest beyond `maxRows`, and returns the new row's absolute index. */
  private push(fields: Omit<LogRow, 'key' | 'serverId' | 'direction' | 'timestamp'>): number {
    const { entry } = fields;
    const row: LogRow = {
      key: this.nextKey++,
      serverId: entry.serverId,
      direction: entry.direction,
      timestamp: entry.timestamp,
      ...fields,
    };
    const absolute = this.dropped + this.all.length;
    this.all.push(row);
    if (this.matches(row)) this.visible.push(absolute);
    while (this.all.length > this.maxRows) this.dropOldest();
    return absolute;
  }

  private dropOldest(): void {
    const row = this.all.shift();
    const absolute = this.dropped++;
    if (this.visible.at(0) === absolute) this.visible.shift();
    if (row?.kind === 'request' && (row.status === 'pending' || row.status === 'cancelled') && isId(row.id)) {
      const key = pendingKey(row.serverId, row.id, row.direction === 'receive' ? 'receive' : 'send');
      // Its response, if it ever comes, shows alone.
      if (this.pending.get(key) === absolute) this.pending.delete(key);
    }
  }
}
