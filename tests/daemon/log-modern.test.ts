import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import type { ServerConfig } from '../../shared/servers.ts';
import { fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';
import { type ModernHttpServer, startModernHttp } from './modern-http.ts';

const SECRET = 'token-0123456789';
/** A header of the server's config that happens to be named like MCP's: the config's, never logged. */
const CONFIGURED = { name: 'mcp-tenant', value: 'tenant-7' };

/** The headers a POST arrived with, less the configured one: what the log must say it was sent with. */
const asSent = (received: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(received).filter(([name]) => name !== CONFIGURED.name));

const textOf = (result: { content?: Array<{ text?: string }> }): string =>
  (result.content ?? []).map((c) => c.text ?? '').join('\n');

describe('the JSON-RPC log at 2026-07-28 over Streamable HTTP', () => {
  let d: TestDaemon;
  let server: ModernHttpServer;
  beforeAll(async () => {
    [d, server] = await Promise.all([startDaemon(), startModernHttp()]);
    const config: ServerConfig = {
      transport: 'http',
      url: server.url,
      headers: { Authorization: `Bearer ${SECRET}`, 'Mcp-Tenant': CONFIGURED.value },
    };
    expect((await d.api('PUT', '/api/mcp/servers/modern-http', { config })).status).toBe(201);
    const connected = await d.api('POST', '/api/mcp/servers/modern-http/connect');
    expect(connected.body).toMatchObject({ status: 'connected', era: 'modern' });
  });
  afterAll(async () => {
    await d?.close();
    await server?.stop();
  });

  /** The message entries of the server, as a reader of the log gets them (redacted). */
  const entries = (): RpcMessageEntry[] =>
    d.daemon.bus
      .last(10_000)
      .filter((e): e is RpcMessageEntry => e.serverId === 'modern-http' && e.type === 'rpc')
      .filter((e) => e.direction === 'send' || e.direction === 'receive');

  const sentRequests = (method: string, name?: string): RpcMessageEntry[] =>
    entries().filter(
      (e) =>
        e.direction === 'send' &&
        e.message.method === method &&
        (name === undefined || (e.message.params as { name?: string }).name === name),
    );

  const answerTo = (request: RpcMessageEntry): RpcMessageEntry | undefined =>
    entries().find(
      (e) => e.direction === 'receive' && !('method' in e.message) && e.message.id === request.message.id,
    );

  it('records the MCP headers each request went out with, exactly those the server received', async () => {
    const listed = await d.api('GET', '/api/mcp/servers/modern-http/tools');
    expect(listed.status).toBe(200);
    expect(server.received.every((headers) => headers[CONFIGURED.name] === CONFIGURED.value)).toBe(true);
    const [discover] = sentRequests('server/discover');
    const [list] = sentRequests('tools/list');
    expect(discover?.headers).toEqual({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'server/discover',
    });
    expect(list?.headers).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
    for (const sent of entries().filter((e) => e.direction === 'send')) {
      expect(server.received.map(asSent)).toContainEqual(sent.headers);
      // The credential and the configured header went with every POST, but are never logged.
      expect(JSON.stringify(sent)).not.toContain(SECRET);
      expect(JSON.stringify(sent)).not.toContain(CONFIGURED.value);
    }
    // The list result's cache fields are in the logged answer as the server sent them.
    expect(answerTo(list!)?.message.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
  });

  it("records a tool's Mcp-Name and Mcp-Param-* headers, and redacts a secret in them", async () => {
    const echo = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'modern-http',
      toolName: 'echo',
      parameters: { message: 'hi', region: 'eu-west' },
    });
    expect(textOf(echo.body.result)).toBe('Echo: hi');
    const [call] = sentRequests('tools/call', 'echo');
    expect(call?.headers).toEqual({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      'mcp-param-region': 'eu-west',
    });
    expect(server.received.map(asSent)).toContainEqual(call?.headers);
    expect(call?.call).toEqual({ id: expect.any(String), round: 1 });
    expect(answerTo(call!)?.call).toEqual(call?.call);

    await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'modern-http',
      toolName: 'echo',
      parameters: { message: 'again', region: SECRET },
    });
    const second = sentRequests('tools/call', 'echo')[1];
    expect(second?.headers?.['mcp-param-region']).toBe('********');
    expect(server.received.some((headers) => headers['mcp-param-region'] === SECRET)).toBe(true);
  });

  it('tags every round of an input_required call with one call id and its round number', async () => {
    const asked = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'modern-http',
      toolName: 'ask',
      parameters: {},
    });
    expect(asked.body).toMatchObject({ status: 'elicitation_required', request: { message: 'Your name?' } });
    const named = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: asked.body.requestId,
      response: { action: 'accept', content: { name: 'Ada' } },
    });
    expect(named.body).toMatchObject({ status: 'elicitation_required', request: { message: 'Greet Ada?' } });
    const confirmed = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: named.body.requestId,
      response: { action: 'accept', content: { ok: true } },
    });
    expect(textOf(confirmed.body.result)).toBe('Hello, Ada');

    const rounds = sentRequests('tools/call', 'ask');
    expect(rounds).toHaveLength(3);
    const callId = rounds[0]?.call?.id;
    expect(callId).toEqual(expect.any(String));
    expect(rounds.map((r) => r.call)).toEqual([1, 2, 3].map((round) => ({ id: callId, round })));
    // Each round is a request of its own, with the answers of the round before and its own headers.
    expect(new Set(rounds.map((r) => r.message.id)).size).toBe(3);
    expect(rounds[1]?.message.params).toMatchObject({ inputResponses: { name: { action: 'accept' } } });
    expect(rounds[2]?.message.params).toMatchObject({ requestState: 'Ada' });
    for (const round of rounds) expect(round.headers).toMatchObject({ 'mcp-name': 'ask' });
    const answers = rounds.map((r) => answerTo(r));
    expect(answers.map((a) => a?.call)).toEqual(rounds.map((r) => r.call));
    expect(answers.map((a) => (a?.message.result as { resultType?: string }).resultType)).toEqual([
      'input_required',
      'input_required',
      'complete',
    ]);
    // Another call is another group.
    const [echo] = sentRequests('tools/call', 'echo');
    expect(echo?.call?.id).not.toBe(callId);
  });
});

describe('the rounds of an input_required call over STDIO', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon();
  });
  afterAll(() => d?.close());

  it('shares one call id, although the answer that starts the next round comes from the pipe', async () => {
    const config = { ...fixtureStdio('modern-server.ts'), era: 'modern' as const };
    expect((await d.api('PUT', '/api/mcp/servers/modern-stdio', { config })).status).toBe(201);
    const asked = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'modern-stdio',
      toolName: 'ask',
      parameters: {},
    });
    expect(asked.status).toBe(202);
    const answered = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: asked.body.requestId,
      response: { action: 'accept', content: { name: 'Ada' } },
    });
    expect(textOf(answered.body.result)).toBe('Hello, Ada');
    const logged = d.daemon.bus
      .last(10_000)
      .filter(
        (e): e is RpcMessageEntry =>
          e.serverId === 'modern-stdio' && (e.direction === 'send' || e.direction === 'receive'),
      );
    const rounds = logged.filter((e) => e.direction === 'send' && e.message.method === 'tools/call');
    expect(rounds.map((r) => r.call?.round)).toEqual([1, 2]);
    expect(rounds[1]?.call?.id).toBe(rounds[0]?.call?.id);
    // No HTTP, no headers.
    expect(logged.some((e) => e.headers)).toBe(false);
  });
});
