import { describe, expect, it } from 'vitest';
import { LogModel, rowEntries, type LogRow } from '../../extension/logs/log-pairing';
import type { RpcLogEntry, RpcMessageEntry } from '../../shared/logs';

const T0 = Date.parse('2025-01-01T10:00:00.000Z');
let seq = 0;

function at(ms: number): string {
  return new Date(T0 + ms).toISOString();
}

function message(
  serverId: string,
  direction: 'send' | 'receive',
  body: Record<string, unknown>,
  ms = 0,
): RpcMessageEntry {
  return {
    type: 'rpc',
    seq: ++seq,
    serverId,
    direction,
    timestamp: at(ms),
    message: { jsonrpc: '2.0', ...body },
  };
}

function request(serverId: string, id: string | number, method: string, ms = 0): RpcMessageEntry {
  return message(serverId, 'send', { id, method, params: {} }, ms);
}

function response(serverId: string, id: string | number | null, ms = 0, error = false): RpcMessageEntry {
  const body = error ? { id, error: { code: -32601, message: 'Method not found' } } : { id, result: {} };
  return message(serverId, 'receive', body, ms);
}

function stderr(serverId: string, line: string, ms = 0): RpcLogEntry {
  return { type: 'rpc', seq: ++seq, serverId, direction: 'stderr', timestamp: at(ms), message: line };
}

function summary(rows: LogRow[]): string[] {
  return rows.map((row) =>
    [row.kind, row.serverId, row.method ?? '-', row.id ?? '-', row.status ?? '-', row.latencyMs ?? '-'].join(
      ' ',
    ),
  );
}

function modelWith(entries: RpcLogEntry[], maxRows?: number): LogModel {
  const model = new LogModel(maxRows);
  model.addAll(entries);
  return model;
}

describe('LogModel pairing', () => {
  it('pairs a request with its response on the same row, with the latency from the timestamps', () => {
    const req = request('a', 1, 'tools/list', 0);
    const res = response('a', 1, 42);
    const model = modelWith([req, res]);
    expect(summary(model.rows)).toEqual(['request a tools/list 1 ok 42']);
    expect(model.rows[0]?.entry).toBe(req);
    expect(model.rows[0]?.response).toBe(res);
    expect(rowEntries(model.rows[0] as LogRow)).toEqual([req, res]);
  });

  it('keeps a request pending until its response arrives, under the same row key', () => {
    const model = modelWith([request('a', 7, 'tools/call')]);
    const before = model.rows[0] as LogRow;
    expect(summary(model.rows)).toEqual(['request a tools/call 7 pending -']);
    model.add(response('a', 7, 5));
    expect(model.rows[0]).not.toBe(before);
    expect(model.rows[0]?.key).toBe(before.key);
    expect(summary(model.rows)).toEqual(['request a tools/call 7 ok 5']);
  });

  it('marks an error response as an error', () => {
    const model = modelWith([request('a', 1, 'nope'), response('a', 1, 3, true)]);
    expect(summary(model.rows)).toEqual(['request a nope 1 error 3']);
  });

  it('pairs by server and by exact id: the same id on another server, or "1" for 1, is another request', () => {
    const model = modelWith([
      request('a', 1, 'tools/list', 0),
      request('b', 1, 'prompts/list', 1),
      request('a', '1', 'resources/list', 2),
      response('b', 1, 10),
      response('a', '1', 20),
      response('a', 1, 30),
    ]);
    expect(summary(model.rows)).toEqual([
      'request a tools/list 1 ok 30',
      'request b prompts/list 1 ok 9',
      'request a resources/list 1 ok 18',
    ]);
    expect(model.rows[2]?.id).toBe('1');
  });

  it('pairs a request the server sent (elicitation) with the response the client sent', () => {
    const ask = message('a', 'receive', { id: 0, method: 'elicitation/create', params: {} }, 0);
    const answer = message('a', 'send', { id: 0, result: { action: 'accept' } }, 1500);
    // A client request with the same id is a different exchange.
    const model = modelWith([request('a', 0, 'tools/call', 0), ask, answer, response('a', 0, 2000)]);
    expect(summary(model.rows)).toEqual([
      'request a tools/call 0 ok 2000',
      'request a elicitation/create 0 ok 1500',
    ]);
    expect(model.rows[1]?.direction).toBe('receive');
  });

  it('answers the newest request when an id is reused', () => {
    const model = modelWith([request('a', 0, 'initialize', 0), request('a', 0, 'initialize', 100)]);
    model.add(response('a', 0, 150));
    // The first connection's initialize can no longer be answered.
    expect(summary(model.rows)).toEqual(['request a initialize 0 failed -', 'request a initialize 0 ok 50']);
  });

  it('shows notifications and stderr lines as rows of their own, in arrival order', () => {
    const model = modelWith([
      request('a', 1, 'tools/call', 0),
      message('a', 'receive', { method: 'notifications/progress', params: { progress: 1 } }, 1),
      stderr('a', 'debug: working', 2),
      message('a', 'send', { method: 'notifications/cancelled', params: {} }, 3),
      response('a', 1, 4),
    ]);
    expect(summary(model.rows)).toEqual([
      'request a tools/call 1 ok 4',
      'notification a notifications/progress - - -',
      'stderr a - - - -',
      'notification a notifications/cancelled - - -',
    ]);
    expect(model.rows[2]?.entry.message).toBe('debug: working');
    expect(model.rows[3]?.direction).toBe('send');
  });

  it('shows a response whose request is not in the buffer alone', () => {
    const model = modelWith([response('a', 9, 0), response('a', null, 1, true)]);
    expect(summary(model.rows)).toEqual(['response a - 9 ok -', 'response a - - error -']);
  });

  it('shows a second response to the same request alone', () => {
    const model = modelWith([request('a', 1, 'ping', 0), response('a', 1, 1), response('a', 1, 2)]);
    expect(summary(model.rows)).toEqual(['request a ping 1 ok 1', 'response a - 1 ok -']);
  });

  it('gives every row a distinct key', () => {
    const model = modelWith([request('a', 1, 'x'), stderr('a', 'l'), response('a', 2)]);
    expect(new Set(model.rows.map((row) => row.key)).size).toBe(3);
  });
});

describe('LogModel filters', () => {
  const entries = (): RpcLogEntry[] => [
    request('a', 1, 'tools/call', 0),
    request('b', 1, 'resources/read', 0),
    message('a', 'receive', { method: 'notifications/tools/list_changed' }, 1),
    stderr('b', 'oops', 2),
    response('a', 1, 3),
    response('b', 5, 4),
  ];

  it('shows everything without a filter', () => {
    const model = modelWith(entries());
    expect(model.visibleCount).toBe(5);
    expect(model.visibleRows).toEqual(model.rows);
  });

  it('filters by server ids', () => {
    const model = modelWith(entries());
    model.setFilter({ serverIds: ['b'], method: '' });
    expect(summary(model.visibleRows)).toEqual([
      'request b resources/read 1 pending -',
      'stderr b - - - -',
      'response b - 5 ok -',
    ]);
    model.setFilter({ serverIds: ['a', 'b'], method: '' });
    expect(model.visibleCount).toBe(5);
  });

  it('filters by a case-insensitive substring of the method; a response matches through its request', () => {
    const model = modelWith(entries());
    model.setFilter({ serverIds: [], method: 'TOOLS' });
    expect(summary(model.visibleRows)).toEqual([
      'request a tools/call 1 ok 3',
      'notification a notifications/tools/list_changed - - -',
    ]);
    expect(model.visibleAt(0)?.response?.message).toMatchObject({ result: {} });
  });

  it('applies the filter to entries appended later, and a response updates its visible request', () => {
    const model = new LogModel();
    model.setFilter({ serverIds: ['a'], method: 'call' });
    model.addAll([request('a', 1, 'tools/call', 0), request('b', 2, 'tools/call', 0), stderr('a', 'x')]);
    model.add(request('a', 3, 'tools/list', 0));
    model.add(response('a', 1, 8));
    expect(summary(model.visibleRows)).toEqual(['request a tools/call 1 ok 8']);
    expect(model.rowCount).toBe(4);
  });

  it('combines both filters and reads by index', () => {
    const model = modelWith(entries());
    model.setFilter({ serverIds: ['b'], method: 'read' });
    expect(model.visibleCount).toBe(1);
    expect(model.visibleAt(0)?.method).toBe('resources/read');
    expect(model.visibleAt(1)).toBeUndefined();
    expect(model.visibleAt(-1)).toBeUndefined();
  });

  it('clears rows, filtered rows and waiting requests', () => {
    const model = modelWith([request('a', 1, 'tools/call')]);
    model.clear();
    expect(model.rowCount).toBe(0);
    expect(model.visibleCount).toBe(0);
    model.add(response('a', 1, 1));
    expect(summary(model.rows)).toEqual(['response a - 1 ok -']);
  });
});

describe('LogModel bounds', () => {
  it('keeps at most maxRows rows, dropping the oldest, and keeps the filter in step', () => {
    const model = new LogModel(3);
    model.setFilter({ serverIds: [], method: 'keep' });
    for (let i = 0; i < 10; i++) model.add(request('a', i, i % 2 ? 'keep' : 'drop'));
    expect(model.rows.map((row) => row.id)).toEqual([7, 8, 9]);
    expect(model.visibleRows.map((row) => row.id)).toEqual([7, 9]);
    expect(model.visibleAt(1)?.id).toBe(9);
  });

  it('shows the response of a dropped request alone', () => {
    const model = new LogModel(2);
    model.addAll([request('a', 1, 'tools/call'), request('a', 2, 'ping'), request('a', 3, 'ping')]);
    model.add(response('a', 1, 5));
    expect(summary(model.rows)).toEqual(['request a ping 3 pending -', 'response a - 1 ok -']);
  });

  it('pairs, filters and bounds 100,000 appended entries correctly', () => {
    const model = new LogModel(100_000);
    model.setFilter({ serverIds: ['s1'], method: '' });
    const total = 150_000;
    for (let i = 0; i < total; i++) {
      const server = `s${i % 3}`;
      model.add(request(server, i, 'tools/call', i));
      model.add(response(server, i, i + 7));
      if (i % 10 === 0) model.add(stderr(server, `line ${i}`, i));
    }
    const rows = total + total / 10;
    expect(model.rowCount).toBe(100_000);
    const kept = model.rows;
    expect(kept.every((row) => row.kind === 'stderr' || (row.status === 'ok' && row.latencyMs === 7))).toBe(
      true,
    );
    expect(kept.at(-1)?.id).toBe(total - 1);
    expect(model.rows[0]?.key).toBe(rows - 100_000 + 1);
    const visible = model.visibleRows;
    expect(visible.length).toBe(model.visibleCount);
    expect(visible.every((row) => row.serverId === 's1')).toBe(true);
    expect(visible.length).toBe(kept.filter((row) => row.serverId === 's1').length);
    expect(model.visibleAt(model.visibleCount - 1)).toBe(visible.at(-1));
    model.setFilter({ serverIds: [], method: 'TOOLS/' });
    expect(model.visibleCount).toBe(kept.filter((row) => row.kind === 'request').length);
  });
});

describe('how a request ends besides its response', () => {
  const cancelled = (serverId: string, requestId: string | number, direction: 'send' | 'receive' = 'send') =>
    message(serverId, direction, { method: 'notifications/cancelled', params: { requestId, reason: 'x' } });

  it('marks a request cancelled by notifications/cancelled for its id, and keeps a late answer paired', () => {
    const model = new LogModel();
    model.addAll([request('a', 2, 'tools/call'), request('a', 3, 'tools/call'), cancelled('a', 2)]);
    expect(model.rows.map((r) => [r.method, r.status])).toEqual([
      ['tools/call', 'cancelled'],
      ['tools/call', 'pending'],
      ['notifications/cancelled', undefined],
    ]);
    model.add(response('a', 2, 40));
    expect(model.rows[0]).toMatchObject({ status: 'cancelled', latencyMs: 40 });
    expect(model.rows[0]!.response).toBeDefined();
    expect(model.rowCount).toBe(3);
  });

  it('cancels only the request sent the same way, on the same server, with the same id', () => {
    const model = new LogModel();
    const fromServer = message('a', 'receive', { id: 2, method: 'elicitation/create', params: {} });
    model.addAll([request('a', 2, 'tools/call'), fromServer, request('b', 2, 'tools/call')]);
    model.addAll([cancelled('a', '2'), cancelled('a', 2, 'receive')]);
    expect(model.rows.slice(0, 3).map((r) => r.status)).toEqual(['pending', 'cancelled', 'pending']);
  });

  it('marks an initialize answered with an error failed, and another request refused as error', () => {
    const model = new LogModel();
    model.addAll([request('a', 0, 'initialize'), response('a', 0, 5, true)]);
    model.addAll([request('b', 4, 'tools/call'), response('b', 4, 5, true)]);
    expect(model.rows.map((r) => [r.method, r.status])).toEqual([
      ['initialize', 'failed'],
      ['tools/call', 'error'],
    ]);
  });

  it("fails a server's waiting requests when its connection ends, and no one else's", () => {
    const model = new LogModel();
    model.addAll([request('a', 0, 'initialize'), request('b', 0, 'initialize'), request('a', 1, 'ping')]);
    model.endServer('a');
    expect(model.rows.map((r) => `${r.serverId} ${r.method} ${r.status}`)).toEqual([
      'a initialize failed',
      'b initialize pending',
      'a ping failed',
    ]);
    // The connection is gone: an answer with that id now stands alone.
    model.add(response('a', 0, 9));
    expect(model.rows.at(-1)).toMatchObject({ kind: 'response', status: 'ok' });
  });

  it('fails what the last connection left waiting when a new initialize starts', () => {
    const model = new LogModel();
    model.addAll([request('a', 0, 'initialize'), request('a', 0, 'initialize'), response('a', 0, 3)]);
    expect(model.rows.map((r) => r.status)).toEqual(['failed', 'ok']);
  });
});

describe('LogModel entries loaded whole', () => {
  const cutOf = <E extends RpcLogEntry>(entry: E, bootId: string): E => ({
    ...entry,
    message: { jsonrpc: '2.0', id: (entry.message as { id?: unknown }).id },
    cut: { weight: 2_000_000, bootId },
  });

  it('puts a whole entry in the row that holds the cut one, and only there, whatever its seq', () => {
    const oldRun = cutOf(response('a', 1), 'run-1');
    const req = request('a', 1, 'tools/call');
    const res = response('a', 1);
    // A later run of the daemon numbers its entries from 1 again: the same seq, another entry.
    const cutAgain = { ...cutOf(res, 'run-2'), seq: oldRun.seq };
    const model = modelWith([oldRun, req, cutAgain]);
    expect(model.rows[1]?.response).toBe(cutAgain);

    const whole = { ...res, seq: oldRun.seq };
    expect(model.fillIn(cutAgain, whole)).toBe(true);
    expect(model.rows[1]?.response).toBe(whole);
    expect(model.rows[0]?.entry).toBe(oldRun);
    expect(summary(model.rows)).toEqual(['response a - 1 ok -', 'request a tools/call 1 ok 0']);

    // No row holds it any longer (the log was cleared).
    model.clear();
    expect(model.fillIn(oldRun, { ...oldRun, cut: undefined })).toBe(false);
  });
});
