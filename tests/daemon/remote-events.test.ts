/**
 * Streamable HTTP and SSE servers (plain node:http, JSON-RPC written by hand) that send an event whose
 * data is not JSON, or is JSON but no JSON-RPC message, where a call's answer should be. The call fails
 * at once with 502 saying what the server sent (secrets masked), where it waited for its time-out; the
 * log shows the event; the server stays connected and the next call is answered on the same connection.
 * The tool time-out is short only so that the old behaviour fails in reasonable time.
 */
import { describe, expect, it } from 'vitest';
import type { RpcLogEntry } from '../../shared/logs.ts';
import {
  daemonWith,
  type Fault,
  type FlakyServer,
  flakyHttp,
  flakySse,
  SECRET,
} from '../fixtures/flaky-remote-server.ts';
import type { TestDaemon } from './helpers.ts';

const TOOL_TIMEOUT_MS = 4_000;

const call = (d: TestDaemon) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId: 'flaky', toolName: 'flaky' });

/** A Streamable HTTP POST answered with an event stream holding `events`, left open unless `end`. */
const eventStream =
  (events: (id: unknown) => string[], end = false): Fault =>
  (res, id) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    for (const data of events(id)) res.write(`event: message\ndata: ${data}\n\n`);
    if (end) res.end();
  };

/** An SSE server's POST accepted, and `data` sent on its event stream instead of the answer. */
const onStream =
  (server: FlakyServer, data: (id: unknown) => string): Fault =>
  (res, id) => {
    res.writeHead(202).end('Accepted');
    server.stream?.write(`data: ${data(id)}\n\n`);
  };

const eventsLogged = (d: TestDaemon): string[] =>
  d.daemon.bus
    .since(0)
    .filter((entry: RpcLogEntry) => entry.direction === 'event')
    .map((entry) => String(entry.message));

/** Fails one call with `fault`, at once, with `error`; the next call is answered on the same connection. */
async function failsAtOnce(
  d: TestDaemon,
  server: FlakyServer,
  fault: Fault,
  error: RegExp,
  code: string,
): Promise<void> {
  expect((await call(d)).status).toBe(200);
  const initializes = server.initializes;
  server.faults.push(fault);
  const started = performance.now();
  const failed = await call(d);
  expect(performance.now() - started, 'failed at once, not at the time-out').toBeLessThan(
    TOOL_TIMEOUT_MS / 2,
  );
  expect(failed.status, JSON.stringify(failed.body)).toBe(502);
  expect(failed.body.code).toBe('upstream_failed');
  expect(failed.body.error).toMatch(error);
  expect(failed.body.mcpError).toMatchObject({ code, message: failed.body.error });
  expect(JSON.stringify(failed.body)).not.toContain(SECRET.slice(0, 5));
  expect((await d.api('GET', '/api/mcp/servers/flaky')).body.status).toBe('connected');
  const next = await call(d);
  expect(next.status).toBe(200);
  expect(next.body.result.content[0].text).toBe('fine');
  expect(server.initializes, 'the same connection answers').toBe(initializes);
}

describe('a Streamable HTTP server answering a call with an event stream of no JSON-RPC message', () => {
  it('an event that is not JSON fails the call at once, quoting its start with secrets masked, and is logged', async () => {
    const server = await flakyHttp();
    const d = await daemonWith(server, 'http', { toolTimeoutMs: TOOL_TIMEOUT_MS });
    // A secret across the 300th character: masked whole before the quote is cut.
    const page = `<html>${'busy '.repeat(58)}${SECRET} ${'busy '.repeat(200)}</html>`;
    await failsAtOnce(
      d,
      server,
      eventStream(() => [page]),
      /^The server's event of 1325 bytes is not JSON: Unexpected token '<'; it begins: <html>(busy ){58}\*{4}…$/,
      'NOT_JSON',
    );
    const logged = eventsLogged(d);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^<html>(busy ){58}\*{4}…$/);
  });

  it('JSON of another kind, or a response to the call that breaks JSON-RPC, after a notification that passes', async () => {
    const server = await flakyHttp();
    const d = await daemonWith(server, 'http', { toolTimeoutMs: TOOL_TIMEOUT_MS });
    await failsAtOnce(
      d,
      server,
      eventStream(() => ['{"status":"error","reason":"maintenance"}'], true),
      /^The server's event of 41 bytes is JSON but no JSON-RPC message; it begins: \{"status":"error","reason":"maintenance"\}$/,
      'NOT_JSON_RPC',
    );
    const progress = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'working' },
    });
    await failsAtOnce(
      d,
      server,
      eventStream((id) => [progress, JSON.stringify({ jsonrpc: '2.0', id, result: 'done' })]),
      /^The server's event of \d+ bytes is JSON but no JSON-RPC message; it begins: \{"jsonrpc":"2\.0","id":\d+,"result":"done"\}$/,
      'NOT_JSON_RPC',
    );
    const received = d.daemon.bus
      .since(0)
      .filter((entry) => entry.direction === 'receive' && entry.message.method === 'notifications/message');
    expect(received, 'the notification before it passed').toHaveLength(1);
  });
});

describe('an SSE server sending an event of no JSON-RPC message on its stream', () => {
  it('not JSON: it cannot be told which call it answers, so the calls waiting fail at once, saying so', async () => {
    const server = await flakySse();
    const d = await daemonWith(server, 'sse', { toolTimeoutMs: TOOL_TIMEOUT_MS });
    await failsAtOnce(
      d,
      server,
      onStream(server, () => `Internal error, key ${SECRET}`),
      /^The server's event of 41 bytes is not JSON: Unexpected token 'I'; it begins: Internal error, key \*{8}\. It came on the event stream that carries the answers to every call, so which call it answers cannot be told: each call waiting for an answer fails$/,
      'NOT_JSON',
    );
    expect(eventsLogged(d)).toEqual(['Internal error, key ********']);
  });

  it("JSON naming the call's id that is no JSON-RPC response fails that call", async () => {
    const server = await flakySse();
    const d = await daemonWith(server, 'sse', { toolTimeoutMs: TOOL_TIMEOUT_MS });
    await failsAtOnce(
      d,
      server,
      onStream(server, (id) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] }, error: null })),
      /^The server's event of \d+ bytes is JSON but no JSON-RPC message; it begins: \{"jsonrpc":"2\.0","id":\d+,"result":\{"content":\[\]\},"error":null\}$/,
      'NOT_JSON_RPC',
    );
  });
});
