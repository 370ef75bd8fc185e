/**
 * A resource read or prompt get whose caller goes away (the panel's Cancel, a closed tab) is cancelled at
 * the MCP server: the daemon sends `notifications/cancelled` for it, answers nothing, and goes on serving.
 * Against a real daemon and the slow fixture server, whose read and prompt answer only when cancelled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import { fixtureStdio, registerAndConnect, startDaemon, type TestDaemon } from './helpers.ts';

let d: TestDaemon;

beforeAll(async () => {
  d = await startDaemon();
  expect((await registerAndConnect(d, 'slow', fixtureStdio('slow-server.ts'))).status).toBe(200);
});
afterAll(async () => {
  await d?.close();
});

/** Polls `check` until it gives a value, or fails after 10 s. */
async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The daemon's log entries of messages sent to the server with `method`. */
const sent = (method: string): RpcMessageEntry[] =>
  d.daemon.bus
    .since(0)
    .filter((e): e is RpcMessageEntry => e.direction === 'send' && e.message.method === method);

/** What the fixture says was cancelled. */
async function cancelledAtServer(): Promise<string[]> {
  const { body } = await d.api('POST', '/api/mcp/servers/slow/tools/cancellations/call', {});
  return JSON.parse(body.result.content[0].text) as string[];
}

/**
 * Sends the request with the token, waits until the daemon has sent `method` on to the server, then
 * goes away as a cancelling client does; answers the error its fetch ended with.
 */
async function askThenLeave(method: string, path: string, init: RequestInit): Promise<unknown> {
  const before = sent(method).length;
  const controller = new AbortController();
  const asked = fetch(`${d.url}${path}`, {
    ...init,
    headers: { 'X-Inspector-Token': d.token, 'Content-Type': 'application/json' },
    signal: controller.signal,
  }).catch((error: unknown) => error);
  await eventually(`${method} sent to the server`, () => (sent(method).length > before ? true : undefined));
  controller.abort();
  return asked;
}

describe('a read or prompt whose caller goes away', () => {
  it.each([
    ['resources/read', 'POST /resources/read', '/api/mcp/resources/read', 'resources/read slow://wait'],
    [
      'resources/read',
      'GET /servers/:id/resources/:uri',
      '/api/mcp/servers/slow/resources/slow%3A%2F%2Fwait',
      'resources/read slow://wait',
    ],
    ['prompts/get', 'POST /prompts/get', '/api/mcp/prompts/get', 'prompts/get wait'],
    [
      'prompts/get',
      'POST /servers/:id/prompts/:name/get',
      '/api/mcp/servers/slow/prompts/wait/get',
      'prompts/get wait',
    ],
  ])('%s through %s is cancelled at the server', async (method, _route, path, note) => {
    const before = (await cancelledAtServer()).filter((n) => n === note).length;
    const cancellationsBefore = sent('notifications/cancelled').length;
    const body =
      method === 'resources/read'
        ? { serverId: 'slow', uri: 'slow://wait' }
        : path.includes('/servers/')
          ? {}
          : { serverId: 'slow', name: 'wait' };
    const ended = await askThenLeave(method, path, {
      method: path.includes('/resources/slow') ? 'GET' : 'POST',
      ...(!path.includes('/resources/slow') && { body: JSON.stringify(body) }),
    });
    expect((ended as Error).name).toBe('AbortError');

    // The server was told, for the request the daemon sent it.
    const request = sent(method).at(-1)!.message;
    const cancellation = await eventually(
      'notifications/cancelled sent',
      () => sent('notifications/cancelled').slice(cancellationsBefore)[0],
    );
    expect((cancellation.message.params as { requestId: unknown }).requestId).toBe(request.id);
    await eventually(`the server noted ${note}`, async () =>
      (await cancelledAtServer()).filter((n) => n === note).length > before ? true : undefined,
    );

    // And the daemon goes on: the next read answers.
    const next = await d.api('POST', '/api/mcp/resources/read', { serverId: 'slow', uri: 'slow://now' });
    expect(next.status).toBe(200);
    expect(next.body.content.contents[0].text).toBe('at once');
  });
});
