import { once } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { answerClientErrors } from '../../daemon/http/socket-answers.ts';
import { ERROR_CODES } from '../../shared/errors.ts';
import { everythingStdio, rawRequest, startDaemon, type TestDaemon } from './helpers.ts';

async function daemon(overrides: Parameters<typeof startDaemon>[0] = {}): Promise<TestDaemon> {
  const d = await startDaemon(overrides);
  onTestFinished(() => d.close());
  return d;
}

/** Every error answer carries the SPEC part 7 body: at least a string `error`, and the daemon's `code`. */
function expectErrorBody(body: unknown): void {
  expect(body).toBeTypeOf('object');
  expect(typeof (body as { error?: unknown }).error).toBe('string');
  expect((body as { error: string }).error.length).toBeGreaterThan(0);
  expect(ERROR_CODES).toContain((body as { code?: unknown }).code);
}

describe('400 bad request', () => {
  it('answers malformed JSON with "body: malformed JSON"', async () => {
    const d = await daemon();
    const response = await d.api('POST', '/api/mcp/tools/list', '{"serverId": "a",');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'body: malformed JSON', code: 'malformed_request' });
  });

  it('names every missing or wrongly typed field in one message', async () => {
    const d = await daemon();
    const response = await d.api('POST', '/api/mcp/tools/execute', { serverId: 5, timeoutMs: 'soon' });
    expect(response.status).toBe(400);
    expectErrorBody(response.body);
    const problems = response.body.error.split('; ');
    expect(problems).toContain('toolName: is required');
    expect(problems).toContainEqual(expect.stringMatching(/^serverId: /));
    expect(problems).toContainEqual(expect.stringMatching(/^timeoutMs: /));
  });

  it('names a missing field of a nested object', async () => {
    const d = await daemon();
    const response = await d.api('POST', '/api/mcp/tools/respond', { requestId: 'r', response: {} });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('response.action: is required');
  });

  it('refuses a body that is not sent as JSON', async () => {
    const d = await daemon();
    const response = await d.api('POST', '/api/mcp/tools/list', 'serverId=a', {
      'Content-Type': 'text/plain',
    });
    expect(response.status).toBe(400);
    expectErrorBody(response.body);
    expect(response.body.error).toMatch(/^body: .*application\/json/);
  });

  it('refuses a JSON body that is not an object', async () => {
    const d = await daemon();
    const response = await d.api('POST', '/api/mcp/tools/list', '["a"]');
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^body: /);
  });
});

describe('413 payload too large', () => {
  it('answers a body over bodyLimitBytes with 413', async () => {
    const d = await daemon({ bodyLimitBytes: 1024 });
    const response = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'a',
      toolName: 'echo',
      parameters: { message: 'x'.repeat(2048) },
    });
    expect(response.status).toBe(413);
    expectErrorBody(response.body);
    expect(response.body.error).toMatch(/^body: /);
  });

  it('reaches a client that sends the whole body over the limit, and serves the connection on', async () => {
    const d = await daemon();
    const { port } = new URL(d.url);
    const body = ' '.repeat(4 * 1024 * 1024 + 1);
    // A socket closed with the body unread would be reset, and the client lose the answer in the reset.
    for (let round = 0; round < 5; round++) {
      const response = await fetch(`${d.url}/api/mcp/tools/execute`, {
        method: 'POST',
        headers: { 'X-Inspector-Token': d.token, 'Content-Type': 'application/json' },
        body,
      });
      expect(response.status).toBe(413);
      expect((await response.json()).code).toBe('payload_too_large');
    }
    // On one connection: the answer, then the next request answered on it.
    const answers = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if ((text.match(/HTTP\/1\.1 /g) ?? []).length === 2 && text.endsWith('}')) socket.end();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      const head = `Host: 127.0.0.1:${port}\r\nX-Inspector-Token: ${d.token}\r\n`;
      socket.write(
        `POST /api/mcp/tools/list HTTP/1.1\r\n${head}Content-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\n\r\n${body}GET /api/mcp/health HTTP/1.1\r\n${head}\r\n`,
      );
    });
    expect(answers).toMatch(/^HTTP\/1\.1 413 [^]*HTTP\/1\.1 200 [^]*"status":"ok"/);
  });

  it('answers Expect: 100-continue with 413 for a body announced over the limit, not 100 Continue', async () => {
    const d = await daemon();
    const { port } = new URL(d.url);
    const ask = (length: number) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        socket.once('data', (chunk) => {
          resolve(chunk.toString());
          socket.destroy();
        });
        socket.on('error', reject);
        socket.write(
          `POST /api/mcp/tools/list HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Inspector-Token: ${d.token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`,
        );
      });
    const refused = await ask(5 * 1024 * 1024);
    expect(refused).toMatch(/^HTTP\/1\.1 413 /);
    expect(refused).toContain('"code":"payload_too_large"');
    expect(await ask(20)).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
  });

  it('still accepts a body under the limit', async () => {
    const d = await daemon({ bodyLimitBytes: 1024 });
    const response = await d.api('POST', '/api/mcp/tools/list', { serverId: 'nope' });
    expect(response.status).toBe(404);
  });
});

describe('429 rate limit', () => {
  it('answers past rateLimitPerMinute with 429, Retry-After and an error body', async () => {
    const d = await daemon({ rateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++) expect((await d.api('GET', '/api/mcp/servers/')).status).toBe(200);
    const limited = await d.api('GET', '/api/mcp/servers/');
    expect(limited.status).toBe(429);
    expectErrorBody(limited.body);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
  });

  it('does not count health against the limit', async () => {
    const d = await daemon({ rateLimitPerMinute: 3 });
    for (let i = 0; i < 5; i++) expect((await fetch(`${d.url}/api/mcp/health`)).status).toBe(200);
    expect((await d.api('GET', '/api/mcp/servers/')).status).toBe(200);
  });
});

describe('404 not found', () => {
  it('answers an unknown serverId with 404', async () => {
    const d = await daemon();
    const response = await d.api('POST', '/api/mcp/tools/list', { serverId: 'nope' });
    expect(response.status).toBe(404);
    expectErrorBody(response.body);
    expect(response.body.error).toContain('nope');
  });

  it('answers an unknown server on the per-server routes with 404', async () => {
    const d = await daemon();
    const response = await d.api('GET', '/api/mcp/servers/nope/tools');
    expect(response.status).toBe(404);
    expectErrorBody(response.body);
  });

  it('answers an unknown API path with 404 and a JSON error', async () => {
    const d = await daemon();
    const response = await d.api('GET', '/api/mcp/no-such-route');
    expect(response.status).toBe(404);
    expectErrorBody(response.body);
  });
});

describe('502 MCP server errors', () => {
  it('answers an MCP error from the server with 502 and mcpError {name, message, code}', async () => {
    const d = await daemon();
    await d.api('PUT', '/api/mcp/servers/everything', { config: everythingStdio() });
    const response = await d.api('POST', '/api/mcp/resources/read', {
      serverId: 'everything',
      uri: 'demo://no/such/resource',
    });
    expect(response.status).toBe(502);
    expectErrorBody(response.body);
    expect(response.body.error).toContain('demo://no/such/resource');
    expect(response.body.mcpError).toMatchObject({ name: 'McpError', code: -32602 });
    expect(response.body.mcpError.message).toContain('not found');
    expect(response.body.mcpError.stack).toBeUndefined();
  });

  it('answers a server whose command does not exist with 502 and an explained mcpError', async () => {
    const d = await daemon();
    await d.api('PUT', '/api/mcp/servers/missing', {
      config: { transport: 'stdio', command: '/no/such/mcp-server-binary' },
    });
    const response = await d.api('POST', '/api/mcp/tools/list', { serverId: 'missing' });
    expect(response.status).toBe(502);
    expectErrorBody(response.body);
    expect(response.body.error).toContain('/no/such/mcp-server-binary');
    expect(response.body.mcpError).toMatchObject({ name: 'UpstreamError', code: 'COMMAND_NOT_FOUND' });
    expect(response.body.mcpError.message).toBe(response.body.error);
    expect(response.body.mcpError.stack).toBeUndefined();
  });

  it('adds the stack to mcpError in development mode only', async () => {
    const d = await daemon({ mode: 'development' });
    await d.api('PUT', '/api/mcp/servers/missing', {
      config: { transport: 'stdio', command: '/no/such/mcp-server-binary' },
    });
    const response = await d.api('POST', '/api/mcp/tools/list', { serverId: 'missing' });
    expect(response.status).toBe(502);
    expect(response.body.mcpError.stack).toMatch(/^UpstreamError: Command not found/);
  });
});

describe('client errors are 4xx, never 500', () => {
  it('answers a body that does not decode as its Content-Encoding with 400', async () => {
    const d = await daemon();
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const response = await d.api('POST', '/api/mcp/tools/list', '{"serverId":"x"}', {
        'Content-Encoding': encoding,
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: `body: does not decode as its Content-Encoding "${encoding}" says`,
        code: 'malformed_request',
      });
    }
    const unknown = await d.api('POST', '/api/mcp/tools/list', '{}', { 'Content-Encoding': 'zip-zap' });
    expect(unknown.status).toBe(415);
    expectErrorBody(unknown.body);
  });

  it.each([
    ['GET', '/api/mcp/servers/%'],
    ['PUT', '/api/mcp/servers/%E0%A4%A'],
    ['POST', '/api/mcp/servers/%zz/connect'],
    ['GET', '/api/mcp/servers/a/resources/%'],
  ])('answers a bad percent escape in %s %s with 400', async (method, path) => {
    const d = await daemon();
    const response = await d.api(method, path, method === 'GET' ? undefined : {});
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^path: malformed percent-encoding/);
  });

  it('answers an import whose URL is not a URL with 400, naming the server, and stores nothing', async () => {
    const d = await daemon();
    for (const url of ['not a url', 'http://', 'ftp://example.com/mcp']) {
      const response = await d.api('POST', '/api/mcp/servers/import', { mcpServers: { remote: { url } } });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/^mcpServers\.remote\.url: /);
    }
    const wrongScheme = await d.api('POST', '/api/mcp/servers/import', {
      mcpServers: { remote: { url: 'http://127.0.0.1:1/mcp', type: 'websocket' } },
    });
    expect(wrongScheme.body.error).toBe('mcpServers.remote.url: a websocket server needs ws:// or wss://');
    expect((await d.api('GET', '/api/mcp/servers/')).body.servers).toEqual([]);
  });

  it('answers a PUT whose URL does not parse with 400', async () => {
    const d = await daemon();
    const response = await d.api('PUT', '/api/mcp/servers/remote', {
      config: { transport: 'http', url: 'http://' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'config.url: is not a valid URL',
      code: 'invalid_request',
      problems: [{ path: 'config.url', message: 'is not a valid URL' }],
    });
  });

  it('answers a PUT of a config that could never connect with 400, quoting no value: NUL characters, headers no HTTP client sends', async () => {
    const d = await daemon();
    const secret = 'supersecret-value-123';
    const stdio = await d.api('PUT', '/api/mcp/servers/local', {
      config: {
        transport: 'stdio',
        command: 'node\0',
        args: ['ok', 'a\0b'],
        env: { API_KEY: `${secret}\0tail`, 'A=B': 'x' },
      },
    });
    expect(stdio.status).toBe(400);
    expect(stdio.body.problems).toEqual([
      { path: 'config.command', message: 'contains a NUL character, which no process can be given' },
      { path: 'config.args.1', message: 'contains a NUL character, which no process can be given' },
      { path: 'config.env.API_KEY', message: 'contains a NUL character, which no process can be given' },
      { path: 'config.env.A=B', message: 'is not a variable name (no "=" or NUL character)' },
    ]);
    const remote = await d.api('PUT', '/api/mcp/servers/remote', {
      config: {
        transport: 'http',
        url: 'http://127.0.0.1:1/mcp',
        headers: {
          'Bad Header': 'x',
          'Content-Length': '5',
          'X-Key': `${secret}\r\nInjected: 1`,
          'X-Latin': 'café',
        },
      },
    });
    expect(remote.status).toBe(400);
    expect(remote.body.problems.map((p: { path: string }) => p.path)).toEqual([
      'config.headers.Bad Header',
      'config.headers.Content-Length',
      'config.headers.X-Key',
    ]);
    expect(JSON.stringify([stdio.body, remote.body])).not.toContain(secret);
    expect((await d.api('GET', '/api/mcp/servers/')).body.servers).toEqual([]);
  });

  it('lists every problem of a body by field in `problems`, as `error` names them', async () => {
    const d = await daemon();
    const response = await d.api('PUT', '/api/mcp/servers/local', {
      config: { transport: 'stdio', args: 'not-a-list', extra: true },
    });
    expect(response.status).toBe(400);
    expect(response.body.problems).toEqual(
      expect.arrayContaining([
        { path: 'config.command', message: 'is required' },
        { path: 'config.extra', message: 'is not allowed here' },
        { path: 'config.args', message: 'must be array' },
      ]),
    );
    expect(response.body.error).toBe(
      response.body.problems
        .map(({ path, message }: { path: string; message: string }) => `${path}: ${message}`)
        .join('; '),
    );
    const badId = await d.api('PUT', '/api/mcp/servers/-bad', {
      config: { transport: 'stdio', command: 'x' },
    });
    expect(badId.status).toBe(400);
    expect(badId.body.problems).toEqual([
      { path: 'id', message: expect.stringMatching(/^use 1 to 64 letters/) },
    ]);
  });

  it("names only the problems of the transport's own fields in a PUT, with those of the body's other fields", async () => {
    const d = await daemon();
    const put = (body: unknown) => d.api('PUT', '/api/mcp/servers/s', body);
    const remote = await put({
      config: { transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { a: 1 } },
    });
    expect(remote.status).toBe(400);
    expect(remote.body.problems).toEqual([{ path: 'config.headers.a', message: 'must be string' }]);
    const local = await put({ config: { transport: 'stdio', command: 'x', args: [1] } });
    expect(local.body.problems).toEqual([{ path: 'config.args.0', message: 'must be string' }]);
    const both = await put({ name: '', config: { transport: 'sse', url: 'ftp://x' } });
    expect(both.body.problems).toEqual([
      { path: 'name', message: 'must NOT have fewer than 1 characters' },
      { path: 'config.url', message: 'must match pattern "^(https?|wss?)://"' },
    ]);
    expect((await put({ config: 'stdio' })).body.problems).toEqual([
      { path: 'config', message: 'must be object' },
    ]);
    expect((await put({})).body.problems).toEqual([{ path: 'config', message: 'is required' }]);
  });

  it('answers a declared Content-Length over the limit with 413 at once, without waiting for the body', async () => {
    const d = await daemon();
    const { port } = new URL(d.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      // The headers and a first byte, then nothing: a server that waited for the rest would hold the
      // socket until its request time-out, far beyond this test's.
      socket.write(
        `POST /api/mcp/tools/list HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Inspector-Token: ${d.token}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{',
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain(
      '{"error":"body: 1000000000 bytes is larger than the limit of 4194304 bytes","code":"payload_too_large"}',
    );
  });
});

describe('requests that Node or the URL parser cannot read', () => {
  /** Writes `bytes` on a new socket to `port`; everything that comes back until the socket closes. */
  function talk(port: number | string, bytes: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
      socket.write(bytes);
    });
  }

  /** Writes `head` (a request's first lines, without the blank line) on a new socket; the whole answer. */
  async function exchange(
    d: TestDaemon,
    head: string,
    connection = 'close',
  ): Promise<{ status: number; text: string }> {
    const text = await talk(new URL(d.url).port, `${head}\r\nConnection: ${connection}\r\n\r\n`);
    return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0), text };
  }

  /** The JSON body of a raw answer. */
  const bodyOf = (text: string): unknown => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

  async function stillServes(d: TestDaemon): Promise<void> {
    expect((await d.api('GET', '/api/mcp/health')).status).toBe(200);
  }

  it('answers a target that is no URL with 400 and the error body, with or without the token, on any route', async () => {
    const d = await daemon();
    const host = `Host: ${new URL(d.url).host}`;
    const token = `X-Inspector-Token: ${d.token}`;
    for (const [target, headers] of [
      ['http://x:99999/api/mcp/rpc-logs', [host]],
      ['http://x:99999/api/mcp/rpc-logs', [host, token]],
      ['http://[/api/mcp/servers/', [host, token]],
      ['//x:99999/oauth/callback?state=a', [host]],
      ['http://x:99999/oauth/callback?state=a', [host]],
    ] as const) {
      const { status, text } = await exchange(d, [`GET ${target} HTTP/1.1`, ...headers].join('\r\n'));
      expect(status, target).toBe(400);
      expect(bodyOf(text), target).toEqual({
        error: `The request target ${JSON.stringify(target)} is not a URL path the daemon can read`,
        code: 'malformed_request',
      });
    }
    await stillServes(d);
  });

  it('answers such a target with a foreign Host as a foreign Host', async () => {
    const d = await daemon();
    const { status, text } = await exchange(
      d,
      'GET http://[/api/mcp/servers/ HTTP/1.1\r\nHost: evil.example',
    );
    expect(status).toBe(403);
    expect(bodyOf(text)).toMatchObject({ code: 'forbidden_host' });
  });

  it('refuses a WebSocket upgrade whose target is no URL with 400, and keeps serving', async () => {
    const d = await daemon();
    const upgrade = [
      'GET http://[ HTTP/1.1',
      `Host: ${new URL(d.url).host}`,
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    ].join('\r\n');
    const { status, text } = await exchange(d, upgrade, 'Upgrade');
    expect(status).toBe(400);
    expect(bodyOf(text)).toEqual({
      error: 'The request target "http://[" is not a URL path the daemon can read',
      code: 'malformed_request',
    });
    await stillServes(d);
  });

  it('serves a request that offers another protocol than WebSocket (Upgrade: h2c) as the plain request it is', async () => {
    const d = await daemon();
    const host = `Host: ${new URL(d.url).host}`;
    const { status, text } = await exchange(
      d,
      `GET /api/mcp/servers/ HTTP/1.1\r\n${host}\r\nX-Inspector-Token: ${d.token}\r\nUpgrade: h2c`,
      'Upgrade, HTTP2-Settings',
    );
    expect(status).toBe(200);
    expect(bodyOf(text)).toEqual({ servers: [] });
  });

  it('refuses a WebSocket upgrade with a foreign Host before anything else, and a bad handshake with the error body', async () => {
    const d = await daemon();
    const host = `Host: ${new URL(d.url).host}`;
    const upgrade = (first: string, headers: string[]) =>
      exchange(d, [first, ...headers, 'Upgrade: websocket'].join('\r\n'), 'Upgrade');
    const key = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==';
    const version = 'Sec-WebSocket-Version: 13';
    const token = `X-Inspector-Token: ${d.token}`;

    const foreign = await upgrade('GET /api/mcp/servers HTTP/1.1', ['Host: evil.example', key, version]);
    expect([foreign.status, (bodyOf(foreign.text) as { code: string }).code]).toEqual([
      403,
      'forbidden_host',
    ]);

    const posted = await upgrade('POST /api/mcp/ws HTTP/1.1', [host, token, key, version]);
    expect(posted.status).toBe(404);
    expect(bodyOf(posted.text)).toEqual({
      error: 'No WebSocket at POST /api/mcp/ws: the live channel is GET /api/mcp/ws',
      code: 'route_not_found',
    });

    for (const [headers, error] of [
      [[host, token, version], 'Sec-WebSocket-Key is missing or not 16 bytes in base64 (RFC 6455)'],
      [
        [host, token, 'Sec-WebSocket-Key: short', version],
        'Sec-WebSocket-Key is missing or not 16 bytes in base64 (RFC 6455)',
      ],
      [[host, token, key], 'Sec-WebSocket-Version must be 13'],
      [[host, token, key, 'Sec-WebSocket-Version: 99'], 'Sec-WebSocket-Version must be 13'],
    ] as const) {
      const refused = await upgrade('GET /api/mcp/ws HTTP/1.1', [...headers]);
      expect(refused.status, error).toBe(400);
      expect(refused.text).toContain('Content-Type: application/json');
      expect(bodyOf(refused.text), error).toEqual({ error, code: 'malformed_request' });
    }
    await stillServes(d);
  });

  it('refuses a request without a Host header with 403 and the error body, the live channel too', async () => {
    const d = await daemon();
    for (const [head, connection] of [
      [`GET /api/mcp/servers/ HTTP/1.1\r\nX-Inspector-Token: ${d.token}`, 'close'],
      [
        `POST /api/mcp/tools/execute HTTP/1.1\r\nX-Inspector-Token: ${d.token}\r\nContent-Type: application/json\r\nContent-Length: 0`,
        'close',
      ],
      [
        'GET /api/mcp/ws HTTP/1.1\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Upgrade',
      ],
    ] as const) {
      const { status, text } = await exchange(d, head, connection);
      expect(status, head).toBe(403);
      expect(bodyOf(text), head).toEqual({
        error: 'No Host header: every HTTP/1.1 request names the host it asks',
        code: 'forbidden_host',
      });
    }
    await stillServes(d);
  });

  it('answers a request Node cannot parse with 400 and the error body', async () => {
    const d = await daemon();
    const host = `Host: ${new URL(d.url).host}`;
    for (const length of ['abc', '-1']) {
      const { status, text } = await exchange(
        d,
        `POST /api/mcp/tools/list HTTP/1.1\r\n${host}\r\nContent-Length: ${length}`,
      );
      expect(status, length).toBe(400);
      expect(bodyOf(text), length).toEqual({
        error: expect.stringMatching(/^The request could not be read as HTTP \(HPE_[A-Z_]+\)$/),
        code: 'malformed_request',
      });
    }
    await stillServes(d);
  });

  it('answers an Expect other than 100-continue with 417 and the error body, and serves the next request', async () => {
    const d = await daemon();
    const host = `Host: ${new URL(d.url).host}`;
    const text = await talk(
      new URL(d.url).port,
      `GET /api/mcp/health HTTP/1.1\r\n${host}\r\nExpect: foo\r\n\r\n` +
        `GET /api/mcp/health HTTP/1.1\r\n${host}\r\nConnection: close\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 417 /);
    expect(text).toContain('Content-Type: application/json');
    const first = text.slice(text.indexOf('\r\n\r\n') + 4, text.indexOf('HTTP/1.1 200 '));
    expect(JSON.parse(first)).toEqual({
      error: 'Expect: "foo" is not supported: the daemon meets only the expectation "100-continue"',
      code: 'expectation_failed',
    });
    // The same connection goes on: the second request is answered.
    expect(bodyOf(text.slice(text.indexOf('HTTP/1.1 200 ')))).toMatchObject({ status: 'ok' });
  });

  it('answers CONNECT with 405 and the error body: the daemon is no proxy', async () => {
    const d = await daemon();
    for (const head of [
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443',
      `CONNECT ${new URL(d.url).host} HTTP/1.1\r\nHost: ${new URL(d.url).host}`,
    ]) {
      const { status, text } = await exchange(d, head);
      expect(status, head).toBe(405);
      expect(text).toMatch(/\r\nAllow: *\r\n/);
      expect(bodyOf(text), head).toEqual({
        error: 'CONNECT is not supported: the daemon is no proxy',
        code: 'method_not_allowed',
      });
    }
    await stillServes(d);
  });

  it("answers a request line or headers over Node's size limit with 431 and the error body", async () => {
    const d = await daemon();
    const host = `Host: ${new URL(d.url).host}`;
    for (const head of [
      `GET /api/mcp/health HTTP/1.1\r\n${host}\r\nX-Big: ${'a'.repeat(20_000)}`,
      `GET /api/mcp/health?${'a'.repeat(20_000)} HTTP/1.1\r\n${host}`,
      `GET /api/mcp/health HTTP/1.1\r\n${host}\r\n${Array.from({ length: 3000 }, (_, i) => `X-${i}: a`).join('\r\n')}`,
    ]) {
      const { status, text } = await exchange(d, head);
      expect(status).toBe(431);
      expect(bodyOf(text)).toEqual({
        error: "The request line and headers are over Node's limit of 16384 bytes (HPE_HEADER_OVERFLOW)",
        code: 'headers_too_large',
      });
    }
    await stillServes(d);
  });

  it('lets go of a refused socket whose client never closes its side', async () => {
    const server = createServer((_req, res) => res.end());
    answerClientErrors(server, 4 * 1024 * 1024);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    onTestFinished(() => void server.close());
    const { port } = server.address() as AddressInfo;
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    onTestFinished(() => void socket.destroy());
    socket.write('GARBAGE / HTTP/1.1\r\n\r\n');
    const [answer] = (await once(socket, 'data')) as [Buffer];
    expect(answer.toString()).toMatch(/^HTTP\/1\.1 400 /);
    const open = () =>
      new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count)));
    await vi.waitFor(async () => expect(await open()).toBe(0), { timeout: 10_000, interval: 100 });
  });

  it('answers a request that does not arrive in time with 408 and the error body', async () => {
    // The daemon's server waits a minute for headers; this one, given the daemon's answers, a moment.
    const server = createServer(
      { headersTimeout: 200, requestTimeout: 400, connectionsCheckingInterval: 50 },
      (_req, res) => res.end(),
    );
    answerClientErrors(server, 4 * 1024 * 1024);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    onTestFinished(() => void server.close());
    const { port } = server.address() as AddressInfo;
    const text = await talk(port, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(text)).toEqual({
      error: 'The request did not arrive in time (ERR_HTTP_REQUEST_TIMEOUT)',
      code: 'request_timeout',
    });
  });
});

describe('OPTIONS', () => {
  it("answers one that is no CORS preflight with 405, the path's methods in Allow and the error body", async () => {
    const d = await daemon();
    for (const [path, allow, headers] of [
      ['/api/mcp/servers/x', 'DELETE, GET, HEAD, PUT', { 'X-Inspector-Token': d.token }],
      ['/api/mcp/tools/execute', 'POST', { 'X-Inspector-Token': d.token }],
      ['/api/mcp/health', 'GET, HEAD', {}],
      ['/oauth/callback', 'GET, HEAD', {}],
      // The daemon's own page sends no preflight, and is no cross-origin caller.
      ['/api/mcp/health', 'GET, HEAD', { Origin: d.url, 'Access-Control-Request-Method': 'GET' }],
    ] as const) {
      const answer = await rawRequest(new URL(path, d.url), { method: 'OPTIONS', headers });
      expect(answer.status, path).toBe(405);
      expect(answer.headers.allow, path).toBe(allow);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer.text), path).toEqual({
        error: `OPTIONS ${path} is not offered: it takes ${allow} (the daemon answers OPTIONS only as a CORS preflight of a page it allows)`,
        code: 'method_not_allowed',
      });
    }
  });

  it('still wants the token first on the API, and ends an allowed preflight with its 204', async () => {
    const d = await daemon();
    const untokened = await rawRequest(new URL('/api/mcp/servers/x', d.url), { method: 'OPTIONS' });
    expect([untokened.status, JSON.parse(untokened.text).code]).toEqual([401, 'unauthorized']);
    const preflight = await rawRequest(new URL('/api/mcp/servers/x', d.url), {
      method: 'OPTIONS',
      headers: { Origin: 'chrome-extension://abcdefghijklmnop', 'Access-Control-Request-Method': 'PUT' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.allow).toBeUndefined();
    expect(preflight.headers['access-control-allow-methods']).toContain('PUT');
    expect(preflight.text).toBe('');
  });
});
