/**
 * Streamable HTTP and SSE servers (plain node:http, JSON-RPC written by hand) that send, while a tool
 * call runs, a request the SDK's strict parse refuses (elicitation/create with params null), or answer
 * a call with a JSON body the SDK refuses. The request is answered as a STDIO server's is, with -32602
 * saying what is wrong, logged once as received and the answer as sent; a malformed response fails its
 * call at once with 502 in logging-transport's words. The tool time-out is short only so that the old
 * behaviour fails in reasonable time: nothing here waits for it.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { daemonWith } from '../fixtures/flaky-remote-server.ts';
import type { TestDaemon } from './helpers.ts';

const TOOL_TIMEOUT_MS = 4_000;

type Message = Record<string, unknown> & { id?: unknown; method?: string };

/** What a server does with one tools/call: `send` writes events to the daemon on the call's way back. */
type CallPlay = (id: unknown, send: Send, end: (message: Message) => void) => void;

/** Writes each message as an event, all in one write. */
type Send = (...messages: Message[]) => void;

const events = (messages: Message[]): string =>
  messages.map((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`).join('');

interface HostileServer {
  url: string;
  /** Every message the daemon POSTed, in order. */
  posted: Message[];
  /** What the next tools/calls do, in turn; a call with none is answered "fine" at once. */
  plays: CallPlay[];
  /** The next JSON bodies tools/calls are answered with, in turn (Streamable HTTP). */
  bodies: ((id: unknown) => string)[];
  initializes: number;
}

const MALFORMED_ASK = { jsonrpc: '2.0', id: 'ask-1', method: 'elicitation/create', params: null };
const ASK_PROBLEM = 'its "params" is null, not an object';
const ASK_ANSWER = {
  jsonrpc: '2.0',
  id: 'ask-1',
  error: {
    code: -32602,
    message: `The elicitation/create request is malformed: ${ASK_PROBLEM}`,
    data: { reason: 'malformed-request', problem: ASK_PROBLEM },
  },
};

const fine = (id: unknown): Message => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text: 'fine' }] },
});

function resultOf(message: Message): unknown {
  switch (message.method) {
    case 'initialize':
      return {
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'hostile', version: '1' },
      };
    case 'tools/list':
      return { tools: [{ name: 'ask', inputSchema: { type: 'object' } }] };
    default:
      return {};
  }
}

async function readMessage(req: IncomingMessage): Promise<Message> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Message;
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<number> {
  const server = createServer((req, res) => void handler(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

/** Resolves once the daemon POSTed a message with `id` and no method: its answer to the server's request. */
function answered(server: HostileServer, id: unknown): Promise<Message> {
  return new Promise((resolve) => {
    const check = setInterval(() => {
      const answer = server.posted.find((message) => message.id === id && message.method === undefined);
      if (answer) {
        clearInterval(check);
        resolve(answer);
      }
    }, 10);
    onTestFinished(() => clearInterval(check));
  });
}

function hostileState(): HostileServer {
  return { url: '', posted: [], plays: [], bodies: [], initializes: 0 };
}

/** A Streamable HTTP server: a tools/call with a play is answered with an event stream. */
async function hostileHttp(): Promise<HostileServer> {
  const hostile = hostileState();
  const port = await listen(async (req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const message = await readMessage(req);
    hostile.posted.push(message);
    if (message.method === 'initialize') hostile.initializes++;
    if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();
    const headers = { 'Mcp-Session-Id': 'session-1' };
    const play = message.method === 'tools/call' ? hostile.plays.shift() : undefined;
    const body = message.method === 'tools/call' ? hostile.bodies.shift() : undefined;
    if (play) {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream' });
      const send: Send = (...messages) => res.write(events(messages));
      return play(message.id, send, (last) => {
        send(last);
        res.end();
      });
    }
    const answer =
      body?.(message.id) ??
      JSON.stringify(
        message.method === 'tools/call'
          ? fine(message.id)
          : { jsonrpc: '2.0', id: message.id, result: resultOf(message) },
      );
    res.writeHead(200, { ...headers, 'Content-Type': 'application/json' }).end(answer);
  });
  hostile.url = `http://127.0.0.1:${port}/mcp`;
  return hostile;
}

/** A server of the older HTTP+SSE transport: every message to the daemon goes on its one event stream. */
async function hostileSse(): Promise<HostileServer> {
  const hostile = hostileState();
  let stream: ServerResponse | undefined;
  const send: Send = (...messages) => stream?.write(events(messages));
  const port = await listen(async (req, res) => {
    if (req.method === 'GET') {
      stream = res;
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages?sessionId=one\n\n');
      return;
    }
    const message = await readMessage(req);
    hostile.posted.push(message);
    if (message.method === 'initialize') hostile.initializes++;
    res.writeHead(202).end('Accepted');
    if (message.id === undefined || message.method === undefined) return;
    const play = message.method === 'tools/call' ? hostile.plays.shift() : undefined;
    if (play) return play(message.id, send, send);
    send(
      message.method === 'tools/call'
        ? fine(message.id)
        : { jsonrpc: '2.0', id: message.id, result: resultOf(message) },
    );
  });
  hostile.url = `http://127.0.0.1:${port}/sse`;
  return hostile;
}

const call = (d: TestDaemon) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId: 'flaky', toolName: 'ask' });

/** The rpc entries of the log that carry JSON-RPC, as [direction, message]. */
const logged = (d: TestDaemon): [string, unknown][] =>
  d.daemon.bus
    .since(0)
    .filter((entry) => entry.type === 'rpc')
    .map((entry) => [entry.direction, entry.message]);

/** A call during which the server asks with MALFORMED_ASK, waits for the daemon's answer, then answers. */
const asksMalformed =
  (server: HostileServer): CallPlay =>
  (id, send, end) => {
    // In one write: the request is not handed on before the notification that came first.
    send(
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'before' } },
      MALFORMED_ASK,
    );
    void answered(server, 'ask-1').then(() => end(fine(id)));
  };

/** The call completes, the malformed request answered -32602, logged once each way, none as an event. */
async function answersTheRequest(d: TestDaemon, server: HostileServer): Promise<void> {
  expect((await call(d)).status).toBe(200);
  server.plays.push(asksMalformed(server));
  const started = performance.now();
  const executed = await call(d);
  expect(performance.now() - started, 'answered at once, not at the time-out').toBeLessThan(
    TOOL_TIMEOUT_MS / 2,
  );
  expect(executed.status, JSON.stringify(executed.body)).toBe(200);
  expect(executed.body.result.content[0].text).toBe('fine');
  expect(server.posted.filter((message) => message.id === 'ask-1')).toEqual([ASK_ANSWER]);
  const entries = logged(d);
  expect(entries.filter(([, message]) => JSON.stringify(message).includes('ask-1'))).toEqual([
    ['receive', MALFORMED_ASK],
    ['send', ASK_ANSWER],
  ]);
  expect(entries.filter(([direction]) => direction === 'event')).toEqual([]);
  // In the order the server sent them: the notification before the request.
  const received = entries.filter(([direction]) => direction === 'receive').map(([, message]) => message);
  const at = (text: string) => received.findIndex((message) => JSON.stringify(message).includes(text));
  expect(at('"before"')).toBeGreaterThan(-1);
  expect(at('"before"')).toBeLessThan(at('ask-1'));
  expect((await d.api('GET', '/api/mcp/servers/flaky')).body.status).toBe('connected');
  expect((await call(d)).status).toBe(200);
  expect(server.initializes, 'the same connection answers').toBe(1);
}

describe('a malformed request of an HTTP or SSE server, sent during a call', () => {
  it("on a Streamable HTTP POST's event stream: answered -32602 saying what is wrong, and the call completes", async () => {
    const server = await hostileHttp();
    const d = await daemonWith({ ...server, faults: [], handshakeFaults: [] }, 'http', {
      toolTimeoutMs: TOOL_TIMEOUT_MS,
    });
    await answersTheRequest(d, server);
  });

  it("on a legacy SSE server's stream: answered -32602 saying what is wrong, and the call completes", async () => {
    const server = await hostileSse();
    const d = await daemonWith({ ...server, faults: [], handshakeFaults: [] }, 'sse', {
      toolTimeoutMs: TOOL_TIMEOUT_MS,
    });
    await answersTheRequest(d, server);
  });
});

describe('a Streamable HTTP server answering a call with a JSON body the SDK refuses', () => {
  /** The call answered with `body` fails at once with 502 in `error`, and the next call is answered. */
  async function failsAtOnce(
    d: TestDaemon,
    server: HostileServer,
    body: (id: unknown) => string,
    error: string,
    data: Record<string, unknown>,
  ): Promise<void> {
    server.bodies.push(body);
    const started = performance.now();
    const failed = await call(d);
    expect(performance.now() - started, 'failed at once, not at the time-out').toBeLessThan(
      TOOL_TIMEOUT_MS / 2,
    );
    expect(failed.status, JSON.stringify(failed.body)).toBe(502);
    expect(failed.body).toMatchObject({ code: 'mcp_error', error, mcpError: { code: -32603, data } });
    expect((await d.api('GET', '/api/mcp/servers/flaky')).body.status).toBe('connected');
    const next = await call(d);
    expect(next.status).toBe(200);
    expect(next.body.result.content[0].text).toBe('fine');
    expect(server.initializes, 'the same connection answers').toBe(1);
  }

  it('a response whose result is no object, whose error is null, or with a member too many fails the call saying so', async () => {
    const server = await hostileHttp();
    const d = await daemonWith({ ...server, faults: [], handshakeFaults: [] }, 'http', {
      toolTimeoutMs: TOOL_TIMEOUT_MS,
    });
    expect((await call(d)).status).toBe(200);
    const shown = '; the log shows what it sent';
    await failsAtOnce(
      d,
      server,
      (id) => JSON.stringify({ jsonrpc: '2.0', id, result: 5 }),
      `The server's result is a JSON number, not an object as every MCP result is${shown}`,
      { reason: 'result-not-an-object', type: 'number' },
    );
    const problems = [
      [{ error: null }, 'its "error" is null, not an object'],
      [{ result: { content: [] }, error: null }, 'it has both "result" and "error"'],
      [{ result: { content: [] }, extra: 1 }, 'it has a member "extra", which a response has not'],
      [{ result: { _meta: 5, content: [] } }, 'its "result._meta" is a JSON number, not an object'],
    ] as const;
    for (const [fields, problem] of problems) {
      await failsAtOnce(
        d,
        server,
        (id) => JSON.stringify({ jsonrpc: '2.0', id, ...fields }),
        `The server's response is not a JSON-RPC response: ${problem}${shown}`,
        { reason: 'malformed-response', problem },
      );
    }
    // Each as the server sent it, in the log.
    const received = logged(d).filter(([direction]) => direction === 'receive');
    expect(received.map(([, message]) => message)).toContainEqual(
      expect.objectContaining({ result: { content: [] }, extra: 1 }),
    );
  });

  it('a response whose id names no call fails the call the body answers, saying so, and the connection stays', async () => {
    const server = await hostileHttp();
    const d = await daemonWith({ ...server, faults: [], handshakeFaults: [] }, 'http', {
      toolTimeoutMs: TOOL_TIMEOUT_MS,
    });
    expect((await call(d)).status).toBe(200);
    const body = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}';
    server.bodies.push(() => body);
    const failed = await call(d);
    expect(failed.status, JSON.stringify(failed.body)).toBe(502);
    expect(failed.body).toMatchObject({
      code: 'upstream_failed',
      error: `The server's answer of 79 bytes is a JSON-RPC response whose "id" is null, not a string or an integer: it answers no call; it begins: ${body}`,
      mcpError: { code: 'NOT_JSON_RPC' },
    });
    expect((await d.api('GET', '/api/mcp/servers/flaky')).body.status).toBe('connected');
    expect((await call(d)).status).toBe(200);
    expect(server.initializes).toBe(1);
  });

  it('a malformed request in the body, before the answer, is answered -32602 and the call completes', async () => {
    const server = await hostileHttp();
    const d = await daemonWith({ ...server, faults: [], handshakeFaults: [] }, 'http', {
      toolTimeoutMs: TOOL_TIMEOUT_MS,
    });
    expect((await call(d)).status).toBe(200);
    server.bodies.push((id) => JSON.stringify([MALFORMED_ASK, fine(id)]));
    const started = performance.now();
    const executed = await call(d);
    expect(performance.now() - started).toBeLessThan(TOOL_TIMEOUT_MS / 2);
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    expect(executed.body.result.content[0].text).toBe('fine');
    await answered(server, 'ask-1');
    expect(server.posted.filter((message) => message.id === 'ask-1')).toEqual([ASK_ANSWER]);
    const entries = logged(d).filter(([, message]) => JSON.stringify(message).includes('ask-1'));
    expect(entries).toEqual([
      ['receive', MALFORMED_ASK],
      ['send', ASK_ANSWER],
    ]);
    expect((await d.api('GET', '/api/mcp/servers/flaky')).body.status).toBe('connected');
    expect(server.initializes).toBe(1);
  });
});
