import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { DaemonOptions } from '../../daemon/options.ts';
import { VERSION } from '../../daemon/version.ts';
import type { LiveMessage } from '../../shared/live.ts';
import type { ServerConfig } from '../../shared/servers.ts';
import { sizedText } from '../fixtures/sized-text.ts';
import { everythingStdio, fixtureStdio, publishResult, startDaemon, type TestDaemon } from './helpers.ts';
import {
  callAndAnswer,
  entries,
  type LiveConnection,
  liveUrl,
  ofType,
  openLive,
  refusal,
  rpcMessages,
} from './live-helpers.ts';

const EXTENSION_ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

/** A daemon closed after the test, with the given servers registered (not yet connected). */
async function daemonWith(
  servers: Record<string, ServerConfig> = {},
  overrides: Partial<DaemonOptions> = {},
): Promise<TestDaemon> {
  const d = await startDaemon(overrides);
  onTestFinished(() => d.close());
  for (const [id, config] of Object.entries(servers)) {
    expect((await d.api('PUT', `/api/mcp/servers/${id}`, { config })).status).toBe(201);
  }
  return d;
}

/** A live connection closed after the test. */
async function live(d: TestDaemon, query: Record<string, string | undefined> = {}): Promise<LiveConnection> {
  const connection = await openLive(d, query);
  onTestFinished(() => connection.close());
  return connection;
}

const execute = (d: TestDaemon, serverId: string, toolName: string, parameters: object = {}) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId, toolName, parameters });

const hello = (connection: LiveConnection) => {
  const first = connection.messages[0];
  if (first?.type !== 'hello') throw new Error(`the first message is ${first?.type}, not hello`);
  return first;
};

const seqs = (messages: LiveMessage[]): number[] => entries(messages).map((e) => e.seq);

/** `from`, `from + 1`, …, `to`. */
const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Runs `echo` on the server and waits until the live connection has shown its answer; returns that entry's seq. */
async function echoSeen(d: TestDaemon, connection: LiveConnection, message: string): Promise<number> {
  const before = connection.messages.length;
  expect((await execute(d, 'everything', 'echo', { message })).status).toBe(200);
  const pair = await connection.until(
    (messages) => callAndAnswer(messages.slice(before), 'echo'),
    `the echo of "${message}"`,
  );
  return pair.answer.seq;
}

/**
 * Lists the server's tools and waits until the live connection has shown that answer: whatever the daemon
 * published before it has arrived by then.
 */
async function settle(d: TestDaemon, connection: LiveConnection, serverId: string): Promise<void> {
  const before = connection.messages.length;
  expect((await d.api('GET', `/api/mcp/servers/${serverId}/tools`)).status).toBe(200);
  await connection.until(
    (messages) =>
      rpcMessages(messages.slice(before)).some(
        (e) => e.direction === 'receive' && Array.isArray((e.message.result as { tools?: unknown })?.tools),
      ),
    'the tools/list answer',
  );
}

describe('live channel upgrade checks', () => {
  it('answers 401 without a token or with a wrong one, before any WebSocket exists', async () => {
    const d = await daemonWith();
    expect(await refusal(liveUrl(d))).toBe(401);
    expect(await refusal(liveUrl(d, { token: 'wrong-token' }))).toBe(401);
    expect(await refusal(liveUrl(d), { headers: { 'X-Inspector-Token': 'wrong-token' } })).toBe(401);
    expect(d.daemon.bus.subscriberCount).toBe(0);
    expect(d.daemon.events.subscriberCount).toBe(0);
  });

  it('answers 403 to a foreign Host header even with the right token', async () => {
    const d = await daemonWith();
    // Host is checked first: a rebinding page learns nothing about the token.
    expect(await refusal(liveUrl(d), { headers: { Host: 'evil.example' } })).toBe(403);
    expect(await refusal(liveUrl(d, { token: d.token }), { headers: { Host: 'evil.example' } })).toBe(403);
    expect(await refusal(liveUrl(d, { token: d.token }), { headers: { Host: 'evil.example:6274' } })).toBe(
      403,
    );
  });

  it('answers 403 to a foreign or null Origin even with the right token', async () => {
    const d = await daemonWith();
    expect(await refusal(liveUrl(d), { origin: 'https://evil.example' })).toBe(403);
    expect(await refusal(liveUrl(d, { token: d.token }), { origin: 'https://evil.example' })).toBe(403);
    expect(await refusal(liveUrl(d, { token: d.token }), { origin: 'null' })).toBe(403);
    expect(d.daemon.bus.subscriberCount).toBe(0);
  });

  it('lets an extension page connect with the token', async () => {
    const d = await daemonWith();
    const connection = await openLive(d, {}, { origin: EXTENSION_ORIGIN });
    onTestFinished(() => connection.close());
    await connection.until((m) => m.length > 0);
    expect(connection.messages[0]?.type).toBe('hello');
  });

  it("lets the web page's dev server connect in development only", async () => {
    const devServer = 'http://localhost:5999';
    const dev = await daemonWith({}, { mode: 'development', devServerUrl: devServer });
    const connection = await openLive(dev, {}, { origin: devServer });
    onTestFinished(() => connection.close());
    await connection.until((m) => m.length > 0);
    expect(connection.messages[0]?.type).toBe('hello');
    expect(await refusal(liveUrl(dev, { token: dev.token }), { origin: 'http://localhost:5998' })).toBe(403);

    const production = await daemonWith({}, { mode: 'production', devServerUrl: devServer });
    expect(await refusal(liveUrl(production, { token: production.token }), { origin: devServer })).toBe(403);
  });

  it('takes the token from ?token= or from the X-Inspector-Token header', async () => {
    const d = await daemonWith();
    const byQuery = await live(d);
    const byHeader = await openLive(d, { token: undefined }, { headers: { 'X-Inspector-Token': d.token } });
    onTestFinished(() => byHeader.close());
    await byQuery.until((m) => m.length > 0);
    await byHeader.until((m) => m.length > 0);
    expect(hello(byQuery).bootId).toBe(hello(byHeader).bootId);
    expect(d.daemon.bus.subscriberCount).toBe(2);
    expect(d.daemon.events.subscriberCount).toBe(2);
  });

  it('answers 404 to an upgrade on another path', async () => {
    const d = await daemonWith();
    expect(await refusal(liveUrl(d, { token: d.token }, '/api/mcp/wsx'))).toBe(404);
    expect(await refusal(liveUrl(d, { token: d.token }, '/api/mcp/ws/more'))).toBe(404);
  });

  it('connects without a token when auth is off, from a page whose Origin it knows', async () => {
    const d = await daemonWith({}, { token: null });
    const connection = await openLive(d, { token: undefined }, { origin: d.url });
    onTestFinished(() => connection.close());
    await connection.until((m) => m.length > 0);
    expect(connection.messages[0]?.type).toBe('hello');
  });

  it('refuses an upgrade without Origin when auth is off', async () => {
    const d = await daemonWith({}, { token: null });
    expect(await refusal(liveUrl(d))).toBe(403);
  });

  it('refuses an upgrade whose Host only starts like a loopback address', async () => {
    const d = await daemonWith();
    for (const host of ['127.0.0.1.evil.example', '127.evil.example', '127.0.0.1.nip.io']) {
      const port = new URL(d.url).port;
      expect(await refusal(liveUrl(d, { token: d.token }), { headers: { Host: `${host}:${port}` } })).toBe(
        403,
      );
    }
  });

  it('answers 429 to upgrades once a client has failed the token too often, even with the right one', async () => {
    const d = await daemonWith({}, { authFailuresPerMinute: 3 });
    for (let i = 0; i < 3; i++)
      expect(await refusal(liveUrl(d, { token: 'wrong-token-0000000000' }))).toBe(401);
    expect(await refusal(liveUrl(d, { token: d.token }))).toBe(429);
  });

  it('keeps running when clients reset their sockets as their upgrades are refused', async () => {
    const d = await daemonWith({}, { authFailuresPerMinute: 1_000 });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown): void => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    onTestFinished(() => void process.off('uncaughtException', onUncaught));
    const { port } = new URL(d.url);
    const upgrade = (path: string): string =>
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';
    // A wrong token (401) and another path (404): each client sends its upgrade and resets at once.
    for (const path of ['/api/mcp/ws?token=wrong-token-0000000000', '/elsewhere']) {
      for (let i = 0; i < 40; i++) {
        await new Promise<void>((resolve) => {
          const socket = connect(Number(port), '127.0.0.1', () => {
            socket.write(upgrade(path));
            socket.resetAndDestroy();
          });
          socket.on('error', () => {});
          socket.on('close', () => resolve());
        });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(uncaught).toEqual([]);
    expect((await d.api('GET', '/api/mcp/health')).status).toBe(200);
  });

  it('closes a client that sends a message over 64 KiB with 1009, as its own fault, and keeps serving', async () => {
    const d = await daemonWith({});
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown): void => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    onTestFinished(() => void process.off('uncaughtException', onUncaught));
    const live = await openLive(d);
    const closed = new Promise<number>((resolve) => live.ws.once('close', (code) => resolve(code)));
    live.ws.send('x'.repeat(70 * 1024));
    expect(await closed).toBe(1009);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(uncaught).toEqual([]);
    const next = await openLive(d);
    onTestFinished(() => next.close());
    expect((await d.api('GET', '/api/mcp/health')).status).toBe(200);
  });
});

describe('hello and log entries', () => {
  it('starts with hello, then streams a tool call as rpc entries with increasing seq', async () => {
    const d = await daemonWith({ everything: everythingStdio() });
    const connection = await live(d);
    await connection.until((m) => m.length > 0);
    expect(connection.messages[0]).toEqual({
      type: 'hello',
      bootId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: VERSION,
      lastSeq: 0,
    });

    const answerSeq = await echoSeen(d, connection, 'over the wire');
    const { call, answer } = callAndAnswer(connection.messages, 'echo') ?? {};
    expect(call).toMatchObject({
      serverId: 'everything',
      direction: 'send',
      message: { method: 'tools/call', params: { name: 'echo', arguments: { message: 'over the wire' } } },
    });
    expect(answer).toMatchObject({
      serverId: 'everything',
      direction: 'receive',
      message: { id: call?.message.id, result: { content: [{ type: 'text', text: 'Echo: over the wire' }] } },
    });
    // Everything the daemon logged since hello, in order, none missing: the connect, tools/list, the call.
    const received = entries(connection.messages).filter((e) => e.seq <= answerSeq);
    expect(received).toEqual(d.daemon.bus.since(0).filter((e) => e.seq <= answerSeq));
    expect(seqs(connection.messages).slice(0, received.length)).toEqual(range(1, answerSeq));
    // Era auto: the server/discover probe, which server-everything (a legacy server) refuses, then initialize.
    const methods = rpcMessages(connection.messages)
      .filter((e) => e.direction === 'send')
      .map((e) => e.message.method);
    expect(methods.slice(0, 2)).toEqual(['server/discover', 'initialize']);
  });

  it('says in hello the last seq the daemon assigned', async () => {
    const d = await daemonWith({ everything: everythingStdio() });
    const first = await live(d);
    const answerSeq = await echoSeen(d, first, 'before');
    const lastSeq = d.daemon.bus.last(1)[0]?.seq;
    expect(lastSeq).toBeGreaterThanOrEqual(answerSeq);
    const second = await live(d);
    await second.until((m) => m.length > 0);
    expect(hello(second)).toMatchObject({ lastSeq, bootId: hello(first).bootId });
  });
});

describe('replay and resume', () => {
  it('sends the last N entries right after hello with ?replay=N', async () => {
    const d = await daemonWith({ everything: everythingStdio() });
    const first = await live(d);
    await echoSeen(d, first, 'one');
    await echoSeen(d, first, 'two');
    const lastN = d.daemon.bus.last(3);
    expect(lastN).toHaveLength(3);

    const replayed = await live(d, { replay: '3' });
    await replayed.until((m) => m.length >= 4);
    expect(replayed.messages.slice(1, 4)).toEqual(lastN.map((entry) => ({ type: 'rpc', entry })));
    // Then live entries continue exactly where the replay stopped.
    const answerSeq = await echoSeen(d, replayed, 'three');
    expect(seqs(replayed.messages).filter((s) => s <= answerSeq)).toEqual(
      range(lastN[0]?.seq ?? 0, answerSeq),
    );
  });

  it('replays a large result cut to its envelope, and GET /rpc-logs/:seq has it whole', async () => {
    const d = await daemonWith({ output: fixtureStdio('output-server.ts') });
    const bytes = 2_000_000;
    expect((await execute(d, 'output', 'sized-result', { bytes })).status).toBe(200);
    expect((await execute(d, 'output', 'sized-result', { bytes: 100 })).status).toBe(200);

    const replayed = await live(d, { replay: '20' });
    const answers = await replayed.until((messages) => {
      const found = entries(messages).filter(
        (entry) => entry.direction === 'receive' && 'id' in (entry.message as object),
      );
      return found.length >= 3 && found;
    });
    const [big, small] = answers.slice(-2);
    expect(big?.cut?.weight).toBeGreaterThan(bytes);
    expect(Object.keys(big?.message as object).sort()).toEqual(['id', 'jsonrpc']);
    expect(small?.cut).toBeUndefined();
    expect(JSON.stringify(small?.message)).toContain(sizedText(100));

    // The cut names the daemon run that numbered it: the next run numbers its entries from 1 again.
    const { bootId } = hello(replayed);
    expect(big?.cut?.bootId).toBe(bootId);
    const otherRun = await d.api('GET', `/api/mcp/rpc-logs/${big?.seq}?bootId=${randomUUID()}`);
    expect(otherRun.status).toBe(404);
    expect(otherRun.body).toMatchObject({
      code: 'log_entry_not_found',
      error: expect.stringMatching(/restarted/),
    });

    const whole = await d.api('GET', `/api/mcp/rpc-logs/${big?.seq}?bootId=${bootId}`);
    expect(whole.status).toBe(200);
    expect(whole.body.entry).toMatchObject({ seq: big?.seq, serverId: 'output', direction: 'receive' });
    expect(whole.body.entry.cut).toBeUndefined();
    expect(whole.body.entry.message.result.content[0].text).toBe(sizedText(bytes));
  });

  it('resumes right after ?since= within the same boot, without duplicates or gaps', async () => {
    const d = await daemonWith({ everything: everythingStdio() });
    const first = await live(d);
    const seenSeq = await echoSeen(d, first, 'seen');
    const { bootId } = hello(first);
    first.close();
    await first.closed;
    await vi.waitFor(() => expect(d.daemon.bus.subscriberCount).toBe(0));

    // Missed while away.
    expect((await execute(d, 'everything', 'echo', { message: 'missed' })).status).toBe(200);
    const missedUpTo = d.daemon.bus.last(1)[0]?.seq ?? 0;
    expect(missedUpTo).toBeGreaterThan(seenSeq);

    const resumed = await live(d, { bootId, since: String(seenSeq) });
    const answerSeq = await echoSeen(d, resumed, 'after');
    const received = seqs(resumed.messages).filter((s) => s <= answerSeq);
    expect(received).toEqual(range(seenSeq + 1, answerSeq));
    expect(callAndAnswer(resumed.messages, 'echo')?.call.message.params).toMatchObject({
      arguments: { message: 'missed' },
    });
  });

  it('replays the last 1,000 to a client of another run, in slices, with what comes meanwhile after it', async () => {
    const d = await daemonWith();
    // Over 16 KiB: those sent whole go as the bytes the log keeps, in fragments of one message.
    const publish = (n: number): void => publishResult(d, n, 'x'.repeat(20_000));
    for (let n = 1; n <= 1_500; n++) publish(n);
    await new Promise((resolve) => setImmediate(resolve));
    const resumed = await live(d, { bootId: randomUUID(), since: '5' });
    // Published while the replay goes out, a slice a turn.
    for (let n = 1_501; n <= 1_550; n++) {
      publish(n);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await resumed.until((m) => entries(m).length >= 1_050);
    expect(seqs(resumed.messages)).toEqual(range(501, 1_550));
    const whole = entries(resumed.messages).filter((entry) => entry.cut === undefined);
    expect(whole.length).toBeGreaterThan(100);
    expect((whole.at(-1)?.message as { result: { text: string } }).result.text).toHaveLength(20_000);
  });

  it('keeps a client that reads when one large message comes during its replay, and sends it whole', async () => {
    const d = await daemonWith();
    const publish = (n: number, bytes: number): void => publishResult(d, n, 'x'.repeat(bytes));
    for (let n = 1; n <= 1_000; n++) publish(n, 20_000);
    await new Promise((resolve) => setImmediate(resolve));
    const replayed = await live(d, { replay: '1000' });
    // A 5 MB result while the replay goes out: more than a client may be behind, in one message.
    publish(1_001, 5_000_000);
    await replayed.until((m) => entries(m).length >= 1_001);
    expect(seqs(replayed.messages)).toEqual(range(1, 1_001));
    const big = entries(replayed.messages).at(-1);
    expect(big?.cut).toBeUndefined();
    expect((big?.message as { result: { text: string } }).result.text).toHaveLength(5_000_000);
    expect(replayed.ws.readyState).toBe(replayed.ws.OPEN);
  });

  it("sends the new run's entries when bootId names another daemon run (a client from before a restart)", async () => {
    const d = await daemonWith({ everything: everythingStdio() });
    const other = await daemonWith();
    const first = await live(d);
    const otherConnection = await live(other);
    await echoSeen(d, first, 'history');
    await otherConnection.until((m) => m.length > 0);
    const otherBootId = hello(otherConnection).bootId;
    expect(otherBootId).not.toBe(hello(first).bootId);

    for (const bootId of [otherBootId, randomUUID()]) {
      // The client's since counts in another run's numbers: it means nothing here.
      const fresh = await live(d, { bootId, since: '1000' });
      await fresh.until((m) => m.length > 0);
      const { lastSeq } = hello(fresh);
      expect(lastSeq).toBeGreaterThan(0);
      await echoSeen(d, fresh, `fresh ${bootId}`);
      const seqs = entries(fresh.messages).map((e) => e.seq);
      // This run's entries (fewer than 1,000 here), from its first, once each and in order.
      expect(seqs[0]).toBe(1);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
      fresh.close();
    }
  });
});

describe('server status', () => {
  it('reports connecting then connected, and a crashed STDIO child as error with lastError', async () => {
    const d = await daemonWith({ fixture: fixtureStdio('tools-server.ts') });
    const connection = await live(d);
    expect((await d.api('POST', '/api/mcp/servers/fixture/connect')).body.status).toBe('connected');
    await connection.until((m) => ofType(m, 'server-status').some((s) => s.server.status === 'connected'));
    const statuses = ofType(connection.messages, 'server-status');
    expect(statuses.map((s) => [s.server.id, s.server.status])).toEqual([
      ['fixture', 'connecting'],
      ['fixture', 'connected'],
    ]);
    expect(statuses[1]?.server.serverInfo).toMatchObject({ name: 'tools-fixture' });

    expect((await execute(d, 'fixture', 'crash')).status).toBe(502);
    const failed = await connection.until((m) =>
      ofType(m, 'server-status').find((s) => s.server.status === 'error'),
    );
    expect(failed.server).toMatchObject({
      id: 'fixture',
      lastError: expect.stringContaining('exited with code 3'),
    });
    expect(failed.server.lastError).toContain('crash: giving up on purpose');
    expect((await d.api('GET', '/api/mcp/servers/fixture')).body).toMatchObject({
      status: 'error',
      lastError: failed.server.lastError,
    });
  });
});

describe('the server list', () => {
  it('tells a server added or replaced with its new record and a removed one once it is gone', async () => {
    const d = await daemonWith();
    const connection = await live(d);
    await connection.until((m) => m.length > 0);
    const told = () =>
      connection.messages.flatMap((m) =>
        m.type === 'server-status'
          ? [[m.type, m.server.id, m.server.name, m.server.status]]
          : m.type === 'server-removed'
            ? [[m.type, m.serverId]]
            : [],
      );
    const config = fixtureStdio('tools-server.ts');

    expect((await d.api('PUT', '/api/mcp/servers/fixture', { name: 'First', config })).status).toBe(201);
    await connection.until((m) => ofType(m, 'server-status').length === 1);
    expect(told()).toEqual([['server-status', 'fixture', 'First', 'disconnected']]);

    expect((await d.api('POST', '/api/mcp/servers/fixture/connect')).body.status).toBe('connected');
    expect((await d.api('PUT', '/api/mcp/servers/fixture', { name: 'Second', config })).status).toBe(200);
    await connection.until((m) => ofType(m, 'server-status').some((s) => s.server.name === 'Second'));
    expect(told().slice(1)).toEqual([
      ['server-status', 'fixture', 'First', 'connecting'],
      ['server-status', 'fixture', 'First', 'connected'],
      // The replaced connection closes, then the new record (not connected yet) takes its place.
      ['server-status', 'fixture', 'First', 'disconnected'],
      ['server-status', 'fixture', 'Second', 'disconnected'],
    ]);

    expect((await d.api('POST', '/api/mcp/servers/fixture/connect')).body.status).toBe('connected');
    expect((await d.api('DELETE', '/api/mcp/servers/fixture')).status).toBe(200);
    await connection.until((m) => ofType(m, 'server-removed').length === 1);
    expect(told().slice(5)).toEqual([
      ['server-status', 'fixture', 'Second', 'connecting'],
      ['server-status', 'fixture', 'Second', 'connected'],
      ['server-status', 'fixture', 'Second', 'disconnected'],
      ['server-removed', 'fixture'],
    ]);
    expect((await d.api('GET', '/api/mcp/servers')).body.servers).toEqual([]);
  });
});

describe('notifications', () => {
  it("forwards server-everything's tools list_changed notifications with the server id", async () => {
    const d = await daemonWith({ everything: everythingStdio() });
    const connection = await live(d);
    await d.api('POST', '/api/mcp/servers/everything/connect');
    const changed = await connection.until((m) =>
      ofType(m, 'notification').find((n) => n.method === 'notifications/tools/list_changed'),
    );
    expect(changed).toEqual({
      type: 'notification',
      serverId: 'everything',
      method: 'notifications/tools/list_changed',
    });
    // Each one the server sent is forwarded once.
    const logged = (): number =>
      rpcMessages(connection.messages).filter(
        (e) => e.direction === 'receive' && e.message.method === 'notifications/tools/list_changed',
      ).length;
    const forwarded = (messages: LiveMessage[]): number =>
      ofType(messages, 'notification').filter((n) => n.method === 'notifications/tools/list_changed').length;
    await settle(d, connection, 'everything');
    expect(logged()).toBeGreaterThan(0);
    expect(forwarded(connection.messages)).toBe(logged());
  });

  it('forwards logging messages once toggle-simulated-logging starts them', async () => {
    const d = await daemonWith({ everything: everythingStdio() });
    const connection = await live(d);
    expect((await execute(d, 'everything', 'toggle-simulated-logging')).status).toBe(200);
    const logged = await connection.until((m) =>
      ofType(m, 'notification').find((n) => n.method === 'notifications/message'),
    );
    expect(logged).toEqual({
      type: 'notification',
      serverId: 'everything',
      method: 'notifications/message',
      params: {
        level: expect.stringMatching(/^(debug|info|notice|warning|error|critical|alert|emergency)$/),
        data: expect.stringMatching(/message/),
      },
    });
    const raw = rpcMessages(connection.messages).find((e) => e.message.method === 'notifications/message');
    expect(raw?.message.params).toEqual(logged.params);
  });
});

describe('progress', () => {
  it('streams progress of the running call under its executionId', async () => {
    const d = await daemonWith({ everything: everythingStdio() });
    const connection = await live(d);
    const running = execute(d, 'everything', 'trigger-long-running-operation', { duration: 2, steps: 4 });
    const first = await connection.until((m) => ofType(m, 'progress')[0]);
    const active = await d.api('GET', '/api/mcp/tools/active');
    expect(active.body.activeExecution).toEqual({
      id: first.executionId,
      serverId: 'everything',
      toolName: 'trigger-long-running-operation',
    });

    const done = await running;
    expect(done.status).toBe(200);
    expect(done.body.executionId).toBe(first.executionId);
    await settle(d, connection, 'everything');
    expect(ofType(connection.messages, 'progress')).toEqual(
      [1, 2, 3, 4].map((step) => ({
        type: 'progress',
        serverId: 'everything',
        executionId: done.body.executionId,
        toolName: 'trigger-long-running-operation',
        progress: step,
        total: 4,
      })),
    );
  });

  it('keeps progress that arrives in the same chunk as the result', async () => {
    const d = await daemonWith({ batched: fixtureStdio('batched-progress-server.ts') });
    const connection = await live(d);
    const done = await execute(d, 'batched', 'count', { steps: 3 });
    expect(done.body).toMatchObject({ status: 'completed', result: { content: [{ text: 'counted to 3' }] } });
    await settle(d, connection, 'batched');
    expect(ofType(connection.messages, 'progress').map((p) => [p.executionId, p.progress, p.total])).toEqual([
      [done.body.executionId, 1, 3],
      [done.body.executionId, 2, 3],
      [done.body.executionId, 3, 3],
    ]);
  });
});

describe('elicitation', () => {
  it('announces a pending elicitation with the requestId of the 202 answer', async () => {
    const d = await daemonWith({ everything: everythingStdio() });
    const connection = await live(d);
    const asked = await execute(d, 'everything', 'trigger-elicitation-request');
    expect(asked.status).toBe(202);
    const announced = await connection.until((m) => ofType(m, 'elicitation')[0]);
    expect(announced).toEqual({
      type: 'elicitation',
      serverId: 'everything',
      toolName: 'trigger-elicitation-request',
      elicitation: asked.body,
    });
    expect(announced.elicitation.requestId).toBe(asked.body.requestId);

    const answered = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: announced.elicitation.requestId,
      response: { action: 'decline' },
    });
    expect(answered.body).toMatchObject({ status: 'completed', executionId: asked.body.executionId });
  });
});

describe('slow clients', () => {
  it('closes a client that stops reading with 4008, keeps serving the others, and lets it resume', async () => {
    // Pings would end the paused client first: keep them out of the way. The limit is four of the
    // 256 KiB entries below: room for the steady client when a loaded machine delays its reading for a
    // moment, and a small part of the 32 MiB the paused client is sent.
    const d = await daemonWith(
      { everything: everythingStdio() },
      { sseMaxBufferedBytes: 1024 * 1024, sseKeepaliveMs: 600_000 },
    );
    const steady = await live(d);
    const slow = await live(d);
    await slow.until((m) => m.length > 0);
    const { bootId } = hello(slow);
    slow.ws.pause();

    // Far more than the socket buffers between the two can hold (each call is logged twice: 32 MiB in
    // all), in messages small enough that the steady client, reading, drains each before the next.
    const big = 'x'.repeat(256 * 1024);
    let lastAnswer = 0;
    for (let i = 0; i < 64; i++) lastAnswer = await echoSeen(d, steady, `${i} ${big}`);

    slow.ws.resume();
    expect(await slow.closed).toEqual({ code: 4008, reason: 'Too slow: resume with since' });
    await vi.waitFor(() => {
      expect(d.daemon.bus.subscriberCount).toBe(1);
      expect(d.daemon.events.subscriberCount).toBe(1);
    });
    const got = seqs(slow.messages);
    const lastGot = got.at(-1) ?? 0;
    expect(got).toEqual(range(1, lastGot));
    expect(lastGot).toBeLessThan(lastAnswer);

    // The steady client saw everything and is still served.
    expect(steady.ws.readyState).toBe(steady.ws.OPEN);
    expect(seqs(steady.messages).filter((s) => s <= lastAnswer)).toEqual(range(1, lastAnswer));
    const afterSeq = await echoSeen(d, steady, 'still here');

    // The dropped client resumes where it stopped.
    const resumed = await live(d, { bootId, since: String(lastGot) });
    await resumed.until((m) => seqs(m).includes(afterSeq));
    expect(seqs(resumed.messages).filter((s) => s <= afterSeq)).toEqual(range(lastGot + 1, afterSeq));
  });
});

describe('keepalive', () => {
  it('pings every sseKeepaliveMs and keeps a client that answers', async () => {
    const d = await daemonWith({}, { sseKeepaliveMs: 50 });
    const connection = await live(d);
    let pings = 0;
    await new Promise<void>((resolve) => {
      connection.ws.on('ping', () => {
        pings += 1;
        if (pings === 4) resolve();
      });
    });
    expect(connection.ws.readyState).toBe(connection.ws.OPEN);
    expect(d.daemon.bus.subscriberCount).toBe(1);
  });

  it('drops a client that does not answer pings', async () => {
    const d = await daemonWith({}, { sseKeepaliveMs: 50 });
    const silent = await openLive(d, {}, { autoPong: false });
    onTestFinished(() => silent.close());
    const { code } = await silent.closed;
    expect(code).toBe(1006);
    await vi.waitFor(() => {
      expect(d.daemon.bus.subscriberCount).toBe(0);
      expect(d.daemon.events.subscriberCount).toBe(0);
    });
  });
});

describe('daemon shutdown', () => {
  it('closes open live connections and shuts down', async () => {
    const d = await startDaemon();
    const connections = [await openLive(d), await openLive(d, {}, { origin: EXTENSION_ORIGIN })];
    for (const connection of connections) await connection.until((m) => m.length > 0);
    await d.close();
    for (const connection of connections) {
      await connection.closed;
      expect(connection.ws.readyState).toBe(connection.ws.CLOSED);
    }
    expect(d.daemon.bus.subscriberCount).toBe(0);
    expect(d.daemon.events.subscriberCount).toBe(0);
  });
});
