/**
 * Decoding the inspected page's MCP traffic from HAR entries shaped as Chromium's
 * `devtools.network.onRequestFinished` gives them, and pairing it into the Logs view's rows.
 */
import { describe, expect, it } from 'vitest';
import {
  contentText,
  decodeHarEntry,
  type DecodedEntry,
  exportedEntries,
  type HarContent,
  type HarEntryLike,
  type HarHeader,
  MAX_BODY_CHARS,
  pageContext,
  PageTrafficModel,
  parseSse,
} from '../../extension/page/page-traffic';

const ENDPOINT = 'https://app.example.test/api/mcp';
const SESSION = 'b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const STARTED = '2026-11-24T16:00:00.000Z';

function headers(record: Record<string, string>): HarHeader[] {
  return Object.entries(record).map(([name, value]) => ({ name, value }));
}

/** A POST as Chromium records it, with its answer's body as getContent() gives it. */
function post(
  body: string,
  answer: {
    status?: number;
    statusText?: string;
    mimeType: string;
    headers?: Record<string, string>;
    text?: string;
  },
  requestHeaders: Record<string, string> = {},
  url = ENDPOINT,
): [HarEntryLike, HarContent] {
  const status = answer.status ?? 200;
  return [
    {
      startedDateTime: STARTED,
      time: 42.5,
      request: {
        method: 'POST',
        url,
        headers: headers({
          Accept: 'application/json, text/event-stream',
          'Content-Type': 'application/json',
          Origin: 'https://app.example.test',
          ...requestHeaders,
        }),
        postData: { mimeType: 'application/json', text: body },
      },
      response: {
        status,
        statusText: answer.statusText ?? (status === 202 ? 'Accepted' : 'OK'),
        headers: headers({ 'Content-Type': answer.mimeType, ...answer.headers }),
        content: { mimeType: answer.mimeType, size: answer.text?.length ?? 0 },
      },
    },
    { text: answer.text ?? '', encoding: null },
  ];
}

function decodeOrFail(entry: [HarEntryLike, HarContent]): DecodedEntry {
  const decoded = decodeHarEntry(...entry);
  if (!decoded) throw new Error('not recognised as MCP traffic');
  return decoded;
}

const rpc = (message: Record<string, unknown>): string => JSON.stringify({ jsonrpc: '2.0', ...message });

describe('decoding the page MCP traffic', () => {
  it('reads an initialize answered with JSON, with its session and protocol version', () => {
    const decoded = decodeOrFail(
      post(
        rpc({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } }),
        {
          mimeType: 'application/json',
          headers: { 'Mcp-Session-Id': SESSION },
          text: rpc({
            id: 0,
            result: { protocolVersion: '2025-06-18', serverInfo: { name: 's', version: '1' } },
          }),
        },
      ),
    );
    expect(decoded).toMatchObject({
      httpMethod: 'POST',
      url: ENDPOINT,
      status: 200,
      answer: 'json',
      transport: 'streamable-http',
      sessionId: SESSION,
      channel: `${ENDPOINT}\n${SESSION}`,
      startedAt: STARTED,
      endedAt: '2026-11-24T16:00:00.042Z',
      problems: [],
    });
    expect(decoded.messages.map((m) => [m.direction, m.message.id, m.message.method ?? 'result'])).toEqual([
      ['send', 0, 'initialize'],
      ['receive', 0, 'result'],
    ]);
  });

  it('reads the Mcp-Protocol-Version and Mcp-Method request headers', () => {
    const decoded = decodeOrFail(
      post(
        rpc({ id: 3, method: 'tools/call', params: { name: 'echo' } }),
        { mimeType: 'application/json', text: rpc({ id: 3, result: { content: [] } }) },
        { 'Mcp-Session-Id': SESSION, 'mcp-protocol-version': '2025-06-18', 'Mcp-Method': 'tools/call' },
      ),
    );
    expect(decoded).toMatchObject({
      sessionId: SESSION,
      protocolVersion: '2025-06-18',
      mcpMethod: 'tools/call',
    });
  });

  it('reads an event-stream answer: progress notifications, then the result', () => {
    const stream = [
      'id: 1',
      'event: message',
      `data: ${rpc({ method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 3 } })}`,
      '',
      ': keep-alive comment',
      '',
      'id: 2',
      `data: ${rpc({ method: 'notifications/progress', params: { progressToken: 'p1', progress: 2, total: 3 } })}`,
      '',
      'id: 3',
      'event: message',
      // One message split over two data lines: they join with a line break, which JSON reads as space.
      `data: {"jsonrpc":"2.0","id":"call-7",`,
      `data: "result":{"content":[{"type":"text","text":"done"}]}}`,
      '',
      '',
    ].join('\r\n');
    const decoded = decodeOrFail(
      post(
        rpc({ id: 'call-7', method: 'tools/call', params: { name: 'slow', _meta: { progressToken: 'p1' } } }),
        {
          mimeType: 'text/event-stream',
          text: stream,
        },
        { 'Mcp-Session-Id': SESSION },
      ),
    );
    expect(decoded.answer).toBe('event-stream');
    expect(decoded.problems).toEqual([]);
    expect(decoded.messages.map((m) => [m.direction, m.message.method ?? m.message.id])).toEqual([
      ['send', 'tools/call'],
      ['receive', 'notifications/progress'],
      ['receive', 'notifications/progress'],
      ['receive', 'call-7'],
    ]);
    expect(decoded.messages[3]?.message.result).toEqual({ content: [{ type: 'text', text: 'done' }] });
  });

  it('parses event streams by the rules: ids, event names, a leading space, an unfinished last event', () => {
    expect(parseSse('event: endpoint\ndata: /messages?sessionId=1\n\nid: 9\ndata:a\ndata:  b\n\n')).toEqual([
      { event: 'endpoint', data: '/messages?sessionId=1' },
      { event: 'message', data: 'a\n b', id: '9' },
    ]);
    expect(parseSse('data: first\n\ndata: cut', false)).toEqual([{ event: 'message', data: 'first' }]);
  });

  it('reads a batch sent and its batch answer', () => {
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'prompts/list' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    ]);
    const answer = JSON.stringify([
      { jsonrpc: '2.0', id: 2, result: { prompts: [] } },
      { jsonrpc: '2.0', id: 1, result: { tools: [] } },
    ]);
    const decoded = decodeOrFail(
      post(
        batch,
        { mimeType: 'application/json; charset=utf-8', text: answer },
        { 'Mcp-Session-Id': SESSION },
      ),
    );
    expect(decoded.problems).toEqual([]);
    expect(decoded.messages.filter((m) => m.direction === 'send')).toHaveLength(3);
    expect(decoded.messages.filter((m) => m.direction === 'receive').map((m) => m.message.id)).toEqual([
      2, 1,
    ]);
  });

  it('reads a notification answered 202 Accepted with no body', () => {
    const decoded = decodeOrFail(
      post(
        rpc({ method: 'notifications/initialized' }),
        { status: 202, mimeType: '' },
        { 'Mcp-Session-Id': SESSION },
      ),
    );
    expect(decoded).toMatchObject({ answer: 'accepted', status: 202, problems: [] });
    expect(decoded.messages).toHaveLength(1);
  });

  it('reads a legacy SSE stream: its endpoint event, then messages for that address', () => {
    const stream =
      'event: endpoint\ndata: /messages?sessionId=abc123\n\n' +
      `event: message\ndata: ${rpc({ id: 0, result: { protocolVersion: '2024-11-05' } })}\n\n` +
      `event: message\ndata: ${rpc({ id: 1, result: { tools: [] } })}\n\n`;
    const decoded = decodeHarEntry(
      {
        startedDateTime: STARTED,
        time: 5000,
        request: {
          method: 'GET',
          url: 'https://legacy.example.test/sse',
          headers: headers({ Accept: 'text/event-stream' }),
        },
        response: {
          status: 200,
          headers: headers({ 'Content-Type': 'text/event-stream' }),
          content: { mimeType: 'text/event-stream' },
        },
      },
      { text: stream },
    );
    expect(decoded).toMatchObject({
      transport: 'sse',
      httpMethod: 'GET',
      endpoint: 'https://legacy.example.test/sse',
      postEndpoint: 'https://legacy.example.test/messages?sessionId=abc123',
      channel: 'https://legacy.example.test/messages?sessionId=abc123',
      problems: [],
    });
    expect(decoded?.messages.map((m) => m.message.id)).toEqual([0, 1]);

    // Its POSTs, answered 202, pair with the stream's messages by id.
    const initialize = decodeOrFail(
      post(
        rpc({ id: 0, method: 'initialize', params: {} }),
        { status: 202, mimeType: 'text/plain', text: 'Accepted' },
        {},
        'https://legacy.example.test/messages?sessionId=abc123',
      ),
    );
    expect(initialize).toMatchObject({
      answer: 'accepted',
      channel: 'https://legacy.example.test/messages?sessionId=abc123',
    });
    const model = new PageTrafficModel();
    model.add(initialize);
    model.add(decoded as DecodedEntry);
    const rows = model.rows;
    expect(rows.map((row) => [row.kind, row.method, row.status])).toEqual([
      ['request', 'initialize', 'ok'],
      ['response', undefined, 'ok'],
    ]);
    expect(rows[0]?.serverId).toBe('legacy.example.test/messages');
    expect(model.streamFor(initialize.channel)?.url).toBe('https://legacy.example.test/sse');
  });

  it('names a legacy SSE stream DevTools kept no body of, by its /sse address, and no other', () => {
    const stream = (url: string): HarEntryLike => ({
      startedDateTime: STARTED,
      time: 900,
      request: { method: 'GET', url, headers: headers({ Accept: 'text/event-stream' }) },
      response: {
        status: 200,
        headers: headers({ 'Content-Type': 'text/event-stream' }),
        content: { mimeType: 'text/event-stream' },
      },
    });
    const legacy = decodeHarEntry(stream('https://legacy.example.test/sse'), {});
    expect(legacy).toMatchObject({
      transport: 'sse',
      endpoint: 'https://legacy.example.test/sse',
      messages: [],
    });
    expect(legacy?.problems).toEqual([expect.stringMatching(/^DevTools gave no body for this event stream/)]);
    expect(decodeHarEntry(stream('https://app.example.test/ticker'), { text: '' })).toBeNull();
  });

  it('ignores what is not MCP: pages, JSON APIs, other JSON-RPC, other event streams', () => {
    const notMcp: Array<[HarEntryLike, HarContent]> = [
      [
        {
          request: { method: 'GET', url: 'https://app.example.test/', headers: [] },
          response: {
            status: 200,
            headers: headers({ 'content-type': 'text/html' }),
            content: { mimeType: 'text/html' },
          },
        },
        { text: '<!doctype html><title>x</title>' },
      ],
      post('{"query":"{ viewer { id } }"}', {
        mimeType: 'application/json',
        text: '{"data":{"viewer":{"id":1}}}',
      }),
      // Ethereum's JSON-RPC is JSON-RPC too, but no MCP method.
      post(rpc({ id: 1, method: 'eth_blockNumber', params: [] }), {
        mimeType: 'application/json',
        text: rpc({ id: 1, result: '0x1' }),
      }),
      [
        {
          request: { method: 'GET', url: 'https://app.example.test/ticker', headers: [] },
          response: {
            status: 200,
            headers: headers({ 'content-type': 'text/event-stream' }),
            content: { mimeType: 'text/event-stream' },
          },
        },
        { text: 'data: {"price": 3}\n\n' },
      ],
      post('not json at all', { mimeType: 'text/plain', text: 'ok' }),
      [
        {
          request: { method: 'GET', url: 'data:text/plain,hello', headers: [] },
          response: { status: 200, content: { mimeType: 'text/plain' } },
        },
        { text: 'hello' },
      ],
    ];
    for (const entry of notMcp) expect(decodeHarEntry(...entry)).toBeNull();
  });

  it('marks malformed bodies instead of throwing', () => {
    const badAnswer = decodeOrFail(
      post(rpc({ id: 1, method: 'tools/list' }), {
        mimeType: 'application/json',
        text: '{"jsonrpc":"2.0","id":1,"res',
      }),
    );
    expect(badAnswer.messages).toHaveLength(1);
    expect(badAnswer.problems).toEqual([
      expect.stringMatching(/^the answer is not JSON \(.+\): \{"jsonrpc"/),
    ]);

    const badRequest = decodeOrFail(
      post(
        '{"jsonrpc":"2.0","method":',
        { mimeType: 'application/json', text: '' },
        { 'Mcp-Session-Id': SESSION },
      ),
    );
    expect(badRequest.problems).toEqual([expect.stringMatching(/^request body is not JSON/)]);

    const badEvents = decodeOrFail(
      post(
        rpc({ id: 2, method: 'tools/call' }),
        {
          mimeType: 'text/event-stream',
          text: `data: {oops\n\ndata: 42\n\ndata: ${rpc({ id: { weird: true }, result: {} })}\n\ndata: ${rpc({ id: 2, result: {} })}\n\n`,
        },
        { 'Mcp-Session-Id': SESSION },
      ),
    );
    expect(badEvents.problems).toEqual([
      expect.stringMatching(/^event 1 is not JSON/),
      'event 2: not a JSON-RPC message: 42',
      'event 3: the id {"weird":true} is not a string or number',
    ]);
    expect(badEvents.messages.map((m) => m.message.id)).toEqual([2, { weird: true }, 2]);

    // Nonsense shapes from a hostile page: no throw, at most an entry with its problems.
    for (const hostile of [
      {},
      { request: null, response: null },
      { request: { method: 'POST', url: 42 }, response: { status: 200 } },
      {
        request: {
          method: 'POST',
          url: ENDPOINT,
          headers: 'x',
          postData: { text: rpc({ id: 1, method: 'ping' }) },
        },
        response: {},
      },
    ] as unknown as HarEntryLike[]) {
      expect(() => decodeHarEntry(hostile, { text: 12 as unknown as string })).not.toThrow();
    }
  });

  it('answers an HTTP failure without a JSON-RPC answer with a stand-in error, and names the body', () => {
    const decoded = decodeOrFail(
      post(
        rpc({ id: 5, method: 'tools/list' }),
        { status: 404, statusText: 'Not Found', mimeType: 'text/plain', text: 'Session not found' },
        { 'Mcp-Session-Id': SESSION },
      ),
    );
    expect(decoded.problems).toEqual(['HTTP 404 Not Found answered text/plain: Session not found']);
    const model = new PageTrafficModel();
    model.add(decoded);
    const [request, problem] = model.rows;
    expect(request).toMatchObject({ kind: 'request', method: 'tools/list', status: 'error' });
    expect(request?.response?.message).toMatchObject({ id: 5, error: 'HTTP 404 Not Found' });
    expect(problem).toMatchObject({ kind: 'stderr' });
    expect(String(problem?.entry.message)).toContain('Session not found');
  });

  it('does not decode bodies over the cap, and says so', () => {
    const huge = rpc({ id: 9, result: { content: [{ type: 'text', text: 'x'.repeat(MAX_BODY_CHARS) }] } });
    const json = decodeOrFail(
      post(rpc({ id: 9, method: 'tools/call' }), { mimeType: 'application/json', text: huge }),
    );
    expect(json.messages.map((m) => m.direction)).toEqual(['send']);
    expect(json.problems).toEqual([
      expect.stringMatching(/^answer of 1\.0 MB is over the 1\.0 MB decoded: not shown$/),
    ]);

    const stream = `data: ${rpc({ method: 'notifications/progress', params: { progress: 1 } })}\n\ndata: ${huge}\n\n`;
    const sse = decodeOrFail(
      post(rpc({ id: 9, method: 'tools/call' }), { mimeType: 'text/event-stream', text: stream }),
    );
    expect(sse.messages.map((m) => m.message.method ?? m.message.id)).toEqual([
      'tools/call',
      'notifications/progress',
    ]);
    expect(sse.problems).toEqual([
      expect.stringMatching(/^event stream of 1\.0 MB: only the events in its first 1\.0 MB decoded$/),
    ]);

    const bigRequest = decodeOrFail(
      post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"${'y'.repeat(MAX_BODY_CHARS)}"}`, {
        mimeType: 'application/json',
        text: rpc({ id: 1, result: {} }),
      }),
    );
    expect(bigRequest.problems).toEqual([expect.stringMatching(/^request body of 1\.0 MB is over/)]);
  });

  it('reads a base64 body as UTF-8', () => {
    const text = rpc({ id: 1, result: { content: [{ type: 'text', text: 'héllo ✓' }] } });
    const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(text)));
    expect(contentText({ text: base64, encoding: 'base64' })).toBe(text);
    expect(contentText({ text: '%%%', encoding: 'base64' })).toBeNull();
  });
});

describe('pairing the page traffic', () => {
  it('pairs by id per endpoint and session, with progress rows and latency', () => {
    const model = new PageTrafficModel();
    model.add(
      decodeOrFail(
        post(rpc({ id: 0, method: 'initialize', params: {} }), {
          mimeType: 'application/json',
          headers: { 'Mcp-Session-Id': SESSION },
          text: rpc({ id: 0, result: {} }),
        }),
      ),
    );
    model.add(
      decodeOrFail(
        post(
          rpc({ id: 1, method: 'tools/call', params: { name: 'slow' } }),
          {
            mimeType: 'text/event-stream',
            text: `data: ${rpc({ method: 'notifications/progress', params: { progress: 1 } })}\n\ndata: ${rpc({ id: 1, result: {} })}\n\n`,
          },
          { 'Mcp-Session-Id': SESSION },
        ),
      ),
    );
    // Another session of the same endpoint reuses id 1: its own row, its own label.
    model.add(
      decodeOrFail(
        post(
          rpc({ id: 1, method: 'tools/list' }),
          { mimeType: 'application/json', text: rpc({ id: 1, error: { code: -32601, message: 'nope' } }) },
          { 'Mcp-Session-Id': 'other-session' },
        ),
      ),
    );
    const rows = model.rows;
    expect(rows.map((r) => [r.serverId, r.kind, r.method, r.status, r.latencyMs])).toEqual([
      ['app.example.test/api/mcp', 'request', 'initialize', 'ok', 42],
      ['app.example.test/api/mcp', 'request', 'tools/call', 'ok', 42],
      ['app.example.test/api/mcp', 'notification', 'notifications/progress', undefined, undefined],
      ['app.example.test/api/mcp (2)', 'request', 'tools/list', 'error', 42],
    ]);
    expect(pageContext(rows[1] as never)?.http?.answer).toBe('event-stream');
    // The initialize had no session header; its answer's one puts it in the session's channel.
    expect(pageContext(rows[0] as never)?.http?.channel).toBe(`${ENDPOINT}\n${SESSION}`);
  });

  it('exports messages with their HTTP address and status, never headers', () => {
    const model = new PageTrafficModel();
    model.add(
      decodeOrFail(
        post(
          rpc({ id: 1, method: 'tools/list' }),
          { mimeType: 'application/json', text: rpc({ id: 1, result: { tools: [] } }) },
          { Authorization: 'Bearer secret-token-value', 'Mcp-Session-Id': SESSION },
        ),
      ),
    );
    const lines = model.rows.flatMap(exportedEntries);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      direction: 'send',
      message: { method: 'tools/list' },
      http: { method: 'POST', url: ENDPOINT, status: 200 },
    });
    expect(JSON.stringify(lines)).not.toContain('secret-token-value');
    expect(JSON.stringify(lines)).not.toContain(SESSION);
  });
});
