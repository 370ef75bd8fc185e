import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { RpcLogEntry } from '../../shared/logs';
import { useLiveStore } from '../../extension/app/live-store';
import { LOGS_CLEARED_KEY, MAX_LOG_ROWS, useLogsStore } from '../../extension/logs/logs-store';
import { localStorageStore } from '../../extension/app/key-value-store';

function entry(seq: number, body: Record<string, unknown>, serverId = 'a', ms = 0): RpcLogEntry {
  const direction = 'method' in body ? 'send' : 'receive';
  const timestamp = new Date(Date.UTC(2025, 0, 1) + ms).toISOString();
  return { type: 'rpc', seq, serverId, direction, timestamp, message: { jsonrpc: '2.0', ...body } };
}

function methods(): Array<string | undefined> {
  const logs = useLogsStore();
  return Array.from({ length: logs.visibleCount }, (_, i) => logs.visibleAt(i)?.method);
}

beforeEach(() => {
  setActivePinia(createPinia());
});

describe('logs store', () => {
  it('ignores an entry whose seq was already seen in the same daemon boot', () => {
    vi.useFakeTimers();
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const live = useLiveStore();
    const logs = useLogsStore();
    live.bootId = 'boot-1';
    logs.receive(entry(1, { id: 1, method: 'initialize' }));
    logs.receive(entry(2, { id: 2, method: 'tools/list' }));
    logs.receive(entry(2, { id: 2, method: 'tools/list' }));
    logs.receive(entry(1, { id: 1, method: 'initialize' }));
    vi.runAllTimers();
    expect(methods()).toEqual(['initialize', 'tools/list']);
    // A restarted daemon numbers from 1 again.
    live.bootId = 'boot-2';
    logs.receive(entry(1, { id: 1, method: 'ping' }));
    vi.runAllTimers();
    expect(methods()).toEqual(['initialize', 'tools/list', 'ping']);
  });

  it('adds a burst of live entries in one batch, so the view renders once for it', () => {
    vi.useFakeTimers();
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const live = useLiveStore();
    const logs = useLogsStore();
    live.bootId = 'boot-1';
    const before = logs.revision;
    for (let seq = 1; seq <= 500; seq++) logs.receive(entry(seq, { method: 'notifications/progress' }));
    expect(logs.rowCount).toBe(0);
    vi.runAllTimers();
    expect(logs.rowCount).toBe(500);
    expect(logs.revision).toBe(before + 1);
  });

  it('buffers and counts entries while paused, and shows them on resume', () => {
    const logs = useLogsStore();
    logs.addEntries([entry(1, { id: 1, method: 'tools/call' })]);
    logs.pause();
    logs.addEntries([entry(2, { id: 1, result: {} }, 'a', 12), entry(3, { method: 'notifications/x' })]);
    expect(logs.paused).toBe(true);
    expect(logs.bufferedCount).toBe(2);
    expect(logs.visibleAt(0)?.status).toBe('pending');
    logs.togglePause();
    expect(logs.paused).toBe(false);
    expect(logs.bufferedCount).toBe(0);
    expect(methods()).toEqual(['tools/call', 'notifications/x']);
    expect(logs.visibleAt(0)?.latencyMs).toBe(12);
  });

  it('fails the waiting requests of a server whose connection ended, in order with a paused buffer', () => {
    const logs = useLogsStore();
    logs.addEntries([
      entry(1, { id: 0, method: 'initialize' }),
      entry(2, { id: 0, method: 'initialize' }, 'b'),
    ]);
    logs.pause();
    logs.addEntries([entry(3, { id: 1, method: 'ping' })]);
    logs.endServer('a');
    // Still paused: nothing shown changes until resume.
    expect(logs.visibleAt(0)?.status).toBe('pending');
    logs.addEntries([entry(4, { id: 2, method: 'tools/list' })]);
    logs.resume();
    const statuses = Array.from({ length: logs.visibleCount }, (_, i) => {
      const row = logs.visibleAt(i);
      return `${row?.serverId} ${row?.method} ${row?.status}`;
    });
    // The request after the end belongs to the next connection and still waits.
    expect(statuses).toEqual([
      'a initialize failed',
      'b initialize pending',
      'a ping failed',
      'a tools/list pending',
    ]);
  });

  it('clears the rows and the pause buffer', () => {
    const logs = useLogsStore();
    logs.addEntries([entry(1, { id: 1, method: 'a' })]);
    logs.pause();
    logs.addEntries([entry(2, { id: 2, method: 'b' })]);
    logs.clear();
    logs.resume();
    expect(logs.rowCount).toBe(0);
    expect(logs.bufferedCount).toBe(0);
  });

  it('keeps a Clear across a reload: what the daemon replays up to it is not shown again', async () => {
    localStorage.clear();
    const storage = localStorageStore();
    let live = useLiveStore();
    let logs = useLogsStore();
    await logs.load(storage);
    live.bootId = 'boot-1';
    logs.receive(entry(1, { id: 1, method: 'initialize' }));
    logs.receive(entry(2, { id: 2, method: 'tools/list' }));
    await vi.waitFor(() => expect(methods()).toEqual(['initialize', 'tools/list']));
    logs.clear();
    expect(logs.rowCount).toBe(0);
    await vi.waitFor(async () =>
      expect(await storage.get(LOGS_CLEARED_KEY)).toEqual({ bootId: 'boot-1', seq: 2 }),
    );

    // A new page (the panel reloaded): the same storage, and the daemon replays its log from the start.
    setActivePinia(createPinia());
    live = useLiveStore();
    logs = useLogsStore();
    await logs.load(storage);
    live.bootId = 'boot-1';
    logs.receive(entry(1, { id: 1, method: 'initialize' }));
    logs.receive(entry(2, { id: 2, method: 'tools/list' }));
    logs.receive(entry(3, { id: 3, method: 'ping' }));
    await vi.waitFor(() => expect(methods()).toEqual(['ping']));
    // A restarted daemon begins a new log: a Clear of the old one does not hide it.
    live.bootId = 'boot-2';
    logs.receive(entry(1, { id: 1, method: 'initialize' }));
    await vi.waitFor(() => expect(methods()).toEqual(['ping', 'initialize']));
  });

  it('filters by server and method as soon as the filters change', () => {
    const logs = useLogsStore();
    logs.addEntries([
      entry(1, { id: 1, method: 'tools/call' }, 'a'),
      entry(2, { id: 1, method: 'tools/call' }, 'b'),
      entry(3, { id: 2, method: 'resources/read' }, 'b'),
    ]);
    logs.serverFilter = ['b'];
    expect(logs.visibleCount).toBe(2);
    logs.methodFilter = ' Read ';
    expect(methods()).toEqual(['resources/read']);
    logs.serverFilter = [];
    logs.methodFilter = '';
    expect(logs.visibleCount).toBe(3);
    expect(logs.rowCount).toBe(3);
  });

  it('exports the raw entries in view order as JSON lines, requests before their responses', () => {
    const logs = useLogsStore();
    const entries = [
      entry(1, { id: 1, method: 'tools/call' }, 'a'),
      entry(2, { id: 1, method: 'tools/list' }, 'b'),
      entry(3, { id: 1, result: { content: [] } }, 'a'),
    ];
    logs.addEntries(entries);
    const lines = logs.exportJsonl().trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual([entries[0], entries[2], entries[1]]);
    logs.serverFilter = ['b'];
    expect(logs.exportJsonl()).toBe(`${JSON.stringify(entries[1])}\n`);
    logs.serverFilter = ['nobody'];
    expect(logs.exportJsonl()).toBe('');
  });

  it(`keeps at most ${MAX_LOG_ROWS} rows when entries come in bulk`, () => {
    const logs = useLogsStore();
    const entries = Array.from({ length: MAX_LOG_ROWS + 500 }, (_, i) =>
      entry(i + 1, { method: 'notifications/message', params: { n: i } }),
    );
    logs.addEntries(entries);
    expect(logs.rowCount).toBe(MAX_LOG_ROWS);
    expect(logs.visibleAt(0)?.entry).toBe(entries[500]);
    expect(logs.visibleAt(MAX_LOG_ROWS - 1)?.entry).toBe(entries.at(-1));
  });
});
