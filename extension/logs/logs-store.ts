import { defineStore } from 'pinia';
import { computed, markRaw, reactive, ref, shallowRef, watch } from 'vue';
import { LogModel, rowEntries, type LogRow } from './log-pairing';
import type { RpcLogEntry } from '../../shared/logs';
import { useLiveStore } from '../app/live-store';
import { requireClient } from '../servers/servers-store';
import type { KeyValueStore } from '../app/key-value-store';
import { downloadJsonlFile, fileTime } from '../ui/download';

/** A server's connection ended at this point of the log (see `LogModel.endServer`). */
interface ConnectionEnd {
  endedServerId: string;
}

/** Rows kept; the oldest go first. */
export const MAX_LOG_ROWS = 100_000;
/** Live entries are added at most this often, so a burst costs one render per batch, not one per message. */
const BATCH_MS = 30;

/** Where the last Clear is kept: the daemon replays its log to a page that opens, the cleared part too. */
export const LOGS_CLEARED_KEY = 'logsClearedThrough';

/** The last entry the user cleared, in the daemon boot it belongs to: no entry up to it is shown again. */
export interface ClearedThrough {
  bootId: string;
  seq: number;
}

function clearedThroughOf(value: unknown): ClearedThrough | null {
  const { bootId, seq } = (value ?? {}) as Partial<Record<keyof ClearedThrough, unknown>>;
  return typeof bootId === 'string' && Number.isInteger(seq) ? { bootId, seq: seq as number } : null;
}

/**
 * The live JSON-RPC log of every server. The rows live in a plain `LogModel` (no deep reactivity over
 * 100,000 rows); `revision` changes whenever they do, and the getters below depend on it.
 */
export const useLogsStore = defineStore('logs', () => {
  const live = useLiveStore();
  const model = markRaw(new LogModel(MAX_LOG_ROWS));
  const revision = shallowRef(0);
  const paused = ref(false);
  /** Entries (and connection ends between them) that arrived while paused: shown on resume. */
  let buffer: Array<RpcLogEntry | ConnectionEnd> = [];
  const bufferedCount = ref(0);
  /** Servers to show; empty shows all. */
  const serverFilter = ref<string[]>([]);
  /** Case-insensitive substring of the method. */
  const methodFilter = ref('');

  const rowCount = computed(() => {
    void revision.value;
    return model.rowCount;
  });
  const visibleCount = computed(() => {
    void revision.value;
    return model.visibleCount;
  });

  watch(
    [serverFilter, methodFilter],
    ([serverIds, method]) => {
      model.setFilter({ serverIds, method: method.trim() });
      revision.value++;
    },
    { deep: true, flush: 'sync' },
  );

  // The live client already resumes without duplicates; this guards against a replay overlapping what
  // is shown. Sequence numbers grow within one daemon boot and restart with the next.
  let seenBootId: string | null = null;
  let lastSeq = 0;
  let clearedThrough: ClearedThrough | null = null;
  let store: KeyValueStore | undefined;

  /** Reads where the last Clear left off, before the live channel starts replaying (InspectorApp). */
  async function load(from: KeyValueStore): Promise<void> {
    store = from;
    try {
      clearedThrough = clearedThroughOf(await from.get<unknown>(LOGS_CLEARED_KEY)) ?? clearedThrough;
    } catch {
      // Unreadable storage: a reload shows the daemon's whole replay again, as before any Clear.
    }
  }
  live.on('rpc', (message) => receive(message.entry));
  // A server that exited, failed to start or was disconnected answers none of its waiting requests.
  live.on('server-status', ({ server }) => {
    if (server.status === 'error' || server.status === 'disconnected') endServer(server.id);
  });

  /** Told each new entry as it arrives, paused or not (the session recorder). */
  const listeners = new Set<(entry: RpcLogEntry) => void>();
  function onEntry(listener: (entry: RpcLogEntry) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** One entry from the live channel: skipped when its seq was already seen in this daemon boot. */
  let incoming: RpcLogEntry[] = [];
  let flushTimer: ReturnType<typeof setTimeout> | undefined;

  function receive(entry: RpcLogEntry): void {
    if (live.bootId !== seenBootId) {
      seenBootId = live.bootId;
      lastSeq = 0;
    }
    if (entry.seq <= lastSeq) return;
    lastSeq = entry.seq;
    if (clearedThrough && clearedThrough.bootId === live.bootId && entry.seq <= clearedThrough.seq) return;
    for (const listener of listeners) listener(entry);
    // A busy server sends thousands of messages a second: add them (and re-render) in batches.
    incoming.push(entry);
    flushTimer ??= setTimeout(flushIncoming, BATCH_MS);
  }

  function flushIncoming(): void {
    flushTimer = undefined;
    const entries = incoming;
    incoming = [];
    addEntries(entries);
  }

  /** Appends entries as given (no duplicate check); while paused they wait in the buffer. */
  function addEntries(entries: readonly RpcLogEntry[]): void {
    if (paused.value) {
      for (const entry of entries) buffer.push(entry);
      bufferedCount.value += entries.length;
      // Beyond twice the cap the oldest could never be shown: drop them in bulk.
      if (buffer.length > 2 * MAX_LOG_ROWS) buffer = buffer.slice(buffer.length - MAX_LOG_ROWS);
      return;
    }
    model.addAll(entries);
    revision.value++;
  }

  /**
   * The server's connection ended: its requests still waiting end as `failed`. Entries that came
   * before (the batch not yet shown, or the pause buffer) are placed first, so the order holds.
   */
  function endServer(serverId: string): void {
    if (flushTimer !== undefined) {
      clearTimeout(flushTimer);
      flushIncoming();
    }
    if (paused.value) {
      buffer.push({ endedServerId: serverId });
      return;
    }
    model.endServer(serverId);
    revision.value++;
  }

  function pause(): void {
    paused.value = true;
  }

  function resume(): void {
    paused.value = false;
    const waiting = buffer;
    buffer = [];
    bufferedCount.value = 0;
    for (const item of waiting) {
      if ('endedServerId' in item) model.endServer(item.endedServerId);
      else model.add(item);
    }
    revision.value++;
  }

  function togglePause(): void {
    if (paused.value) resume();
    else pause();
  }

  /**
   * Forgets the rows shown and those waiting in the pause buffer, for good: the daemon keeps its log and
   * replays it to a page that opens, so where the Clear left off is kept, and what came before is not
   * shown again (until the daemon restarts, which begins a new log).
   */
  function clear(): void {
    if (live.bootId !== null) {
      clearedThrough = { bootId: live.bootId, seq: seenBootId === live.bootId ? lastSeq : 0 };
      store?.set(LOGS_CLEARED_KEY, clearedThrough).catch(() => undefined);
    }
    model.clear();
    wholeLoads.clear();
    incoming = [];
    buffer = [];
    bufferedCount.value = 0;
    revision.value++;
  }

  /**
   * Entries the replay sent cut (shared/logs.ts `cut`) that are being fetched whole (`true`), or could not
   * be (what went wrong), by `cutKey`.
   */
  const wholeLoads = reactive(new Map<string, true | string>());
  const cutKey = (entry: RpcLogEntry): string => `${entry.cut?.bootId}:${entry.seq}`;

  /** Where fetching a cut entry whole stands: under way (`true`), failed (why), or not begun. */
  function wholeLoad(entry: RpcLogEntry): true | string | undefined {
    return wholeLoads.get(cutKey(entry));
  }

  /** Fetches a cut entry whole and puts it in its row. */
  async function loadWhole(cut: RpcLogEntry): Promise<void> {
    const key = cutKey(cut);
    if (!cut.cut || wholeLoads.get(key) === true) return;
    wholeLoads.set(key, true);
    try {
      const { entry } = await requireClient().logEntry(cut.seq, cut.cut.bootId);
      if (model.fillIn(cut, entry)) revision.value++;
      wholeLoads.delete(key);
    } catch (error) {
      wholeLoads.set(key, (error as Error).message);
    }
  }

  /** The row at `index` of the filtered view. */
  function visibleAt(index: number): LogRow | undefined {
    void revision.value;
    return model.visibleAt(index);
  }

  /**
   * How the row at `index` of the filtered view sits in a call of several rounds: `start` for the first
   * row of the call's run of rows (the row above is not of it), `in` for the others, undefined outside one.
   * Two calls one after the other are two runs, not one.
   */
  function callRun(index: number): 'start' | 'in' | undefined {
    const round = visibleAt(index)?.round;
    if (!round || round.rounds < 2) return undefined;
    const above = index > 0 ? visibleAt(index - 1)?.round : undefined;
    return above?.call === round.call && above.rounds > 1 ? 'in' : 'start';
  }

  /** The raw entries of the filtered view, one JSON object per line, requests before their responses. */
  function exportJsonl(): string {
    void revision.value;
    const lines: string[] = [];
    for (let i = 0; i < model.visibleCount; i++) {
      const row = model.visibleAt(i);
      if (row) for (const entry of rowEntries(row)) lines.push(JSON.stringify(entry));
    }
    return lines.length ? `${lines.join('\n')}\n` : '';
  }

  function downloadJsonl(): void {
    downloadJsonlFile(`mcp-rpc-log-${fileTime()}.jsonl`, exportJsonl());
  }

  return {
    /** The rows themselves, not reactive: read them where tracking each read would cost (list keys). */
    model,
    revision,
    paused,
    bufferedCount,
    serverFilter,
    methodFilter,
    rowCount,
    visibleCount,
    load,
    receive,
    onEntry,
    addEntries,
    endServer,
    pause,
    resume,
    togglePause,
    clear,
    visibleAt,
    callRun,
    wholeLoad,
    loadWhole,
    exportJsonl,
    downloadJsonl,
  };
});
