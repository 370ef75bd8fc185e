/**
 * A Streamable HTTP server (plain node:http, JSON-RPC written by hand) that answers the POST of a tool
 * call with no response to it: a JSON body of other messages, a 202 Accepted, an event stream that ends
 * without the response. None can come later on another stream (the MCP Streamable HTTP transport
 * answers a request in the POST's JSON body or on its event stream and that stream's resumptions), so
 * the call fails at once with 502 saying what the server did, and the server stays connected. The tool
 * time-out is short only so that the old behaviour fails in reasonable time: nothing here waits for it.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { daemonWith } from '../fixtures/flaky-remote-server.ts';
import type { TestDaemon } from './helpers.ts';

const TOOL_TIMEOUT_MS = 6_000;

type Message = Record<string, unknown> & { id?: unknown; method?: string };

/** What the server does with one tools/call, or with a GET (`message` undefined). */
type Play = (res: ServerResponse, message: Message | undefined) => void;

interface Server {
  url: string;
  /** What the next tools/calls do, in turn; a call with none is answered "fine". */
  calls: Play[];
  /** What GETs do; none: 405. */
  get?: Play;
  gets: Headers[];
  initializes: number;
}

const fine = (id: unknown): Message => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text: 'fine' }] },
});

const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } };

async function readMessage(req: IncomingMessage): Promise<Message> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Message;
}

async function hostile(): Promise<Server> {
  const state: Server = { url: '', calls: [], gets: [], initializes: 0 };
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET') {
        state.gets.push(new Headers(req.headers as Record<string, string>));
        return state.get ? state.get(res, undefined) : void res.writeHead(405).end();
      }
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = await readMessage(req);
      if (message.method === 'initialize') state.initializes++;
      if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();
      const play = message.method === 'tools/call' ? state.calls.shift() : undefined;
      if (play) return play(res, message);
      const result =
        message.method === 'initialize'
          ? {
              protocolVersion: '2025-06-18',
              capabilities: { tools: {} },
              serverInfo: { name: 'hostile', version: '1' },
            }
          : message.method === 'tools/list'
            ? { tools: [{ name: 'ask', inputSchema: { type: 'object' } }] }
            : {};
      const answer =
        message.method === 'tools/call' ? fine(message.id) : { jsonrpc: '2.0', id: message.id, result };
      res.writeHead(200, { 'Mcp-Session-Id': 'session-1', 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer));
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return state;
}

const json =
  (body: (id: unknown) => string): Play =>
  (res, message) => {
    res.writeHead(200, { 'Mcp-Session-Id': 'session-1', 'Content-Type': 'application/json' });
    res.end(body(message?.id));
  };

const stream =
  (text: (id: unknown) => string): Play =>
  (res, message) => {
    res.writeHead(200, { 'Mcp-Session-Id': 'session-1', 'Content-Type': 'text/event-stream' });
    res.end(text(message?.id));
  };

const event = (message: Message, id?: string) =>
  `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(message)}\n\n`;

/** The Last-Event-ID of each GET that resumed a stream (the SDK's own GET stream carries none). */
const resumptions = (server: Server) =>
  server.gets.map((headers) => headers.get('last-event-id')).filter((id) => id !== null);

const call = (d: TestDaemon) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId: 'flaky', toolName: 'ask' });

async function connected(): Promise<{ d: TestDaemon; server: Server }> {
  const server = await hostile();
  const d = await daemonWith({ ...server, faults: [], handshakeFaults: [] }, 'http', {
    toolTimeoutMs: TOOL_TIMEOUT_MS,
  });
  expect((await call(d)).status).toBe(200);
  return { d, server };
}

/** The next call, answered by `play`, fails at once with 502 `error`; the same connection answers the next. */
async function failsAtOnce(d: TestDaemon, server: Server, play: Play, error: string): Promise<void> {
  server.calls.push(play);
  const started = performance.now();
  const failed = await call(d);
  expect(performance.now() - started, 'failed at once, not at the time-out').toBeLessThan(
    TOOL_TIMEOUT_MS / 2,
  );
  expect(failed.status, JSON.stringify(failed.body)).toBe(502);
  expect(failed.body).toMatchObject({ code: 'upstream_failed', error, mcpError: { code: 'NO_RESPONSE' } });
  expect((await d.api('GET', '/api/mcp/servers/flaky')).body.status).toBe('connected');
  const next = await call(d);
  expect(next.status).toBe(200);
  expect(next.body.result.content[0].text).toBe('fine');
  expect(server.initializes, 'the same connection answers').toBe(1);
}

describe('a Streamable HTTP server whose answer to a call holds no response to it', () => {
  it('a JSON body of a notification, or of a response to another call, fails the call at once saying so', async () => {
    const { d, server } = await connected();
    const noted = JSON.stringify(note);
    await failsAtOnce(
      d,
      server,
      json(() => noted),
      `The server answered the POST of tools/call with a JSON body that holds no response to it: ${noted}`,
    );
    // The notification is logged as received, as it came.
    const received = d.daemon.bus
      .since(0)
      .filter((entry) => entry.type === 'rpc' && entry.direction === 'receive')
      .map((entry) => (entry as { message: unknown }).message);
    expect(received).toContainEqual(note);
    const other = JSON.stringify(fine(9999));
    await failsAtOnce(
      d,
      server,
      json(() => other),
      `The server answered the POST of tools/call with a JSON body that holds no response to it: ${other}`,
    );
    const malformed = JSON.stringify({
      jsonrpc: '2.0',
      id: 'ask-1',
      method: 'elicitation/create',
      params: null,
    });
    await failsAtOnce(
      d,
      server,
      json(() => malformed),
      `The server answered the POST of tools/call with a JSON body that holds no response to it: ${malformed}`,
    );
  });

  it('an empty body or an empty array fails the call at once saying so', async () => {
    const { d, server } = await connected();
    for (const [body, error] of [
      ['', "The server's answer of 0 bytes is not JSON: Unexpected end of JSON input"],
      [
        '[]',
        "The server's answer of 2 bytes is an empty JSON array: it holds no JSON-RPC message; it begins: []",
      ],
    ] as const) {
      server.calls.push(json(() => body));
      const started = performance.now();
      const failed = await call(d);
      expect(performance.now() - started).toBeLessThan(TOOL_TIMEOUT_MS / 2);
      expect(failed.status).toBe(502);
      expect(failed.body.error).toBe(error);
      expect((await call(d)).status).toBe(200);
    }
    expect(server.initializes).toBe(1);
  });

  it('a 202 Accepted fails the call at once saying so', async () => {
    const { d, server } = await connected();
    await failsAtOnce(
      d,
      server,
      (res) => void res.writeHead(202).end(),
      'The server answered the POST of tools/call with HTTP 202 Accepted, which is for notifications and responses: a request is answered with a JSON body or an event stream, so no answer will come',
    );
  });

  it('an event stream that ends without the response and with no event id fails the call at once', async () => {
    const { d, server } = await connected();
    await failsAtOnce(
      d,
      server,
      stream(() => event(note)),
      'The server ended the event stream of the POST of tools/call without a response to it, and with no event id to resume the stream by, so no answer can come',
    );
    await failsAtOnce(
      d,
      server,
      stream(() => ''),
      'The server ended the event stream of the POST of tools/call without a response to it, and with no event id to resume the stream by, so no answer can come',
    );
  });

  it('an event stream that breaks without the response and with no event id fails the call at once', async () => {
    const { d, server } = await connected();
    // The connection is cut in the middle of the stream: after a notification, and in an event.
    const breaks =
      (text: string): Play =>
      (res) => {
        res.writeHead(200, { 'Mcp-Session-Id': 'session-1', 'Content-Type': 'text/event-stream' });
        res.write(text, () => res.socket?.destroy());
      };
    for (const text of [event(note), 'data: {"jsonrpc":"2.0",']) {
      await failsAtOnce(
        d,
        server,
        breaks(text),
        'The event stream of the POST of tools/call broke before a response to it (terminated: other side closed), and with no event id to resume the stream by, so no answer can come',
      );
    }
  });

  it('an event stream that breaks after an event id is resumed, and the answer on the resumed stream completes the call', async () => {
    const { d, server } = await connected();
    let callId: unknown;
    server.calls.push((res, message) => {
      callId = message?.id;
      res.writeHead(200, { 'Mcp-Session-Id': 'session-1', 'Content-Type': 'text/event-stream' });
      res.write(event(note, 'e-1'), () => res.socket?.destroy());
    });
    server.get = (res) => stream(() => event(fine(callId), 'e-2'))(res, undefined);
    const executed = await call(d);
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    expect(resumptions(server)).toEqual(['e-1']);
  });

  it('an event stream that ends with an event id is resumed, and the answer on the resumed stream completes the call', async () => {
    const { d, server } = await connected();
    let callId: unknown;
    server.calls.push((res, message) => {
      callId = message?.id;
      stream(() => event(note, 'e-1'))(res, message);
    });
    server.get = (res) => stream(() => event(fine(callId), 'e-2'))(res, undefined);
    const executed = await call(d);
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    expect(resumptions(server)).toEqual(['e-1']);
  });

  it('an event stream that ends with an event id whose resumption the server refuses fails the call at once', async () => {
    const { d, server } = await connected();
    await failsAtOnce(
      d,
      server,
      stream(() => event(note, 'e-1')),
      'The server ended the event stream of the POST of tools/call without a response to it, and resuming the stream (GET with Last-Event-ID) failed: the server answered HTTP 405 Method Not Allowed, so no answer can come',
    );
    expect(resumptions(server)).toEqual(['e-1']);
  });

  it('a resumed stream that ends without the response and with no event id fails the call at once', async () => {
    const { d, server } = await connected();
    server.get = stream(() => event(note));
    await failsAtOnce(
      d,
      server,
      stream(() => event(note, 'e-1')),
      'The server ended the resumed event stream of the POST of tools/call without a response to it, and with no event id to resume the stream by, so no answer can come',
    );
  });
});
