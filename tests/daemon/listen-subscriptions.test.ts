import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { LiveMessage } from '../../shared/live.ts';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import type { ServerConfig } from '../../shared/servers.ts';
import {
  FIXTURES,
  fixtureStdio,
  freePort,
  ROOT,
  startDaemon,
  stopProcess,
  type TestDaemon,
  TSX_LOADER,
  waitForHttp,
} from './helpers.ts';
import { type LiveConnection, openLive, rpcMessages } from './live-helpers.ts';

// Resource subscriptions on a 2026-07-28 server: the daemon keeps one `subscriptions/listen` stream for
// the subscribed URIs and the list changes, and its updates reach the live channel as a legacy server's
// do. With no URI subscribed the stream stands open for the list changes the server announces.

const COUNTER = 'fixture://counter';
const OTHER = 'fixture://other';
const UPDATED = 'notifications/resources/updated';
const LISTEN = 'subscriptions/listen';
const CANCELLED = 'notifications/cancelled';
const SERVER = 'modern';

type Transport = 'stdio' | 'http';

/** The modern fixture over STDIO, or over Streamable HTTP in a process of its own. */
async function modernServer(transport: Transport, env?: Record<string, string>): Promise<ServerConfig> {
  if (transport === 'stdio') return fixtureStdio('modern-server.ts', env);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...TSX_LOADER, join(FIXTURES, 'modern-server.ts'), 'http', String(port)],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  onTestFinished(() => stopProcess(child));
  const url = `http://127.0.0.1:${port}/mcp`;
  await waitForHttp(url);
  return { transport: 'http', url };
}

async function setUp(
  transport: Transport,
  env?: Record<string, string>,
): Promise<{ d: TestDaemon; live: LiveConnection }> {
  const d = await startDaemon();
  onTestFinished(() => d.close());
  const config = await modernServer(transport, env);
  // Listening before the connection: the stream opened as it connects is in the log.
  const live = await openLive(d);
  onTestFinished(() => live.close());
  expect((await d.api('PUT', `/api/mcp/servers/${SERVER}`, { config })).status).toBe(201);
  const connected = await d.api('POST', `/api/mcp/servers/${SERVER}/connect`);
  expect(connected.body).toMatchObject({ status: 'connected', era: 'modern' });
  return { d, live };
}

const subscribe = (d: TestDaemon, uri: string) =>
  d.api('POST', '/api/mcp/resources/subscribe', { serverId: SERVER, uri });
const unsubscribe = (d: TestDaemon, uri: string) =>
  d.api('POST', '/api/mcp/resources/unsubscribe', { serverId: SERVER, uri });

/** Calls a fixture tool; answers its text. */
async function call(d: TestDaemon, toolName: string, parameters: object = {}): Promise<string> {
  const called = await d.api('POST', '/api/mcp/tools/execute', { serverId: SERVER, toolName, parameters });
  expect(called.status).toBe(200);
  return called.body.result.content[0].text as string;
}

const touch = (d: TestDaemon, uri: string) => call(d, 'touch', { uri });

/** The messages the daemon sent with this method, in order. */
const sent = (messages: LiveMessage[], method: string): RpcMessageEntry[] =>
  rpcMessages(messages).filter((e) => e.direction === 'send' && e.message.method === method);

/** The listen requests' ids and the URIs each asked for (none: the list changes alone). */
const listens = (messages: LiveMessage[]) =>
  sent(messages, LISTEN).map((e) => ({
    id: e.message.id,
    uris: (e.message.params as { notifications: { resourceSubscriptions?: string[] } }).notifications
      .resourceSubscriptions,
  }));

/** The ids of the requests the daemon cancelled. */
const cancelledIds = (messages: LiveMessage[]) =>
  sent(messages, CANCELLED).map((e) => (e.message.params as { requestId?: unknown }).requestId);

/** `notifications/resources/updated` for the URI forwarded on the live channel, with their place in it. */
const forwarded = (messages: LiveMessage[], uri: string) =>
  messages
    .map((m, index) => ({ m, index }))
    .filter(
      ({ m }) =>
        m.type === 'notification' &&
        m.method === UPDATED &&
        (m.params as { uri?: unknown } | undefined)?.uri === uri,
    )
    .map(({ index }) => index);

let echoes = 0;

/**
 * Waits until the log on the live channel has caught up with the daemon: the log reaches it in frames,
 * after the HTTP answers. An echo's answer is logged after everything the daemon sent or received before.
 */
async function caughtUp(d: TestDaemon, live: LiveConnection): Promise<void> {
  const text = await call(d, 'echo', { message: `mark ${++echoes}` });
  await live.until(
    (m) => rpcMessages(m).some((e) => e.direction === 'receive' && JSON.stringify(e.message).includes(text)),
    `"${text}" in the log`,
  );
}

/** Waits until the daemon has sent `count` listen requests; answers them. */
const listening = (live: LiveConnection, count: number) =>
  live.until((m) => listens(m).length >= count && listens(m), `${count} listen requests`);

/** Waits for the next update of the URI after the first `after` messages; answers its place. */
const nextUpdate = (live: LiveConnection, uri: string, after: number) =>
  live.until((m) => forwarded(m, uri).find((index) => index >= after), `an update of ${uri}`);

describe.each<Transport>(['stdio', 'http'])(
  'resource subscriptions on a modern server over %s',
  (transport) => {
    it('sends the updates of the subscribed URIs through one listen stream, and none after unsubscribe', async () => {
      const { d, live } = await setUp(transport);
      // Connected, a stream stands open for the list changes alone.
      const [standing] = await listening(live, 1);
      expect(standing).toEqual({ id: expect.any(String), uris: undefined });

      const subscribed = await subscribe(d, COUNTER);
      expect(subscribed.status).toBe(200);
      expect(subscribed.body).toEqual({ subscribed: true, serverId: SERVER, uri: COUNTER });
      await caughtUp(d, live);
      expect(listens(live.messages)).toEqual([standing, { id: expect.any(String), uris: [COUNTER] }]);
      // The listen requests ask for the list changes too; resources/subscribe is not for this era.
      for (const listen of sent(live.messages, LISTEN)) {
        expect(listen.message.params).toMatchObject({
          notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
        });
      }
      expect(sent(live.messages, 'resources/subscribe')).toEqual([]);
      expect(cancelledIds(live.messages)).toEqual([standing?.id]);

      expect(await touch(d, COUNTER)).toBe(`touched ${COUNTER}: count 1`);
      const first = await nextUpdate(live, COUNTER, 0);
      expect(live.messages[first]).toMatchObject({
        type: 'notification',
        serverId: SERVER,
        method: UPDATED,
        params: { uri: COUNTER },
      });
      const read = await d.api('POST', '/api/mcp/resources/read', { serverId: SERVER, uri: COUNTER });
      expect(read.body.content.contents[0].text).toBe('count: 1');

      // A second URI: a stream for both takes the place of the first, which is cancelled.
      expect((await subscribe(d, OTHER)).status).toBe(200);
      await caughtUp(d, live);
      const [, one, two] = listens(live.messages);
      expect(two).toEqual({ id: expect.any(String), uris: [COUNTER, OTHER] });
      expect(cancelledIds(live.messages)).toEqual([standing?.id, one?.id]);
      // Subscribing again to a URI the stream covers changes nothing.
      expect((await subscribe(d, OTHER)).status).toBe(200);
      await caughtUp(d, live);
      expect(listens(live.messages)).toHaveLength(3);

      let mark = live.messages.length;
      await touch(d, OTHER);
      await nextUpdate(live, OTHER, mark);
      await touch(d, COUNTER);
      await nextUpdate(live, COUNTER, mark);
      // One update per change: the cancelled stream sends no copies.
      await touch(d, OTHER);
      const last = await live.until(
        (m) => forwarded(m, OTHER).filter((index) => index >= mark)[1],
        'a second update of the other URI',
      );
      expect(forwarded(live.messages, COUNTER).filter((index) => index >= mark && index < last)).toHaveLength(
        1,
      );

      // Unsubscribed: the stream is opened again without the URI, and its changes are not announced.
      const unsubscribed = await unsubscribe(d, COUNTER);
      expect(unsubscribed.status).toBe(200);
      expect(unsubscribed.body).toEqual({ subscribed: false, serverId: SERVER, uri: COUNTER });
      await caughtUp(d, live);
      expect(listens(live.messages)[3]).toEqual({ id: expect.any(String), uris: [OTHER] });
      expect(cancelledIds(live.messages)).toEqual([standing?.id, one?.id, two?.id]);
      mark = live.messages.length;
      await touch(d, COUNTER);
      await touch(d, OTHER);
      // Both changes go down the one stream in order: once the other URI's arrives, the counter's would have.
      await nextUpdate(live, OTHER, mark);
      expect(forwarded(live.messages, COUNTER).filter((index) => index >= mark)).toEqual([]);

      // With the last URI given up the stream stands for the list changes alone; the others are cancelled.
      expect((await unsubscribe(d, OTHER)).status).toBe(200);
      await caughtUp(d, live);
      const all = listens(live.messages);
      expect(all).toHaveLength(5);
      expect(all[4]).toEqual({ id: expect.any(String), uris: undefined });
      expect(cancelledIds(live.messages)).toEqual(all.slice(0, 4).map((l) => l.id));
      // Giving up a URI that is not subscribed is no error, and opens nothing.
      expect((await unsubscribe(d, OTHER)).status).toBe(200);
      await caughtUp(d, live);
      expect(listens(live.messages)).toHaveLength(5);
      if (transport === 'http') expect(await call(d, 'listeners')).toBe('1');
    });

    it('ends the listen stream when the server is disconnected, and forgets its URIs', async () => {
      const { d, live } = await setUp(transport);
      expect((await subscribe(d, COUNTER)).status).toBe(200);
      if (transport === 'http') expect(await call(d, 'listeners')).toBe('1');
      await caughtUp(d, live);
      const [standing, listen] = listens(live.messages);
      expect(listen?.uris).toEqual([COUNTER]);

      expect((await d.api('POST', `/api/mcp/servers/${SERVER}/disconnect`)).status).toBe(200);
      await live.until((m) => cancelledIds(m).length === 2, 'the listen stream cancelled');
      expect(cancelledIds(live.messages)).toEqual([standing?.id, listen?.id]);

      // Connected again, the stream stands for the list changes alone: the old URIs are not asked for again.
      const mark = live.messages.length;
      await touch(d, COUNTER);
      await listening(live, 3);
      if (transport === 'http') {
        await vi.waitFor(async () => expect(await call(d, 'listeners')).toBe('1'), { timeout: 10_000 });
      }
      expect((await subscribe(d, OTHER)).status).toBe(200);
      await caughtUp(d, live);
      expect(listens(live.messages).slice(2)).toEqual([
        { id: expect.any(String), uris: undefined },
        { id: expect.any(String), uris: [OTHER] },
      ]);
      await touch(d, OTHER);
      await nextUpdate(live, OTHER, mark);
      expect(forwarded(live.messages, COUNTER).filter((index) => index >= mark)).toEqual([]);
    });

    it('answers 502 when the server does not agree to send updates, and keeps only the list changes', async () => {
      const { d, live } = await setUp(transport, { FIXTURE_SUBSCRIBE: 'off' });
      const [standing] = await listening(live, 1);
      const refused = await subscribe(d, COUNTER);
      expect(refused.status).toBe(502);
      await caughtUp(d, live);
      expect(refused.body).toMatchObject({
        code: 'upstream_failed',
        error: `The server did not agree to send updates of ${COUNTER}.`,
        mcpError: { code: 'SUBSCRIPTION_REFUSED', data: { honored: expect.any(Object) } },
      });
      const [, listen] = listens(live.messages);
      expect(listen?.uris).toEqual([COUNTER]);
      expect(sent(live.messages, LISTEN)).toHaveLength(2);
      // The refused stream is closed; the one standing for the list changes stays.
      expect(cancelledIds(live.messages)).not.toContain(standing?.id);
      if (transport === 'http') expect(await call(d, 'listeners')).toBe('1');
    });
  },
);

describe.each<Transport>(['stdio', 'http'])('list changes of a modern server over %s', (transport) => {
  it('reach the live channel with no resource subscribed, through the stream standing open for them', async () => {
    const { d, live } = await setUp(transport);
    await listening(live, 1);
    if (transport === 'http') {
      await vi.waitFor(async () => expect(await call(d, 'listeners')).toBe('1'), { timeout: 10_000 });
    }
    expect(await call(d, 'announce-tools')).toBe('announced');
    await live.until(
      (m) => m.some((x) => x.type === 'notification' && x.method === 'notifications/tools/list_changed'),
      'tools/list_changed on the live channel',
    );
  });
});

describe('resource subscriptions on a server of both eras, spoken to at the legacy era', () => {
  it('uses resources/subscribe and resources/unsubscribe, and no listen stream', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    const config = { ...fixtureStdio('modern-server.ts'), era: 'legacy' } satisfies ServerConfig;
    expect((await d.api('PUT', `/api/mcp/servers/${SERVER}`, { config })).status).toBe(201);
    const live = await openLive(d);
    onTestFinished(() => live.close());

    expect((await subscribe(d, COUNTER)).status).toBe(200);
    await touch(d, COUNTER);
    await nextUpdate(live, COUNTER, 0);
    expect((await unsubscribe(d, COUNTER)).status).toBe(200);
    const mark = live.messages.length;
    await touch(d, COUNTER);
    // Once the log has caught up, any update the server sent for the change is in it.
    await caughtUp(d, live);
    const updates = rpcMessages(live.messages.slice(mark)).filter(
      (e) => e.direction === 'receive' && e.message.method === UPDATED,
    );
    expect(updates).toEqual([]);

    expect(sent(live.messages, 'resources/subscribe')).toHaveLength(1);
    expect(sent(live.messages, 'resources/unsubscribe')).toHaveLength(1);
    expect(sent(live.messages, LISTEN)).toEqual([]);
  });
});

describe('a listen stream the server ends while the connection stays', () => {
  it('is opened again for the same URIs, and the updates go on', async () => {
    const { d, live } = await setUp('http');
    expect((await subscribe(d, COUNTER)).status).toBe(200);
    expect(await call(d, 'hangup')).toBe('hanging up');

    const [standing, first, again] = await listening(live, 3);
    expect(again).toEqual({ id: expect.any(String), uris: [COUNTER] });
    expect(again?.id).not.toBe(first?.id);
    // The server ended the first stream with its empty result: there is nothing to cancel but the
    // standing one it replaced.
    await vi.waitFor(async () => expect(await call(d, 'listeners')).toBe('1'), { timeout: 10_000 });
    await caughtUp(d, live);
    expect(cancelledIds(live.messages)).toEqual([standing?.id]);

    const mark = live.messages.length;
    await touch(d, COUNTER);
    await nextUpdate(live, COUNTER, mark);
  });
});
