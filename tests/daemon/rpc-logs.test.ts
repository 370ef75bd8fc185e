import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { DaemonOptions } from '../../daemon/options.ts';
import type { RpcLogEntry, RpcMessageEntry } from '../../shared/logs.ts';
import type { ServerConfig } from '../../shared/servers.ts';
import { everythingStdio, fixtureStdio, publishResult, startDaemon, type TestDaemon } from './helpers.ts';

interface LogEvent {
  /** The SSE `id:` field. */
  id: string | undefined;
  entry: RpcLogEntry;
}

interface LogStream {
  status: number;
  events: LogEvent[];
  comments: string[];
  ended: boolean;
  /** Resolves once `check` holds for what arrived so far; rejects if the stream ends first. */
  until<T>(check: () => T | undefined | false): Promise<T>;
  close(): void;
}

/** Reads `GET /rpc-logs` with fetch and a small Server-Sent Events line parser. */
async function openLog(
  d: TestDaemon,
  query = '',
  headers: Record<string, string> = { 'X-Inspector-Token': d.token },
): Promise<LogStream> {
  const controller = new AbortController();
  const response = await fetch(`${d.url}/api/mcp/rpc-logs${query}`, { headers, signal: controller.signal });
  let wake = (): void => {};
  const stream: LogStream = {
    status: response.status,
    events: [],
    comments: [],
    ended: false,
    async until(check) {
      for (;;) {
        const result = check();
        if (result) return result;
        if (stream.ended) throw new Error('the log stream ended first');
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    close: () => controller.abort(),
  };
  const pump = async (): Promise<void> => {
    const decoder = new TextDecoder();
    let rest = '';
    let id: string | undefined;
    let data: string[] = [];
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        const lines = (rest + decoder.decode(chunk, { stream: true })).split(/\r\n|\r|\n/);
        rest = lines.pop() ?? '';
        for (const line of lines) {
          if (line === '') {
            if (data.length) stream.events.push({ id, entry: JSON.parse(data.join('\n')) });
            id = undefined;
            data = [];
          } else if (line.startsWith(':')) {
            stream.comments.push(line.slice(1).trim());
          } else {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') id = value;
            if (field === 'data') data.push(value);
          }
        }
        wake();
      }
    } catch {
      // aborted by close()
    }
    stream.ended = true;
    wake();
  };
  void pump();
  return stream;
}

/** `from`, `from + 1`, …, `to`. */
const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function daemonWith(
  servers: Record<string, ServerConfig>,
  options: Partial<DaemonOptions> = {},
): Promise<TestDaemon> {
  const d = await startDaemon(options);
  onTestFinished(() => d.close());
  for (const [id, config] of Object.entries(servers)) {
    expect((await d.api('PUT', `/api/mcp/servers/${id}`, { config })).status).toBe(201);
  }
  return d;
}

async function echo(d: TestDaemon, serverId: string, message: string): Promise<void> {
  const executed = await d.api('POST', '/api/mcp/tools/execute', {
    serverId,
    toolName: 'echo',
    parameters: { message },
  });
  expect(executed.status).toBe(200);
}

const messages = (stream: LogStream): RpcMessageEntry[] =>
  stream.events.map((e) => e.entry).filter((e): e is RpcMessageEntry => e.direction !== 'stderr');

/** The `send` of the tools/call carrying `text`, and the `receive` that answers it, once both arrived. */
function callPair(stream: LogStream, text: string): [RpcMessageEntry, RpcMessageEntry] | undefined {
  const all = messages(stream);
  const send = all.find(
    (e) =>
      e.direction === 'send' &&
      e.message.method === 'tools/call' &&
      (e.message.params as { arguments?: { message?: string } }).arguments?.message === text,
  );
  const receive = send && all.find((e) => e.direction === 'receive' && e.message.id === send.message.id);
  return send && receive ? [send, receive] : undefined;
}

const seqs = (stream: LogStream): number[] => stream.events.map((e) => e.entry.seq);
const lastSeq = (d: TestDaemon): number => d.daemon.bus.last(1)[0]?.seq ?? 0;

describe('rpc-logs stream', () => {
  it('shows a tools/call request and its response with the same JSON-RPC id', async () => {
    const d = await daemonWith({ e: everythingStdio() });
    await d.api('POST', '/api/mcp/servers/e/connect');
    const log = await openLog(d);
    onTestFinished(() => log.close());
    expect(log.status).toBe(200);

    await echo(d, 'e', 'watched');
    const [send, receive] = await log.until(() => callPair(log, 'watched'));
    expect(send).toMatchObject({
      type: 'rpc',
      serverId: 'e',
      message: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo' } },
    });
    expect(receive).toMatchObject({
      serverId: 'e',
      message: { jsonrpc: '2.0', result: { content: [{ type: 'text', text: 'Echo: watched' }] } },
    });
    expect(receive.seq).toBeGreaterThan(send.seq);
    expect(Number.isNaN(Date.parse(send.timestamp))).toBe(false);
    for (const event of log.events) expect(event.id).toBe(String(event.entry.seq));
    const order = seqs(log);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(order.length);
  });

  it('keeps to the servers named in ?serverIds=', async () => {
    const d = await daemonWith({ a: everythingStdio(), b: everythingStdio() });
    const onlyB = await openLog(d, '?serverIds=b');
    const both = await openLog(d, '?serverIds=a,b');
    onTestFinished(() => onlyB.close());
    onTestFinished(() => both.close());

    await echo(d, 'a', 'to a');
    await echo(d, 'b', 'to b');
    // The stream keeps the bus order, so anything of "a" would have come before this.
    await onlyB.until(() => callPair(onlyB, 'to b'));
    expect(onlyB.events.length).toBeGreaterThan(0);
    expect(onlyB.events.every((e) => e.entry.serverId === 'b')).toBe(true);
    await both.until(() => callPair(both, 'to b'));
    expect(callPair(both, 'to a')).toBeDefined();
  });

  it('sends the last N entries first with ?replay=N', async () => {
    const d = await daemonWith({ e: everythingStdio() });
    await echo(d, 'e', 'history');
    const expected = d.daemon.bus.last(3).map((e) => e.seq);
    expect(expected).toHaveLength(3);

    const log = await openLog(d, '?replay=3');
    onTestFinished(() => log.close());
    await log.until(() => log.events.length >= 3);
    expect(seqs(log).slice(0, 3)).toEqual(expected);
    await echo(d, 'e', 'live');
    await log.until(() => callPair(log, 'live'));
    expect(
      seqs(log)
        .slice(3)
        .every((seq) => seq > (expected[2] ?? 0)),
    ).toBe(true);
  });

  it('resumes exactly after Last-Event-ID, without duplicates', async () => {
    const d = await daemonWith({ e: everythingStdio() });
    await echo(d, 'e', 'first');
    const resumeAfter = Math.floor(lastSeq(d) / 2);
    const missed = d.daemon.bus.since(resumeAfter).map((e) => e.seq);

    const log = await openLog(d, '', { 'X-Inspector-Token': d.token, 'Last-Event-ID': String(resumeAfter) });
    onTestFinished(() => log.close());
    await echo(d, 'e', 'second');
    await log.until(() => callPair(log, 'second'));
    const order = seqs(log);
    expect(order.slice(0, missed.length)).toEqual(missed);
    expect(order[0]).toBe(resumeAfter + 1);
    // Contiguous from the resume point: nothing lost, nothing twice.
    expect(order).toEqual(order.map((_, i) => resumeAfter + 1 + i));
  });

  it('sends keepalive comments every sseKeepaliveMs', async () => {
    const d = await daemonWith({}, { sseKeepaliveMs: 50 });
    const log = await openLog(d);
    onTestFinished(() => log.close());
    await log.until(() => log.comments.filter((c) => c === 'keepalive').length >= 2);
    expect(log.events).toEqual([]);
  });

  it('drops a subscriber that does not read, keeps the one that does, and goes on working', async () => {
    const d = await daemonWith({ e: everythingStdio() }, { sseMaxBufferedBytes: 64 * 1024 });
    await d.api('POST', '/api/mcp/servers/e/connect');
    const stalled = await fetch(`${d.url}/api/mcp/rpc-logs`, { headers: { 'X-Inspector-Token': d.token } });
    const reading = await openLog(d);
    onTestFinished(() => reading.close());
    expect(d.daemon.bus.subscriberCount).toBe(2);

    // Each call logs two ~100 kB messages; the stalled reader's socket fills up after a few MB.
    const big = 'x'.repeat(100_000);
    for (let calls = 0; calls < 300 && d.daemon.bus.subscriberCount === 2; calls++) await echo(d, 'e', big);
    expect(d.daemon.bus.subscriberCount).toBe(1);

    // The dropped stream ends once what was already sent has been read.
    const stalledText = await stalled.text();
    expect(stalledText).toContain('"method":"tools/call"');
    expect(reading.ended).toBe(false);
    await echo(d, 'e', 'still here');
    await reading.until(() => callPair(reading, 'still here'));

    reading.close();
    await vi.waitFor(() => expect(d.daemon.bus.subscriberCount).toBe(0), { timeout: 5000, interval: 20 });
  });

  it('replays whole and in order to many streams at once, with what comes meanwhile after, of the servers asked', async () => {
    const d = await daemonWith({});
    const publish = (n: number): void =>
      publishResult(d, n, `${n} `.padEnd(n % 10 === 0 ? 40_000 : 100, 'x'), n % 2 ? 'odd' : 'even');
    for (let n = 1; n <= 400; n++) publish(n);
    await new Promise((resolve) => setImmediate(resolve));
    const streams = await Promise.all(
      Array.from({ length: 10 }, (_, i) => openLog(d, i % 2 ? '?replay=1000&serverIds=odd' : '?replay=1000')),
    );
    for (const stream of streams) onTestFinished(() => stream.close());
    for (let n = 401; n <= 420; n++) {
      publish(n);
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const [i, stream] of streams.entries()) {
      const expected = i % 2 ? range(1, 420).filter((n) => n % 2) : range(1, 420);
      await stream.until(() => stream.events.length >= expected.length);
      expect(stream.events.map((event) => Number(event.id))).toEqual(expected);
      expect(stream.events.map((event) => event.entry.seq)).toEqual(expected);
      // The large ones come whole (the live channel's replay cuts them; this stream never does).
      const tenth = stream.events.find((event) => event.entry.seq === 10);
      if (tenth) expect(JSON.stringify(tenth.entry.message)).toContain('x'.repeat(39_000));
    }
  });

  it('keeps a stream that reads when one large message comes during its replay', async () => {
    const d = await daemonWith({});
    const publish = (n: number, bytes: number): void => publishResult(d, n, 'x'.repeat(bytes));
    for (let n = 1; n <= 1_000; n++) publish(n, 20_000);
    await new Promise((resolve) => setImmediate(resolve));
    const stream = await openLog(d, '?replay=1000');
    onTestFinished(() => stream.close());
    publish(1_001, 5_000_000);
    await stream.until(() => stream.events.length >= 1_001);
    expect(stream.events.map((event) => event.entry.seq)).toEqual(range(1, 1_001));
    expect(stream.ended).toBe(false);
  });

  it('cuts off a stream dropped as too slow that then never reads', async () => {
    const d = await daemonWith({ e: everythingStdio() }, { sseMaxBufferedBytes: 64 * 1024 });
    await d.api('POST', '/api/mcp/servers/e/connect');
    const stalled = await fetch(`${d.url}/api/mcp/rpc-logs`, { headers: { 'X-Inspector-Token': d.token } });
    const big = 'x'.repeat(100_000);
    for (let calls = 0; calls < 300 && d.daemon.bus.subscriberCount === 1; calls++) await echo(d, 'e', big);
    expect(d.daemon.bus.subscriberCount).toBe(0);
    const dropped = Date.now();
    // The client never reads: a few seconds later the daemon lets go of what it had sent it.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    // Read now, what it had been sent is cut short: the daemon closed the connection without ending it.
    const reader = (stalled.body as ReadableStream<Uint8Array>).getReader();
    const outcome = await (async () => {
      try {
        for (;;) {
          const { done } = await reader.read();
          if (done) return 'ended';
        }
      } catch {
        return 'cut off';
      }
    })();
    expect(outcome).toBe('cut off');
    expect(Date.now() - dropped).toBeGreaterThan(5_000);
  });

  it("publishes STDIO stderr lines with direction 'stderr', with env values masked", async () => {
    const secret = 'hunter2-api-key';
    const d = await daemonWith({ noisy: fixtureStdio('stderr-server.ts', { API_KEY: secret }) });
    const log = await openLog(d, '?serverIds=noisy');
    onTestFinished(() => log.close());

    const whispered = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'noisy',
      toolName: 'whisper',
      parameters: { message: 'psst' },
    });
    expect(whispered.status).toBe(200);
    const stderr = () => log.events.map((e) => e.entry).filter((e) => e.direction === 'stderr');
    await log.until(() => stderr().some((e) => e.message === 'whisper: psst'));
    expect(stderr().map((e) => e.message)).toContain('stderr-server starting with API_KEY=********');
    expect(JSON.stringify(log.events)).not.toContain(secret);
  });

  it('replays no more than logBufferSize entries', async () => {
    const d = await daemonWith({ e: everythingStdio() }, { logBufferSize: 5 });
    await echo(d, 'e', 'fill the buffer');
    const before = lastSeq(d);
    expect(before).toBeGreaterThan(5);

    const log = await openLog(d, '?replay=100');
    onTestFinished(() => log.close());
    await echo(d, 'e', 'marker');
    await log.until(() => callPair(log, 'marker'));
    const replayed = seqs(log).filter((seq) => seq <= before);
    expect(replayed).toEqual([before - 4, before - 3, before - 2, before - 1, before]);
  });

  it('keeps about logBufferBytes of messages for replay, and a larger one as a placeholder', async () => {
    const MiB = 1024 * 1024;
    const d = await daemonWith({ output: fixtureStdio('output-server.ts') }, { logBufferBytes: 4 * MiB });
    const live = await openLog(d, '?serverIds=output');
    onTestFinished(() => live.close());
    const sized = async (bytes: number): Promise<void> => {
      const executed = await d.api('POST', '/api/mcp/tools/execute', {
        serverId: 'output',
        toolName: 'sized-result',
        parameters: { bytes },
      });
      expect(executed.status).toBe(200);
    };
    const resultText = (entry: RpcLogEntry | undefined): string | undefined =>
      (entry?.message as { result?: { content?: [{ text?: string }] } } | undefined)?.result?.content?.[0]
        ?.text;
    const received = (stream: LogStream): RpcMessageEntry[] =>
      messages(stream).filter((e) => e.direction === 'receive' && 'result' in e.message);

    // Over a quarter of the budget: the subscriber listening has it whole, a replay gets a placeholder.
    await sized(2 * MiB);
    const whole = await live.until(() => received(live).find((e) => resultText(e)?.length === 2 * MiB));
    const replay = await openLog(d, '?serverIds=output&replay=1000');
    onTestFinished(() => replay.close());
    const placeholder = await replay.until(() => messages(replay).find((e) => e.seq === whole.seq));
    expect(placeholder.message).toEqual({
      jsonrpc: '2.0',
      id: whole.message.id,
      _inspector: {
        truncated: true,
        reason: expect.stringMatching(/about 2\.0 MiB, more than the log keeps/),
      },
    });
    replay.close();

    // Eight results of 700,000 characters: the oldest go, the newest are replayed whole.
    for (let i = 0; i < 8; i++) await sized(700_000);
    await live.until(() => received(live).length >= 9);
    const later = await openLog(d, '?serverIds=output&replay=1000');
    onTestFinished(() => later.close());
    const newest = received(live).at(-1) as RpcMessageEntry;
    const kept = await later.until(
      () => received(later).find((e) => e.seq === newest.seq) && received(later),
    );
    expect(kept.every((e) => resultText(e)?.length === 700_000)).toBe(true);
    expect(kept.length).toBeGreaterThanOrEqual(4);
    expect(kept.length).toBeLessThanOrEqual(5);
    expect(kept.some((e) => e.seq === whole.seq)).toBe(false);
  });

  it('accepts the token as ?token= and refuses a request without one', async () => {
    const d = await daemonWith({});
    const log = await openLog(d, `?token=${d.token}`, {});
    onTestFinished(() => log.close());
    expect(log.status).toBe(200);
    const refused = await fetch(`${d.url}/api/mcp/rpc-logs`);
    expect(refused.status).toBe(401);
    await refused.body?.cancel();
  });
});

describe('one log entry, whole (GET /rpc-logs/:seq)', () => {
  const line = (d: TestDaemon, text: string): RpcLogEntry =>
    d.daemon.bus.publish({
      type: 'rpc',
      serverId: 's',
      direction: 'stderr',
      timestamp: new Date(0).toISOString(),
      message: text,
    });
  const failure = async (d: TestDaemon, path: string) => {
    const { status, body } = await d.api('GET', `/api/mcp/rpc-logs/${path}`);
    return { status, code: body.code, error: body.error };
  };

  it('has each entry this run of the daemon keeps, and says why it has no other', async () => {
    const d = await startDaemon({ logBufferSize: 2 });
    onTestFinished(() => d.close());
    const { bootId } = d.daemon.bus;
    expect(await failure(d, '1')).toEqual({
      status: 404,
      code: 'log_entry_not_found',
      error: 'No log entry is numbered "1": the log is empty',
    });
    for (const text of ['one', 'two', 'three']) line(d, text);

    const whole = await d.api('GET', `/api/mcp/rpc-logs/3?bootId=${bootId}`);
    expect(whole.status).toBe(200);
    expect(whole.body.entry).toMatchObject({ seq: 3, direction: 'stderr', message: 'three' });
    expect((await d.api('GET', '/api/mcp/rpc-logs/2')).body.entry.message).toBe('two');

    for (const never of ['0', '4', '999999999999999', '-1', 'abc', '1e3']) {
      expect(await failure(d, never)).toMatchObject({
        status: 404,
        code: 'log_entry_not_found',
        error: expect.stringMatching(/^No log entry is numbered ".*": they are numbered 1 to 3 \(seq\)$/),
      });
    }
    expect(await failure(d, '1')).toEqual({
      status: 404,
      code: 'log_entry_not_found',
      error:
        'The log no longer holds entry 1: it keeps the last 2 entries, and fewer when they are large (--log-buffer-mb)',
    });
    expect(await failure(d, '3?bootId=another-run')).toEqual({
      status: 404,
      code: 'log_entry_not_found',
      error: 'The daemon restarted since entry 3 was logged, and its log started again',
    });
    for (const query of ['bootId=', `bootId=${bootId}&bootId=${bootId}`]) {
      expect(await failure(d, `3?${query}`)).toMatchObject({ status: 400, code: 'invalid_request' });
    }
  });
});
