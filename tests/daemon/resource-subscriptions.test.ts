import { describe, expect, it, onTestFinished } from 'vitest';
import type { LiveMessage } from '../../shared/live.ts';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import { everythingStdio, fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';
import { type LiveConnection, ofType, openLive, rpcMessages } from './live-helpers.ts';

const WATCHED = 'demo://resource/static/document/architecture.md';
const OTHER = 'demo://resource/static/document/features.md';
const UPDATED = 'notifications/resources/updated';
const toggleUpdates = { serverId: 'everything', toolName: 'toggle-subscriber-updates', parameters: {} };

async function setUp(): Promise<{ d: TestDaemon; connection: LiveConnection }> {
  const d = await startDaemon();
  onTestFinished(() => d.close());
  expect((await d.api('PUT', '/api/mcp/servers/everything', { config: everythingStdio() })).status).toBe(201);
  const connection = await openLive(d);
  onTestFinished(() => connection.close());
  return { d, connection };
}

const subscribe = (d: TestDaemon, body: object) => d.api('POST', '/api/mcp/resources/subscribe', body);
const unsubscribe = (d: TestDaemon, body: object) => d.api('POST', '/api/mcp/resources/unsubscribe', body);

/** `notifications/resources/updated` for the URI as the daemon logged it, in order. */
const loggedUpdates = (messages: LiveMessage[], uri: string): RpcMessageEntry[] =>
  rpcMessages(messages).filter(
    (e) =>
      e.direction === 'receive' &&
      e.message.method === UPDATED &&
      (e.message.params as { uri?: string }).uri === uri,
  );

/** The same updates as forwarded `notification` messages. */
const forwardedUpdates = (messages: LiveMessage[], uri: string) =>
  ofType(messages, 'notification').filter((n) => n.method === UPDATED && n.params?.uri === uri);

/** The server's answer to the daemon's `method` request for `uri`, as logged. */
function answerTo(messages: LiveMessage[], method: string, uri: string): RpcMessageEntry | undefined {
  const all = rpcMessages(messages);
  const request = all.find(
    (e) =>
      e.direction === 'send' &&
      e.message.method === method &&
      (e.message.params as { uri?: string }).uri === uri,
  );
  return request && all.find((e) => e.direction === 'receive' && e.message.id === request.message.id);
}

describe('resource subscriptions', () => {
  it('forwards updates for a subscribed URI on the live channel and stops them after unsubscribe', async () => {
    const { d, connection } = await setUp();
    for (const uri of [WATCHED, OTHER]) {
      const subscribed = await subscribe(d, { serverId: 'everything', uri });
      expect(subscribed.status).toBe(200);
      expect(subscribed.body).toEqual({ subscribed: true, serverId: 'everything', uri });
      expect(answerTo(connection.messages, 'resources/subscribe', uri)?.message).toMatchObject({
        result: {},
      });
    }

    // server-everything sends an update for every subscribed URI at once, then every five seconds.
    expect((await d.api('POST', '/api/mcp/tools/execute', toggleUpdates)).status).toBe(200);
    const update = await connection.until(
      (m) => forwardedUpdates(m, WATCHED)[0],
      'an update of the watched URI',
    );
    expect(update).toEqual({
      type: 'notification',
      serverId: 'everything',
      method: UPDATED,
      params: { uri: WATCHED },
    });
    await connection.until((m) => forwardedUpdates(m, OTHER)[0], 'an update of the other URI');

    const unsubscribed = await unsubscribe(d, { serverId: 'everything', uri: WATCHED });
    expect(unsubscribed.status).toBe(200);
    expect(unsubscribed.body).toEqual({ subscribed: false, serverId: 'everything', uri: WATCHED });
    const answered = answerTo(connection.messages, 'resources/unsubscribe', WATCHED);
    expect(answered?.message).toMatchObject({ result: {} });
    const after = answered?.seq ?? Number.POSITIVE_INFINITY;

    // Two more rounds of updates reach the other URI; none reaches the one given up.
    await connection.until(
      (m) => loggedUpdates(m, OTHER).filter((e) => e.seq > after).length >= 2,
      'two more rounds of updates',
    );
    expect(loggedUpdates(connection.messages, WATCHED).filter((e) => e.seq > after)).toEqual([]);
    // Every update the server sent was forwarded once, the last of them before the unsubscribe.
    expect(forwardedUpdates(connection.messages, WATCHED)).toHaveLength(
      loggedUpdates(connection.messages, WATCHED).length,
    );
  });

  it('answers 404 for an unknown server and 400 without a uri or serverId', async () => {
    const { d } = await setUp();
    for (const call of [subscribe, unsubscribe]) {
      const unknown = await call(d, { serverId: 'nope', uri: WATCHED });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toContain('nope');

      const noUri = await call(d, { serverId: 'everything' });
      expect(noUri.status).toBe(400);
      expect(noUri.body.error).toMatch(/uri/);

      const noServer = await call(d, { uri: WATCHED });
      expect(noServer.status).toBe(400);
      expect(noServer.body.error).toMatch(/serverId/);
    }
    // Nothing was started for the refused requests.
    expect((await d.api('GET', '/api/mcp/servers/everything')).body.status).toBe('disconnected');
  });

  it('answers 502 with the MCP error when the server does not support subscriptions', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    await d.api('PUT', '/api/mcp/servers/fixture', { config: fixtureStdio('tools-server.ts') });
    const refused = await subscribe(d, { serverId: 'fixture', uri: 'fixture://anything' });
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ error: expect.any(String), mcpError: { code: -32601 } });
  });
});
