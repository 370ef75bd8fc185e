/**
 * A hostile Streamable HTTP server (plain node:http, JSON-RPC written by hand) whose answers pass the
 * daemon's message size limit: a JSON body, one that is small on the wire and inflates past it (gzip),
 * and one event of an event stream. Each fails its call with 502 MESSAGE_TOO_LARGE without the daemon
 * holding it, and the next call connects again.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, onTestFinished } from 'vitest';
import { sizeLimitedFetch } from '../../daemon/mcp/transports/size-limited-fetch.ts';
import { startDaemon } from './helpers.ts';

const KiB = 1024;
const LIMIT = 256 * KiB;

/** The result of a tools/call whose text is `bytes` long. */
const textResult = (id: unknown, bytes: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'x'.repeat(bytes) }] } });

function answer(
  res: ServerResponse,
  message: { id?: unknown; method?: string; params?: { name?: string } },
): void {
  const { id, method } = message;
  const json = (body: string | Buffer, headers: Record<string, string> = {}): void =>
    void res.writeHead(200, { 'Content-Type': 'application/json', ...headers }).end(body);
  if (id === undefined) return void res.writeHead(202).end();
  if (method === 'initialize') {
    return json(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'big', version: '1' },
        },
      }),
    );
  }
  if (method === 'tools/list') {
    const tools = ['small', 'large-json', 'large-gzip', 'large-event'].map((name) => ({
      name,
      inputSchema: { type: 'object' },
    }));
    return json(JSON.stringify({ jsonrpc: '2.0', id, result: { tools } }));
  }
  if (method !== 'tools/call') {
    return json(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
  }
  switch (message.params?.name) {
    case 'small':
      return json(textResult(id, 100));
    case 'large-json':
      return json(textResult(id, 4 * LIMIT));
    case 'large-gzip':
      // Some 4 KiB on the wire, 4 MiB once inflated.
      return json(gzipSync(textResult(id, 16 * LIMIT)), { 'Content-Encoding': 'gzip' });
    default:
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      // Small events pass; the one past the limit resets the connection.
      res.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(LIMIT / 2) } })}\n\n`,
      );
      res.end(`event: message\ndata: ${textResult(id, 4 * LIMIT)}\n\n`);
      return;
  }
}

async function bigServer(): Promise<string> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(res, JSON.parse(Buffer.concat(chunks).toString('utf8'))));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('messages of an HTTP server past the size limit', () => {
  it('fails the call with 502 MESSAGE_TOO_LARGE for a JSON answer, a gzip that inflates past it and one event, and connects again', async () => {
    const d = await startDaemon({ maxMessageBytes: LIMIT });
    onTestFinished(() => d.close());
    const url = await bigServer();
    expect((await d.api('PUT', '/api/mcp/servers/big', { config: { transport: 'http', url } })).status).toBe(
      201,
    );
    const call = (toolName: string) => d.api('POST', '/api/mcp/tools/execute', { serverId: 'big', toolName });

    expect((await call('small')).status).toBe(200);
    for (const tool of ['large-json', 'large-gzip', 'large-event']) {
      const refused = await call(tool);
      expect(refused.status, tool).toBe(502);
      expect(refused.body.error, tool).toMatch(
        /past the daemon's limit of 256 KiB \(option maxMessageBytes\): the connection was reset\.$/,
      );
      expect(refused.body.mcpError, tool).toMatchObject({
        code: 'MESSAGE_TOO_LARGE',
        data: { limit: LIMIT },
      });
      expect((await d.api('GET', '/api/mcp/servers/big')).body.lastError, tool).toContain(
        'it is opened again on the next call',
      );
      const again = await call('small');
      expect(again.status, tool).toBe(200);
    }
  });
});

describe('an event stream held to the size limit, event by event', () => {
  const event = (bytes: number) => `event: message\r\ndata: ${'x'.repeat(bytes)}\r\n\r\n`;

  /** A plain HTTP server that sends `pieces` of an event stream, a pause between them. */
  async function streaming(pieces: string[]): Promise<string> {
    const server = createServer(async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (const piece of pieces) {
        res.write(piece);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      res.end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  it('refuses one event past the limit that comes in one piece with its blank line, and passes smaller ones however split', async () => {
    const refused: string[] = [];
    const limited = sizeLimitedFetch(fetch, 100, (error) => refused.push(error.message));
    const whole = await limited(await streaming([event(150)]), {});
    await expect(whole.text()).rejects.toThrow(/past the daemon's limit of 100 bytes/);
    expect(refused).toHaveLength(1);

    const stream = event(60).repeat(3);
    const pieces = stream.match(/[^]{1,7}/g) ?? [];
    const split = await limited(await streaming(pieces), {});
    expect(await split.text()).toBe(stream);
    expect(refused).toHaveLength(1);
  });
});
