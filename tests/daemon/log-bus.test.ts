import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { jsonWeight, LogBus, logTimestamp } from '../../daemon/logs/log-bus.ts';
import { CHUNK_BYTES, TextArena } from '../../daemon/logs/text-arena.ts';
import type { RpcLogEntry, RpcMessageEntry } from '../../shared/logs.ts';

function publishLines(bus: LogBus, count: number, serverId = 's'): RpcLogEntry[] {
  return Array.from({ length: count }, (_, i) =>
    bus.publish({
      type: 'rpc',
      serverId,
      direction: 'stderr',
      timestamp: new Date(0).toISOString(),
      message: `line ${i + 1}`,
    }),
  );
}

const seqs = (entries: RpcLogEntry[]): number[] => entries.map((e) => e.seq);

/** What the live channel replays, read back. */
const parsed = (json: Buffer[]): RpcLogEntry[] =>
  json.map((bytes) => JSON.parse(bytes.toString('utf8')) as RpcLogEntry);
const replayLast = (bus: LogBus, count: number): RpcLogEntry[] => parsed(bus.replayJsonLast(count));

describe('log bus', () => {
  it('numbers entries from 1 and hands each to every subscriber', () => {
    const bus = new LogBus(10);
    const first: RpcLogEntry[] = [];
    const second: RpcLogEntry[] = [];
    bus.subscribe((e) => first.push(e));
    bus.subscribe((e) => second.push(e));
    const published = publishLines(bus, 3);
    expect(seqs(published)).toEqual([1, 2, 3]);
    expect(first).toEqual(published);
    expect(second).toEqual(published);
    expect(published[0]).toMatchObject({ serverId: 's', direction: 'stderr', message: 'line 1' });
  });

  it('stops delivering after unsubscribe and counts subscribers', () => {
    const bus = new LogBus(10);
    const seen: RpcLogEntry[] = [];
    const unsubscribe = bus.subscribe((e) => seen.push(e));
    expect(bus.subscriberCount).toBe(1);
    publishLines(bus, 1);
    unsubscribe();
    expect(bus.subscriberCount).toBe(0);
    publishLines(bus, 1);
    expect(seqs(seen)).toEqual([1]);
  });

  it('since(seq) returns the entries after seq, oldest first', () => {
    const bus = new LogBus(10);
    publishLines(bus, 6);
    expect(seqs(bus.since(0))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seqs(bus.since(4))).toEqual([5, 6]);
    expect(bus.since(6)).toEqual([]);
    expect(bus.since(99)).toEqual([]);
  });

  it('last(n) returns the n newest entries, oldest first', () => {
    const bus = new LogBus(10);
    expect(bus.last(3)).toEqual([]);
    publishLines(bus, 6);
    expect(seqs(bus.last(2))).toEqual([5, 6]);
    expect(seqs(bus.last(100))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(bus.last(0)).toEqual([]);
    expect(bus.last(-1)).toEqual([]);
  });

  it('keeps only the newest capacity entries once the ring wraps around', () => {
    const bus = new LogBus(4);
    publishLines(bus, 11);
    expect(seqs(bus.since(0))).toEqual([8, 9, 10, 11]);
    expect(seqs(bus.last(100))).toEqual([8, 9, 10, 11]);
    expect(seqs(bus.last(2))).toEqual([10, 11]);
    // Resuming from an entry that has been overwritten gives what is left, never an old entry twice.
    expect(seqs(bus.since(3))).toEqual([8, 9, 10, 11]);
    expect(seqs(bus.since(9))).toEqual([10, 11]);
    expect(bus.since(0).map((e) => e.message)).toEqual(['line 8', 'line 9', 'line 10', 'line 11']);
  });

  it('wraps exactly at capacity', () => {
    const bus = new LogBus(3);
    publishLines(bus, 3);
    expect(seqs(bus.since(0))).toEqual([1, 2, 3]);
    publishLines(bus, 1);
    expect(seqs(bus.since(0))).toEqual([2, 3, 4]);
  });
});

describe('log bus redaction', () => {
  const hide = (entry: RpcLogEntry): RpcLogEntry =>
    ({ ...entry, message: String(entry.message).replace('secret', '********') }) as RpcLogEntry;
  const publishSecret = (bus: LogBus, redact: (entry: RpcLogEntry) => RpcLogEntry) =>
    bus.publish(
      {
        type: 'rpc',
        serverId: 's',
        direction: 'stderr',
        timestamp: new Date(0).toISOString(),
        message: 'a secret',
      },
      redact,
    );

  it('redacts an entry for its subscribers when someone listens', () => {
    const bus = new LogBus(10);
    const seen: RpcLogEntry[] = [];
    bus.subscribe((e) => seen.push(e));
    publishSecret(bus, hide);
    expect(seen.map((e) => e.message)).toEqual(['a ********']);
    expect(bus.since(0).map((e) => e.message)).toEqual(['a ********']);
  });

  it('puts redaction off until an entry nobody heard is read, then does it once', () => {
    const bus = new LogBus(10);
    let redactions = 0;
    const counted = (entry: RpcLogEntry): RpcLogEntry => {
      redactions++;
      return hide(entry);
    };
    publishSecret(bus, counted);
    publishSecret(bus, counted);
    expect(redactions).toBe(0);
    expect(bus.last(1).map((e) => e.message)).toEqual(['a ********']);
    expect(redactions).toBe(1);
    expect(bus.since(0).map((e) => e.message)).toEqual(['a ********', 'a ********']);
    expect(bus.since(0).map((e) => e.message)).toEqual(['a ********', 'a ********']);
    expect(redactions).toBe(2);
  });
});

/** The turn of the event loop after this one, when the bus has put what it holds in its arena. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A full garbage collection, for a measure of what stays on the heap. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

function toolResult(i: number, text: string): Omit<RpcMessageEntry, 'seq'> {
  return {
    type: 'rpc',
    serverId: 's',
    direction: 'receive',
    timestamp: new Date(0).toISOString(),
    message: { jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text }] } },
  };
}

describe('log bus storage', () => {
  it('keeps the entries it holds outside the JavaScript heap from the turn after their publishing', async () => {
    const bus = new LogBus(10_000, 1024 * 1024 * 1024);
    collectGarbage();
    const before = getHeapStatistics().used_heap_size;
    // 10,000 results of about 1,000 characters: some 10 MB of strings and objects while they are fresh.
    for (let i = 0; i < 10_000; i++) bus.publish(toolResult(i, `${i} ${'x'.repeat(1000)}`));
    await nextTurn();
    collectGarbage();
    const grown = getHeapStatistics().used_heap_size - before;
    expect(grown).toBeLessThan(2 * 1024 * 1024);
    const held = bus.since(0);
    expect(held).toHaveLength(10_000);
    expect(held[9_999]).toEqual({ ...toolResult(9_999, `9999 ${'x'.repeat(1000)}`), seq: 10_000 });
  });

  it('reads back what was published, in any script and at any size, and the redaction owed', async () => {
    const bus = new LogBus(10, 1024 * 1024 * 1024);
    const texts = ['plain', 'ünïcödé 日本語 🙂 \u0000 "quoted"', 'y'.repeat(CHUNK_BYTES)];
    const published = texts.map((text, i) => bus.publish(toolResult(i, text)));
    const hide = (entry: RpcLogEntry): RpcLogEntry =>
      ({ ...entry, message: String(entry.message).replace('token-1', '*******') }) as RpcLogEntry;
    bus.publish(
      { type: 'rpc', serverId: 's', direction: 'stderr', timestamp: '', message: 'a token-1' },
      hide,
    );
    expect(bus.since(0).slice(0, 3)).toEqual(published);
    await nextTurn();
    expect(bus.since(0).slice(0, 3)).toEqual(published);
    expect(bus.last(1)[0]?.message).toBe('a *******');
    await nextTurn();
    expect(bus.last(1)[0]?.message).toBe('a *******');
  });
});

describe('log text arena', () => {
  it('gives a chunk back once nothing in it is held, so a ring that turns over holds a bounded amount', () => {
    const arena = new TextArena();
    const held: number[] = [];
    let most = 0;
    // A ring of 1,000 texts of 1 KiB, turned over 100 times.
    for (let i = 0; i < 100_000; i++) {
      held.push(arena.put(`${i}`.padEnd(1024, '.')).chunk);
      if (held.length > 1000) arena.free(held.shift() as number);
      most = Math.max(most, arena.allocatedBytes);
    }
    expect(most).toBeLessThanOrEqual(3 * CHUNK_BYTES);
    for (const chunk of held) arena.free(chunk);
    expect(arena.allocatedBytes).toBeLessThanOrEqual(CHUNK_BYTES);
  });

  it('puts a text of more than a quarter chunk in a chunk of its own, gone when freed', () => {
    const arena = new TextArena();
    const small = arena.put('small');
    const large = arena.put('z'.repeat(CHUNK_BYTES / 2));
    expect(large.chunk).not.toBe(small.chunk);
    expect(arena.text(large.chunk, large.offset, large.length)).toHaveLength(CHUNK_BYTES / 2);
    const before = arena.allocatedBytes;
    arena.free(large.chunk);
    expect(arena.allocatedBytes).toBe(before - CHUNK_BYTES / 2);
    expect(arena.text(small.chunk, small.offset, small.length)).toBe('small');
  });
});

describe('log timestamps', () => {
  it('are the ISO 8601 time of now, to the millisecond', () => {
    const before = Date.now();
    const stamp = logTimestamp();
    const after = Date.now();
    expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(stamp)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(stamp)).toBeLessThanOrEqual(after);
  });
});

describe('log bus byte budget', () => {
  const response = toolResult;
  const textOf = (entry: RpcLogEntry | undefined): unknown =>
    (entry?.message as { result?: { content?: [{ text?: string }] } }).result?.content?.[0]?.text;

  it('weighs a message by its strings, keys and members', () => {
    expect(jsonWeight('x'.repeat(1000))).toBe(1000);
    expect(jsonWeight({ ['k'.repeat(5000)]: 1 })).toBeGreaterThan(5000);
    expect(jsonWeight([['y'.repeat(3000)], { a: 'z'.repeat(2000) }])).toBeGreaterThan(5000);
    expect(jsonWeight({ a: 1 })).toBeLessThan(100);
  });

  it('drops the oldest entries once the entries held pass the budget', () => {
    const bus = new LogBus(100, 40_000);
    for (let i = 1; i <= 10; i++) bus.publish(response(i, 'x'.repeat(8000)));
    // Each weighs a little over 8,000: four fit in 40,000, five do not.
    expect(seqs(bus.since(0))).toEqual([7, 8, 9, 10]);
    expect(bus.heldBytes).toBeLessThanOrEqual(40_000);
    expect(bus.heldBytes).toBeGreaterThan(32_000);
    // A resume from a dropped entry gets what is left.
    expect(seqs(bus.since(2))).toEqual([7, 8, 9, 10]);
    // Small entries after them push the large ones out one by one, not all at once.
    publishLines(bus, 3);
    expect(seqs(bus.since(0))).toEqual([7, 8, 9, 10, 11, 12, 13]);
  });

  it('keeps an entry larger than a quarter of the budget as a placeholder; its subscribers had it whole', () => {
    const bus = new LogBus(100, 40_000);
    const heard: RpcLogEntry[] = [];
    bus.subscribe((e) => heard.push(e));
    bus.publish(response(1, 'small'));
    bus.publish(response(7, 'x'.repeat(20_000)));
    bus.publish(response(3, 'after'));
    expect(textOf(heard[1])).toHaveLength(20_000);
    const kept = bus.since(0);
    expect(seqs(kept)).toEqual([1, 2, 3]);
    expect(textOf(kept[0])).toBe('small');
    expect(kept[1]?.message).toEqual({
      jsonrpc: '2.0',
      id: 7,
      _inspector: { truncated: true, reason: expect.stringMatching(/about 20 KiB, more than the log keeps/) },
    });
    expect(textOf(kept[2])).toBe('after');
    expect(bus.heldBytes).toBeLessThan(10_000);
  });

  it('redacts a long line before cutting it, so a secret across the cut is still masked', () => {
    const bus = new LogBus(10, 40_000);
    const secret = 'S3CRET-VALUE';
    const line = `${'a'.repeat(10_000 - 5)}${secret}${'b'.repeat(20_000)}`;
    bus.publish(
      {
        type: 'rpc',
        serverId: 's',
        direction: 'stderr',
        timestamp: new Date(0).toISOString(),
        message: line,
      },
      (entry) => ({ ...entry, message: String(entry.message).replaceAll(secret, '********') }) as RpcLogEntry,
    );
    const [kept] = bus.since(0);
    expect(String(kept?.message)).toMatch(/^a+\*{5} … \([\d,]+ more characters not kept\)$/);
    expect(String(kept?.message)).not.toContain('S3C');
  });

  it('never holds more than the budget however large the messages', () => {
    const bus = new LogBus(10_000, 1_000_000);
    for (let i = 0; i < 200; i++) bus.publish(response(i, 'q'.repeat(100_000 + i * 1000)));
    expect(bus.heldBytes).toBeLessThanOrEqual(1_000_000);
    expect(bus.since(0).length).toBeGreaterThan(0);
  });
});

describe('log bus replay for a page that opens', () => {
  const limits = { small: 1000, large: 10_000, total: 15_000 };
  const response = toolResult;

  it('sends the newest big entries whole within its budget and the others cut, each whole on request', () => {
    const bus = new LogBus(100, 1_000_000, limits);
    bus.publish(response(1, 'small'));
    bus.publish(response(2, 'a'.repeat(8000)));
    bus.publish(response(3, 'b'.repeat(8000)));
    bus.publish(response(4, 'c'.repeat(20_000)));
    bus.publish(response(5, 'also small'));
    const replayed = replayLast(bus, 10);
    expect(seqs(replayed)).toEqual([1, 2, 3, 4, 5]);
    // 5 and 1 are small; 4 is over `large`; 3 fits the budget, which then has too little left for 2.
    expect(replayed.map((entry) => entry.cut !== undefined)).toEqual([false, true, false, true, false]);
    expect(replayed[1]?.message).toEqual({ jsonrpc: '2.0', id: 2 });
    expect(replayed[1]?.cut?.weight).toBeGreaterThan(8000);
    expect(replayed[3]?.cut?.weight).toBeGreaterThan(20_000);
    expect(JSON.stringify(replayed[2]?.message)).toContain('b'.repeat(8000));
    // A resume is cut the same way, from where it resumes: 4 alone is over `large`.
    expect(parsed(bus.replayJsonSince(2)).map((entry) => entry.cut !== undefined)).toEqual([
      false,
      true,
      false,
    ]);
    // The Server-Sent Events replay and the entry asked for one at a time are whole.
    expect(bus.last(10).some((entry) => entry.cut)).toBe(false);
    expect(JSON.stringify(bus.entry(4)?.message)).toContain('c'.repeat(20_000));
    expect(bus.entry(4)?.cut).toBeUndefined();
  });

  it('keeps what pairs a cut response and tells its status: id, method, the error code', () => {
    const bus = new LogBus(100, 1_000_000, limits);
    bus.publish({
      type: 'rpc',
      serverId: 's',
      direction: 'send',
      timestamp: new Date(0).toISOString(),
      message: {
        jsonrpc: '2.0',
        id: 'r1',
        method: 'tools/call',
        params: { arguments: { x: 'y'.repeat(20_000) } },
      },
      call: { id: 'call-1', round: 1 },
    });
    bus.publish({
      type: 'rpc',
      serverId: 's',
      direction: 'receive',
      timestamp: new Date(0).toISOString(),
      message: {
        jsonrpc: '2.0',
        id: 'r1',
        error: { code: -32602, message: 'bad', data: 'z'.repeat(20_000) },
      },
    });
    const [request, answer] = replayLast(bus, 2);
    expect(request?.message).toEqual({ jsonrpc: '2.0', id: 'r1', method: 'tools/call' });
    expect(request).toMatchObject({ direction: 'send', call: { id: 'call-1', round: 1 } });
    expect(answer?.message).toEqual({ jsonrpc: '2.0', id: 'r1', error: { code: -32602, message: 'bad' } });
  });

  it('bounds what it keeps of an envelope, whatever a server put in its id or error', () => {
    const bus = new LogBus(100, 100_000_000, limits);
    const huge = 'x'.repeat(2_000_000);
    const received = (message: Record<string, unknown>): void => {
      bus.publish({
        type: 'rpc',
        serverId: 's',
        direction: 'receive',
        timestamp: new Date(0).toISOString(),
        message,
      });
    };
    received({ jsonrpc: '2.0', id: 1, error: { code: -32003, message: { blob: huge } } });
    received({ jsonrpc: '2.0', id: 2, error: huge });
    received({ jsonrpc: huge, id: huge, method: 'sampling/createMessage', params: {} });
    received({ jsonrpc: '2.0', id: { nested: huge }, error: { code: { also: huge }, message: 'short' } });
    const replayed = replayLast(bus, 4);
    expect(replayed.every((entry) => entry.cut !== undefined)).toBe(true);
    for (const entry of replayed) expect(JSON.stringify(entry).length).toBeLessThan(2_000);
    const [objectMessage, stringError, hugeId, objectId] = replayed.map(
      (entry) => entry.message as Record<string, unknown>,
    );
    expect(objectMessage).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32003, message: JSON.stringify({ blob: huge }).slice(0, 1000) },
    });
    expect(stringError?.error).toBe('x'.repeat(1000));
    expect(hugeId).toEqual({
      jsonrpc: 'x'.repeat(20),
      id: 'x'.repeat(1000),
      method: 'sampling/createMessage',
    });
    expect(objectId?.error).toEqual({ code: JSON.stringify({ also: huge }).slice(0, 100), message: 'short' });
    // The same id is cut the same way every time, so a request and its response cut alike still pair.
    expect(objectId?.id).toBe(JSON.stringify({ nested: huge }).slice(0, 1000));
  });

  it('masks a secret across the cut of a line or an error message, redacting before it cuts', () => {
    const bus = new LogBus(100, 1_000_000, limits);
    const secret = 'S3CRET-VALUE';
    const hide = (entry: RpcLogEntry): RpcLogEntry =>
      JSON.parse(JSON.stringify(entry).replaceAll(secret, '********')) as RpcLogEntry;
    bus.publish(
      {
        type: 'rpc',
        serverId: 's',
        direction: 'stderr',
        timestamp: new Date(0).toISOString(),
        message: `${'a'.repeat(2000 - 5)}${secret}${'b'.repeat(20_000)}`,
      },
      hide,
    );
    bus.publish(
      {
        type: 'rpc',
        serverId: 's',
        direction: 'receive',
        timestamp: new Date(0).toISOString(),
        message: {
          jsonrpc: '2.0',
          id: 1,
          error: { code: 1, message: `${'e'.repeat(995)}${secret}${'f'.repeat(20_000)}` },
        },
      },
      hide,
    );
    const [line, answer] = replayLast(bus, 2);
    expect(line?.cut).toBeDefined();
    expect(String(line?.message)).toMatch(/^a+\*{5}$/);
    expect(JSON.stringify(answer?.message)).toMatch(/e\*{5}"/);
    expect(JSON.stringify(replayLast(bus, 2))).not.toContain('S3C');
  });

  it('replays the entries kept as text as they are, the whole ones as `last` gives them, redacted and cut alike', async () => {
    const bus = new LogBus(100, 1_000_000, limits);
    const hide = (entry: RpcLogEntry): RpcLogEntry =>
      JSON.parse(JSON.stringify(entry).replaceAll('secret', '******')) as RpcLogEntry;
    bus.publish(response(1, 'a secret, kept as text and owing its redaction'), hide);
    bus.publish(response(2, 'kept as text, nothing owed'));
    bus.publish(response(3, `big ${'z'.repeat(20_000)}`), hide);
    await nextTurn();
    bus.publish(response(4, 'still an object, this turn'));
    const asJson = replayLast(bus, 10);
    const whole = bus.last(10);
    expect(seqs(asJson)).toEqual([1, 2, 3, 4]);
    expect([asJson[0], asJson[1], asJson[3]]).toEqual([whole[0], whole[1], whole[3]]);
    expect(JSON.stringify(asJson)).not.toContain('secret');
    expect(asJson[2]?.cut).toBeDefined();
  });

  it('replays an entry that owed its redaction as the bytes the log keeps, the same for every replay', () => {
    const bus = new LogBus(100, 1_000_000, limits);
    const hide = (entry: RpcLogEntry): RpcLogEntry =>
      JSON.parse(JSON.stringify(entry).replaceAll('secret', '******')) as RpcLogEntry;
    // Published with no one listening: redacted only when first read.
    // Large, so that a copy would be a buffer of its own (small ones share Node's pool of 64 KiB).
    bus.publish(response(1, `a secret result ${'x'.repeat(100_000)}`), hide);
    bus.publish(response(2, `another secret ${'y'.repeat(100_000)}`), hide);
    const first = bus.wholeJsonLast(2);
    const second = bus.wholeJsonLast(2);
    expect(first.map(({ json }) => json.toString())).toEqual(second.map(({ json }) => json.toString()));
    expect(first.map(({ json }) => json.toString()).join()).not.toContain('secret');
    // Views of one arena chunk, not a copy for each stream that opens.
    for (const [i, { json }] of first.entries()) expect(json.buffer).toBe(second[i]?.json.buffer);
  });

  it('measures an entry as the bytes of its JSON: escaped control characters and CJK weigh more', () => {
    const bus = new LogBus(100, 1_000_000, limits);
    bus.publish(response(1, '\u0001'.repeat(5_000)));
    bus.publish(response(2, '語'.repeat(2_000)));
    bus.publish(response(3, 'a'.repeat(5_000)));
    const [escaped, cjk, plain] = replayLast(bus, 3);
    // 5,000 characters each, or 2,000: as JSON in UTF-8, 30,000 and 6,000 bytes, past `large` or within it.
    expect(escaped?.cut?.weight).toBeGreaterThan(30_000);
    expect(cjk?.cut).toBeUndefined();
    expect(plain?.cut).toBeUndefined();
    expect(replayLast(bus, 2)[0]?.cut).toBeUndefined();
  });

  it('has no entry it no longer holds, or never held', () => {
    const bus = new LogBus(3, 1_000_000, limits);
    publishLines(bus, 5);
    expect(bus.entry(5)?.message).toBe('line 5');
    expect(bus.entry(2)).toBeUndefined();
    expect(bus.entry(6)).toBeUndefined();
    expect(bus.entry(0)).toBeUndefined();
    expect(bus.entry(1.5)).toBeUndefined();
  });
});
