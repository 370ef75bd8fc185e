import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { FIXTURES, freePort, ROOT, startDaemon, stopProcess, TSX_LOADER } from './helpers.ts';

/** The WebSocket fixture server in its own process on `port`, once it listens. */
async function startWebSocketServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...TSX_LOADER, join(FIXTURES, 'websocket-server.ts'), String(port)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  onTestFinished(() => stopProcess(child));
  child.stdout?.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('listening on')) resolve();
    });
    child.once('exit', () => reject(new Error('the WebSocket fixture exited before it listened')));
  });
  return child;
}

const textOf = (result: { content?: Array<{ text?: string }> }): string =>
  (result.content ?? []).map((c) => c.text ?? '').join('\n');

describe('a server over WebSocket (the daemon’s own transport)', () => {
  it('connects, lists and calls tools with the configured headers, and reconnects after the server restarts', async () => {
    const port = await freePort();
    const server = await startWebSocketServer(port);
    const d = await startDaemon();
    onTestFinished(() => d.close());
    const put = await d.api('PUT', '/api/mcp/servers/ws', {
      config: { transport: 'websocket', url: `ws://127.0.0.1:${port}/`, headers: { 'X-Fixture-Key': 'k-1' } },
    });
    expect(put.status).toBe(201);

    const connected = await d.api('POST', '/api/mcp/servers/ws/connect');
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({
      status: 'connected',
      serverInfo: { name: 'websocket-fixture' },
      protocolVersion: '2025-11-25',
    });
    const listed = await d.api('POST', '/api/mcp/tools/list', { serverId: 'ws' });
    expect(listed.body.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'headers']);
    const echo = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'ws',
      toolName: 'echo',
      parameters: { message: 'over a socket' },
    });
    expect(echo.status).toBe(200);
    expect(textOf(echo.body.result)).toBe('Echo: over a socket');
    const headers = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'ws',
      toolName: 'headers',
      parameters: {},
    });
    expect(textOf(headers.body.result)).toBe('key: k-1');

    await stopProcess(server);
    await vi.waitFor(async () => {
      const record = await d.api('GET', '/api/mcp/servers/ws');
      expect(record.body.status).toBe('error');
    });
    await startWebSocketServer(port);
    const again = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'ws',
      toolName: 'echo',
      parameters: { message: 'again' },
    });
    expect(again.status).toBe(200);
    expect(textOf(again.body.result)).toBe('Echo: again');
  });

  it('explains a refused connection', async () => {
    const port = await freePort();
    const d = await startDaemon();
    onTestFinished(() => d.close());
    await d.api('PUT', '/api/mcp/servers/ws', {
      config: { transport: 'websocket', url: `ws://127.0.0.1:${port}/` },
    });
    const connected = await d.api('POST', '/api/mcp/servers/ws/connect');
    expect(connected.status).toBe(502);
    expect(connected.body).toMatchObject({
      code: 'upstream_failed',
      mcpError: { code: 'CONNECTION_REFUSED' },
    });
    expect(connected.body.error).toContain(`Connection refused at ws://127.0.0.1:${port}/`);
  });
});
