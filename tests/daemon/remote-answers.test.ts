/**
 * Streamable HTTP and SSE servers that answer a call with an HTTP error status, a JSON body cut short, a
 * body that is not JSON, or JSON that is no JSON-RPC message. The call fails saying what the server did,
 * never that the connection was lost, with the config's secrets masked; the connection stays, and the
 * next call is answered on it once the server is well.
 */
import { describe, expect, it } from 'vitest';
import {
  daemonWith,
  type Fault,
  type FlakyServer,
  flakyHttp,
  flakySse,
  json,
  SECRET,
  serverError,
} from '../fixtures/flaky-remote-server.ts';
import type { TestDaemon } from './helpers.ts';

const call = (d: TestDaemon) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId: 'flaky', toolName: 'flaky' });

const statusOf = async (d: TestDaemon): Promise<string> =>
  (await d.api('GET', '/api/mcp/servers/flaky')).body.status;

/** Fails one call with `fault`, expects `error` for it, and the next call answered on the same connection. */
async function failsOnceThenAnswers(
  d: TestDaemon,
  server: FlakyServer,
  fault: Fault,
  error: RegExp,
  code: string,
): Promise<Record<string, unknown>> {
  expect((await call(d)).status).toBe(200);
  const initializes = server.initializes;
  server.faults.push(fault);
  const failed = await call(d);
  expect(failed.status).toBe(502);
  expect(failed.body.code).toBe('upstream_failed');
  expect(failed.body.error).toMatch(error);
  expect(failed.body.mcpError).toMatchObject({ code, message: failed.body.error });
  expect(JSON.stringify(failed.body)).not.toContain(SECRET);
  expect(await statusOf(d)).toBe('connected');
  const next = await call(d);
  expect(next.status).toBe(200);
  expect(next.body.result.content[0].text).toBe('fine');
  expect(server.initializes, 'the same connection answers').toBe(initializes);
  return failed.body.mcpError.data;
}

describe('a Streamable HTTP server answering a call with no JSON-RPC answer', () => {
  it('answered HTTP 500: the call says so with the start of its body, secrets masked, and the connection stays', async () => {
    const server = await flakyHttp();
    const d = await daemonWith(server, 'http');
    const data = await failsOnceThenAnswers(
      d,
      server,
      serverError,
      /^The server answered HTTP 500 Internal Server Error: TypeError: cannot read 'rows' of undefined at query \(db\.js:12\) with key \*{8}$/,
      'HTTP_STATUS',
    );
    expect(data).toEqual({ status: 500, statusText: 'Internal Server Error' });
  });

  it('answered HTTP 500 to every message for a while, pings too: it stays connected, and answers once well', async () => {
    const server = await flakyHttp();
    const d = await daemonWith(server, 'http');
    expect((await call(d)).status).toBe(200);
    server.down = true;
    for (let i = 0; i < 3; i++) {
      expect((await call(d)).body.mcpError.code).toBe('HTTP_STATUS');
      // Time for a ping to go out and be answered 500, were the answer taken for a broken stream.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await statusOf(d)).toBe('connected');
    }
    server.down = false;
    expect((await call(d)).status).toBe(200);
    expect(server.initializes).toBe(1);
  });

  it('answered a long 503 body: the error quotes only its start, a secret across the cut masked whole', async () => {
    const server = await flakyHttp();
    const d = await daemonWith(server, 'http');
    const long: Fault = (res) =>
      void res.writeHead(503).end(`<html>${'busy '.repeat(58)}${SECRET} ${'busy '.repeat(2000)}</html>`);
    server.faults.push(long);
    const failed = await call(d);
    expect(failed.body.error).not.toContain(SECRET.slice(0, 4));
    await failsOnceThenAnswers(
      d,
      server,
      long,
      /^The server answered HTTP 503 Service Unavailable: <html>(busy ){58}\*{4}…$/,
      'HTTP_STATUS',
    );
  });

  it('answered JSON cut short: the call says it is not JSON, after how many bytes', async () => {
    const server = await flakyHttp();
    const d = await daemonWith(server, 'http');
    const cut = json('{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","te');
    await failsOnceThenAnswers(
      d,
      server,
      cut,
      /^The server's answer of 63 bytes is not JSON: Unterminated string in JSON at position 63 \(line 1 column 64\); it begins: \{"jsonrpc":"2\.0","id":2,/,
      'NOT_JSON',
    );
  });

  it('answered an HTML page or nothing as JSON, JSON of another kind, or another Content-Type: the call says which', async () => {
    const server = await flakyHttp();
    const d = await daemonWith(server, 'http');
    await failsOnceThenAnswers(
      d,
      server,
      json(`<html>Bad gateway ${SECRET}</html>`),
      /^The server's answer of 46 bytes is not JSON: Unexpected token '<'; it begins: <html>Bad gateway \*{8}<\/html>$/,
      'NOT_JSON',
    );
    await failsOnceThenAnswers(
      d,
      server,
      json(''),
      /^The server's answer of 0 bytes is not JSON: Unexpected end of JSON input$/,
      'NOT_JSON',
    );
    await failsOnceThenAnswers(
      d,
      server,
      json('{"status":"error","reason":"maintenance"}'),
      /^The server's answer of 41 bytes is JSON but no JSON-RPC message \(no "jsonrpc": "2\.0"\); it begins: \{"status":"error","reason":"maintenance"\}$/,
      'NOT_JSON_RPC',
    );
    const html: Fault = (res) => void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>hi</p>');
    await failsOnceThenAnswers(
      d,
      server,
      html,
      /^The server's answer is not JSON: its Content-Type is text\/html, where an answer to a POST must be application\/json or text\/event-stream$/,
      'NOT_JSON',
    );
  });

  it('answered HTTP 404 (the session is gone): the call says so, and the next call opens a new session', async () => {
    const server = await flakyHttp();
    const d = await daemonWith(server, 'http');
    expect((await call(d)).status).toBe(200);
    server.faults.push((res) => void res.writeHead(404).end('Session not found'));
    const failed = await call(d);
    expect(failed.status).toBe(502);
    expect(failed.body.mcpError).toMatchObject({ code: 'HTTP_STATUS', data: { status: 404 } });
    expect(failed.body.error).toBe(
      'The server answered HTTP 404 Not Found: Session not found; the server no longer knows the session, so the connection is opened again on the next call',
    );
    const record = (await d.api('GET', '/api/mcp/servers/flaky')).body;
    expect(record).toMatchObject({ status: 'error', lastError: failed.body.error });
    expect((await call(d)).status).toBe(200);
    expect(server.initializes).toBe(2);
    expect(await statusOf(d)).toBe('connected');
  });
});

describe('an SSE server answering a POST with HTTP 500', () => {
  it('fails the call saying so, and the next call is answered on the same stream', async () => {
    const server = await flakySse();
    const d = await daemonWith(server, 'sse');
    const data = await failsOnceThenAnswers(
      d,
      server,
      serverError,
      /^The server answered HTTP 500 Internal Server Error: TypeError: cannot read 'rows' of undefined at query \(db\.js:12\) with key \*{8}$/,
      'HTTP_STATUS',
    );
    expect(data).toEqual({ status: 500, statusText: 'Internal Server Error' });
  });
});
