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

/**
 * A hostile MCP server over WebSocket in this process, answering by hand: `big` answers with a text of
 * `bytes` characters, `ask` first sends the daemon an `elicitation/create` whose params are null and
 * answers with what came back; any other request gets "method not found".
 */
async function startHostileServer(): Promise<{ port: number; answers: unknown[] }> {
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'mcp' });
  onTestFinished(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  const answers: unknown[] = [];
  wss.on('connection', (socket) => {
    const send = (message: unknown): void => socket.send(JSON.stringify(message));
    let pendingAsk: unknown;
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        id?: unknown;
        method?: string;
        params?: { protocolVersion?: string; name?: string; arguments?: { bytes?: number } };
      };
      const { id, method, params } = message;
      if (method === undefined) {
        // The daemon's answer to the server's own request.
        answers.push(message);
        send({ jsonrpc: '2.0', id: pendingAsk, result: { content: [{ type: 'text', text: 'answered' }] } });
        return;
      }
      if (id === undefined) return;
      if (method === 'initialize') {
        send({
          jsonrpc: '2.0',
          id,
          result: {
            protocolVersion: params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'hostile-ws', version: '1.0.0' },
          },
        });
      } else if (method === 'tools/list') {
        const schema = { type: 'object' };
        const tools = ['big', 'ask', 'garbage', 'not-rpc'].map((name) => ({ name, inputSchema: schema }));
        send({ jsonrpc: '2.0', id, result: { tools } });
      } else if (method === 'tools/call' && params?.name === 'big') {
        const text = 'w'.repeat(params.arguments?.bytes ?? 0);
        send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
      } else if (method === 'tools/call' && params?.name === 'garbage') {
        socket.send('<html>oops</html>');
      } else if (method === 'tools/call' && params?.name === 'not-rpc') {
        socket.send('{"hello":1}');
      } else if (method === 'tools/call' && params?.name === 'ask') {
        pendingAsk = id;
        send({ jsonrpc: '2.0', id: 'ask-1', method: 'elicitation/create', params: null });
      } else {
        send({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
      }
    });
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  return { port: (wss.address() as { port: number }).port, answers };
}

describe('a hostile server over WebSocket', () => {
  it('holds its messages to maxMessageBytes and answers its malformed requests', async () => {
    const MiB = 1024 * 1024;
    const { port, answers } = await startHostileServer();
    const d = await startDaemon({ maxMessageBytes: MiB });
    onTestFinished(() => d.close());
    expect(
      (
        await d.api('PUT', '/api/mcp/servers/ws', {
          config: { transport: 'websocket', url: `ws://127.0.0.1:${port}/` },
        })
      ).status,
    ).toBe(201);
    const call = (toolName: string, bytes = 0) =>
      d.api('POST', '/api/mcp/tools/execute', { serverId: 'ws', toolName, parameters: { bytes } });

    const small = await call('big', 1000);
    expect(small.status).toBe(200);
    expect(textOf(small.body.result)).toHaveLength(1000);

    const tooLarge = await call('big', 2 * MiB);
    expect(tooLarge.status).toBe(502);
    expect(tooLarge.body).toMatchObject({ code: 'upstream_failed', mcpError: { code: 'MESSAGE_TOO_LARGE' } });
    expect(tooLarge.body.error).toContain("larger than the daemon's limit of 1 MiB");

    // The next call connects again.
    const again = await call('big', 10);
    expect(again.status).toBe(200);

    const asked = await call('ask');
    expect(asked.status).toBe(200);
    expect(answers).toEqual([
      {
        jsonrpc: '2.0',
        id: 'ask-1',
        error: expect.objectContaining({
          code: -32602,
          message: expect.stringContaining('The elicitation/create request is malformed'),
        }),
      },
    ]);
  });
});

describe('a WebSocket server sending what is no JSON-RPC message', () => {
  it('fails the waiting call at once, saying what came, logs it, and the next call works', async () => {
    const { port } = await startHostileServer();
    // The time-out only bounds the test without the fix; the fixed daemon answers at once.
    const d = await startDaemon({ toolTimeoutMs: 4_000 });
    onTestFinished(() => d.close());
    await d.api('PUT', '/api/mcp/servers/ws', {
      config: { transport: 'websocket', url: `ws://127.0.0.1:${port}/` },
    });
    const call = (toolName: string, bytes = 0) =>
      d.api('POST', '/api/mcp/tools/execute', { serverId: 'ws', toolName, parameters: { bytes } });

    const garbage = await call('garbage');
    expect(garbage.status).toBe(502);
    expect(garbage.body).toMatchObject({ code: 'upstream_failed', mcpError: { code: 'NOT_JSON' } });
    expect(garbage.body.error).toMatch(
      /^The server's WebSocket message of 17 bytes is not JSON: .*it begins: <html>oops<\/html>/,
    );
    expect(garbage.body.error).toContain('which call it answers cannot be told');

    const notRpc = await call('not-rpc');
    expect(notRpc.status).toBe(502);
    expect(notRpc.body).toMatchObject({ code: 'upstream_failed', mcpError: { code: 'NOT_JSON_RPC' } });

    const events = d.daemon.bus.since(0).filter((entry) => entry.direction === 'event');
    expect(events.map((entry) => entry.message)).toEqual(['<html>oops</html>', '{"hello":1}']);
    const fine = await call('big', 5);
    expect(fine.status).toBe(200);
  });
});
