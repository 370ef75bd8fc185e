import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';
import { type LiveConnection, ofType, openLive, rpcMessages } from './live-helpers.ts';

async function daemon(): Promise<TestDaemon> {
  const d = await startDaemon();
  onTestFinished(() => d.close());
  return d;
}

/** A plain HTTP server on loopback that records the headers of every request and answers 404. */
async function recordingHost(): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen };
}

const registry = async (d: TestDaemon): Promise<any> =>
  JSON.parse(await readFile(join(d.dataDir, 'servers.json'), 'utf8'));

describe('secrets of a server config', () => {
  it('masks URL userinfo and credential-like query values in records, status events and errors', async () => {
    const d = await daemon();
    const live: LiveConnection = await openLive(d);
    onTestFinished(() => live.close());
    const url = 'http://bob:hunter2hunter@127.0.0.1:1/mcp?api_key=abc123secret&mode=fast';
    const put = await d.api('PUT', '/api/mcp/servers/remote', { config: { transport: 'http', url } });
    expect(put.body.config.url).toBe('http://********:********@127.0.0.1:1/mcp?api_key=********&mode=fast');
    expect((await d.api('POST', '/api/mcp/servers/remote/connect')).status).toBe(502);
    const record = (await d.api('GET', '/api/mcp/servers/remote')).body;
    expect(record.status).toBe('error');
    await live.until((m) => ofType(m, 'server-status').some((s) => s.server.status === 'error'));
    const everything = JSON.stringify([record, live.messages]);
    for (const secret of ['bob', 'hunter2hunter', 'abc123secret']) expect(everything).not.toContain(secret);
    // The registry keeps the real URL: the daemon must still be able to connect.
    expect((await registry(d)).mcpServers.remote.url).toBe(url);
  });

  it("masks the config's secrets in a server's error answer (message, data values and keys) and in what it says of itself", async () => {
    const d = await daemon();
    const secret = 'sk-error-secret-98765';
    const put = await d.api('PUT', '/api/mcp/servers/careless', {
      config: fixtureStdio('tools-server.ts', { FIXTURE_ERROR_SECRET: secret }),
    });
    expect(put.status).toBe(201);
    const live = await openLive(d, { replay: '100' });
    onTestFinished(() => live.close());
    const call = await d.api('POST', '/api/mcp/tools/execute', { serverId: 'careless', toolName: 'ping' });
    expect(call.status).toBe(502);
    expect(JSON.stringify(call.body)).not.toContain(secret);
    expect(call.body).toMatchObject({
      code: 'mcp_error',
      error: 'No pong today (key ********)',
      mcpError: { code: -32603, data: { key: '********', '********': 'as a key' } },
    });
    const record = (await d.api('GET', '/api/mcp/servers/careless')).body;
    expect(record.serverInfo).toEqual({ name: 'tools-fixture', version: '1.0.0+********' });
    expect(record.capabilities.experimental).toEqual({ '********': { key: '********' } });
    await live.until((m) => rpcMessages(m).some((entry) => 'error' in entry.message));
    expect(JSON.stringify([record, live.messages])).not.toContain(secret);
  });

  it('keeps masked secrets sent back for the same origin, and drops them when the URL moves to another', async () => {
    const d = await daemon();
    const first = await recordingHost();
    const second = await recordingHost();
    const stored = {
      transport: 'http',
      url: `${first.url.replace('//', '//user:pa55word@')}?token=t0ken-value`,
      headers: { Authorization: 'Bearer very-secret-credential' },
    };
    await d.api('PUT', '/api/mcp/servers/remote', { config: stored });
    const masked = (await d.api('GET', '/api/mcp/servers/remote')).body.config;

    await d.api('PUT', '/api/mcp/servers/remote', {
      config: { ...masked, url: masked.url.replace('/mcp', '/v2') },
    });
    const kept = (await registry(d)).mcpServers.remote;
    expect(kept.headers).toEqual({ Authorization: 'Bearer very-secret-credential' });
    expect(kept.url).toBe(stored.url.replace('/mcp', '/v2'));

    const moved = masked.url.replace(new URL(first.url).host, new URL(second.url).host);
    await d.api('PUT', '/api/mcp/servers/remote', { config: { ...masked, url: moved } });
    const dropped = (await registry(d)).mcpServers.remote;
    expect(dropped.headers).toEqual({});
    expect(dropped.url).toBe(second.url);
    await d.api('POST', '/api/mcp/servers/remote/connect');
    expect(second.seen.length).toBeGreaterThan(0);
    for (const headers of second.seen) {
      expect(headers.authorization).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain('very-secret-credential');
    }
  });

  it('redacts every env value, credential-like or not, from stderr lines and lastError', async () => {
    const d = await daemon();
    const greeting = 'hello from the config';
    const config = fixtureStdio('stderr-server.ts', { GREETING: greeting, API_KEY: 'x' });
    await d.api('PUT', '/api/mcp/servers/noisy', { config });
    const live = await openLive(d, { replay: '100' });
    onTestFinished(() => live.close());
    const call = await d.api('POST', '/api/mcp/tools/execute', { serverId: 'noisy', toolName: 'exit' });
    expect(call.status).toBe(502);
    const record = (await d.api('GET', '/api/mcp/servers/noisy')).body;
    expect(record.status).toBe('error');
    expect(record.lastError).toContain('leaving: ********');
    await live.until((m) =>
      m.some(
        (x) => x.type === 'rpc' && x.entry.direction === 'stderr' && x.entry.message === 'leaving: ********',
      ),
    );
    expect(JSON.stringify([record, call.body, live.messages])).not.toContain(greeting);
    expect(record.config.env).toEqual({ GREETING: '********', API_KEY: '********' });
  });
});

describe('URL credentials', () => {
  it('reach the server as Basic credentials, since fetch refuses a URL with userinfo', async () => {
    const d = await daemon();
    const host = await recordingHost();
    const url = host.url.replace('//', '//ann%40example.com:s3cr3t%3Apass@');
    await d.api('PUT', '/api/mcp/servers/remote', { config: { transport: 'http', url } });
    await d.api('POST', '/api/mcp/servers/remote/connect');
    expect(host.seen[0]?.authorization).toBe(
      `Basic ${Buffer.from('ann@example.com:s3cr3t:pass').toString('base64')}`,
    );
  });
});
