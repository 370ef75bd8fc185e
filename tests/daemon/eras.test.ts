import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import type { ServerConfig } from '../../shared/servers.ts';
import {
  everythingStdio,
  fixtureStdio,
  modernStdio,
  registerAndConnect,
  startDaemon,
  type TestDaemon,
} from './helpers.ts';

const textOf = (result: { content?: Array<{ text?: string }> }): string =>
  (result.content ?? []).map((c) => c.text ?? '').join('\n');

describe('MCP eras', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon();
  });
  afterAll(() => d?.close());

  const connect = (id: string, config: ServerConfig) => registerAndConnect(d, id, config);

  /** The methods the daemon sent to a server, in order. */
  const sentMethods = (serverId: string): string[] =>
    d.daemon.bus
      .last(10_000)
      .filter((e): e is RpcMessageEntry => e.serverId === serverId && e.direction === 'send')
      .map((e) => (e.message as { method?: string }).method ?? '(answer)');

  it('speaks 2026-07-28 with a modern server by default (era auto): server/discover, no initialize', async () => {
    const connected = await connect('auto-modern', modernStdio('both'));
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({
      status: 'connected',
      era: 'modern',
      protocolVersion: '2026-07-28',
      serverInfo: { name: 'modern-fixture', version: '2.0.0' },
      instructions: 'A server of both MCP eras, for tests.',
    });
    expect(connected.body.config.era).toBeUndefined();
    expect(sentMethods('auto-modern')[0]).toBe('server/discover');
    expect(sentMethods('auto-modern')).not.toContain('initialize');
    const echo = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'auto-modern',
      toolName: 'echo',
      parameters: { message: 'modern' },
    });
    expect(echo.status).toBe(200);
    expect(textOf(echo.body.result)).toBe('Echo: modern');
  });

  it('answers a modern input_required round through the usual 202 elicitation flow', async () => {
    await connect('ask-modern', modernStdio('modern', { era: 'modern' }));
    const asked = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'ask-modern',
      toolName: 'ask',
      parameters: {},
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ status: 'elicitation_required', request: { message: 'Your name?' } });
    const answered = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: asked.body.requestId,
      response: { action: 'accept', content: { name: 'Ada' } },
    });
    expect(answered.status).toBe(200);
    expect(textOf(answered.body.result)).toBe('Hello, Ada');
  });

  it('initializes at 2025-11-25 with era legacy, even with a server that knows both', async () => {
    const connected = await connect('legacy-both', modernStdio('both', { era: 'legacy' }));
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({ era: 'legacy', protocolVersion: '2025-11-25' });
    expect(connected.body.config.era).toBe('legacy');
    expect(sentMethods('legacy-both')[0]).toBe('initialize');
    expect(sentMethods('legacy-both')).not.toContain('server/discover');
  });

  it('falls back to initialize with server-everything (a legacy server) under era auto', async () => {
    const connected = await connect('auto-legacy', everythingStdio());
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({ era: 'legacy', protocolVersion: '2025-11-25' });
    expect(sentMethods('auto-legacy').slice(0, 2)).toEqual(['server/discover', 'initialize']);
    const echo = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'auto-legacy',
      toolName: 'echo',
      parameters: { message: 'legacy' },
    });
    expect(textOf(echo.body.result)).toBe('Echo: legacy');
  });

  it('starts a legacy STDIO server again and initializes it when the probe made it exit (era auto)', async () => {
    const connected = await connect('strict-legacy', fixtureStdio('strict-legacy-server.ts'));
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({
      status: 'connected',
      era: 'legacy',
      protocolVersion: '2025-11-25',
    });
    expect(sentMethods('strict-legacy').slice(0, 2)).toEqual(['server/discover', 'initialize']);
    const echo = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'strict-legacy',
      toolName: 'echo',
      parameters: { message: 'again' },
    });
    expect(textOf(echo.body.result)).toBe('Echo: again');
  });

  it('explains era modern with a legacy server, and era legacy with a modern-only one', async () => {
    const pinned = await connect('modern-everything', { ...everythingStdio(), era: 'modern' });
    expect(pinned.status).toBe(502);
    expect(pinned.body).toMatchObject({
      code: 'upstream_failed',
      mcpError: { code: 'ERA_NEGOTIATION_FAILED' },
    });
    expect(pinned.body.error).toMatch(/era is set to "modern"/);

    const refused = await connect('legacy-modern-only', modernStdio('modern', { era: 'legacy' }));
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('upstream_failed');
    const record = await d.api('GET', '/api/mcp/servers/legacy-modern-only');
    expect(record.body).toMatchObject({ status: 'error' });
    expect(record.body.era).toBeUndefined();
  });

  it('sets the log level of a modern server in every request, which has no logging/setLevel', async () => {
    await connect('level-modern', modernStdio('modern', { era: 'modern' }));
    const set = await d.api('POST', '/api/mcp/servers/level-modern/logging-level', { level: 'debug' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.loggingLevel).toBe('debug');
    expect(sentMethods('level-modern')).not.toContain('logging/setLevel');
    const echo = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'level-modern',
      toolName: 'echo',
      parameters: { message: 'quiet?' },
    });
    expect(echo.status).toBe(200);
    const call = d.daemon.bus
      .last(10_000)
      .filter((e): e is RpcMessageEntry => e.serverId === 'level-modern' && e.direction === 'send')
      .map((e) => e.message as { method?: string; params?: { _meta?: Record<string, unknown> } })
      .filter((m) => m.method === 'tools/call')
      .at(-1);
    expect(call?.params?._meta?.['io.modelcontextprotocol/logLevel']).toBe('debug');
    // The legacy era keeps logging/setLevel: tests/daemon/server-features.test.ts.
  });

  it('pings a modern server, which has no ping, with server/discover', async () => {
    await connect('ping-modern', modernStdio('modern', { era: 'modern' }));
    const ping = await d.api('POST', '/api/mcp/servers/ping-modern/ping');
    expect(ping.status, JSON.stringify(ping.body)).toBe(200);
    expect(ping.body).toEqual({ roundTripMs: expect.any(Number), method: 'server/discover' });
    expect(sentMethods('ping-modern')).not.toContain('ping');
    expect(sentMethods('ping-modern').filter((m) => m === 'server/discover')).toHaveLength(2);
  });

  it('refuses an era that is not auto, legacy or modern', async () => {
    const put = await d.api('PUT', '/api/mcp/servers/bad-era', {
      config: { ...everythingStdio(), era: 'ancient' },
    });
    expect(put.status).toBe(400);
    expect(put.body.code).toBe('invalid_request');
    expect(put.body.error).toMatch(/config\.era/);
    const imported = await d.api('POST', '/api/mcp/servers/import', {
      mcpServers: { 'bad-era': { command: 'node', era: 'ancient' } },
    });
    expect(imported.status).toBe(400);
    expect(imported.body.error).toContain('unknown era "ancient" (use auto, legacy or modern)');
  });
});
