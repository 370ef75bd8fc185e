/**
 * Failure texts are cut short at 400 characters: a secret of the server's config across the cut is
 * masked whole before the text is cut, never shown in part, in the debug line of a transport error and
 * in a connect failure explained by its text. Hand-written SSE servers (plain node:http).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { daemonWith, flakySse, SECRET } from '../fixtures/flaky-remote-server.ts';
import { startDaemon, type TestDaemon } from './helpers.ts';

const call = (d: TestDaemon) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId: 'flaky', toolName: 'flaky' });

describe('a failure text with a secret across the cut at 400 characters', () => {
  it('the debug line of a transport error masks the secret whole before it is cut', async () => {
    const server = await flakySse();
    const debug: string[] = [];
    const d = await daemonWith(server, 'sse', { debug: (line) => debug.push(line) });
    expect((await call(d)).status).toBe(200);
    // "Error POSTing to endpoint (HTTP 500): " is 38 characters: the secret starts at 397.
    const body = `${'x'.repeat(359)}${SECRET} and more`;
    server.faults.push((res) => void res.writeHead(500).end(body));
    expect((await call(d)).body.mcpError.code).toBe('HTTP_STATUS');
    const line = debug.find((text) => text.includes('transport error'));
    expect(line).toMatch(/^flaky: transport error: Error POSTing to endpoint \(HTTP 500\): x{359}\*{3}…$/);
    expect(debug.join('\n')).not.toContain(SECRET.slice(0, 3));
  });

  it('a connect failure explained by its text masks the secret whole before it is cut', async () => {
    // An SSE server naming an endpoint at another origin, whose host holds the secret around character 400.
    const host = `${`${'a'.repeat(62)}.`.repeat(5)}${'a'.repeat(23)}.${SECRET}.example`;
    const server = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`event: endpoint\ndata: http://${host}/messages\n\n`);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    onTestFinished(() => {
      server.closeAllConnections();
      server.close();
    });
    const d = await startDaemon();
    onTestFinished(() => d.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`;
    const config = { transport: 'sse', url, headers: { 'X-Api-Key': SECRET } };
    expect((await d.api('PUT', '/api/mcp/servers/elsewhere', { config })).status).toBe(201);
    const failed = await d.api('POST', '/api/mcp/servers/elsewhere/connect');
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatch(
      /Endpoint origin does not match connection origin: http:\/\/a+\.[a.]+\*+…$/,
    );
    expect(JSON.stringify(failed.body)).not.toContain(SECRET.slice(0, 3));
    const record = (await d.api('GET', '/api/mcp/servers/elsewhere')).body;
    expect(JSON.stringify(record)).not.toContain(SECRET.slice(0, 3));
  });
});
