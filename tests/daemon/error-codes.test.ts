/**
 * Every kind of failure answers its HTTP status and its error code (shared/errors.ts), against the real
 * daemon: the statuses are written out here as DESIGN decides them, so a change to the daemon's one
 * table shows. Then the completeness checks: the table gives every code a status, README lists each
 * code with it, and every code was answered by some request of this file.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { ERROR_STATUS, toErrorResponse } from '../../daemon/errors.ts';
import { answerClientErrors } from '../../daemon/http/socket-answers.ts';
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.ts';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { startAuthorizationServer } from '../fixtures/authorization-server.ts';
import { startProtectedServer } from '../fixtures/oauth-protected-server.ts';
import { everythingStdio, fixtureStdio, freePort, ROOT, startDaemon, type TestDaemon } from './helpers.ts';

/** The codes some request of this file was answered with. */
const answered = new Set<ErrorCode>();

interface Answer {
  status: number;
  body: any;
  headers?: Headers | Record<string, string | string[] | undefined>;
}

/** The answer is the failure `code` with its `status`, and the code's status in the table is that one. */
function expectFailure(answer: Answer, status: number, code: ErrorCode): void {
  expect({ status: answer.status, code: answer.body?.code }).toEqual({ status, code });
  expect(answer.body.error).toEqual(expect.any(String));
  expect(ERROR_STATUS[code]).toBe(status);
  answered.add(code);
}

async function daemon(overrides: Parameters<typeof startDaemon>[0] = {}): Promise<TestDaemon> {
  const d = await startDaemon(overrides);
  onTestFinished(() => d.close());
  return d;
}

/** A request through node:http, which (unlike fetch) sends any Host header and upgrade request. */
function raw(d: TestDaemon, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, d.url), { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), headers: res.headers }),
      );
    });
    req.on('upgrade', () => reject(new Error(`the upgrade to ${path} was accepted`)));
    req.on('error', reject);
    req.end();
  });
}

/** Bytes written on a socket to `port` as they are (what node:http would not send); the answer when it closes. */
function onSocket(port: number | string, bytes: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('close', () => {
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0);
      // A bare answer (no JSON) shows as its text, so the failure says what came.
      resolve({ status, body: body.startsWith('{') ? JSON.parse(body) : body });
    });
    socket.on('error', reject);
    socket.write(bytes);
  });
}

/** A WebSocket upgrade request for the live channel, as a browser's `new WebSocket(…)` sends it. */
const upgrade = (d: TestDaemon, path: string, headers: Record<string, string> = {}): Promise<Answer> =>
  raw(d, path, {
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    ...headers,
  });

describe('failures of the request itself', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon();
  });
  afterAll(() => d.close());

  it('a body that is not JSON, or a path with a bad % escape: 400 malformed_request', async () => {
    expectFailure(await d.api('POST', '/api/mcp/tools/list', '{"serverId": "a",'), 400, 'malformed_request');
    expectFailure(await d.api('GET', '/api/mcp/servers/%zz'), 400, 'malformed_request');
    const compressed = await d.api('POST', '/api/mcp/tools/list', '{}', { 'Content-Encoding': 'gzip' });
    expectFailure(compressed, 400, 'malformed_request');
  });

  it('a body that does not fit its schema: 400 invalid_request with every problem', async () => {
    const response = await d.api('POST', '/api/mcp/tools/execute', { serverId: 5 });
    expectFailure(response, 400, 'invalid_request');
    expect(response.body.problems).toContainEqual({ path: 'toolName', message: 'is required' });
    const unparsed = await d.api('POST', '/api/mcp/servers/import', { mcpServers: { remote: { url: 'x' } } });
    expectFailure(unparsed, 400, 'invalid_request');
  });

  it('the token in the address of a widget page: 400 invalid_request', async () => {
    const response = await d.api('GET', `/api/mcp/resources/widget/any?token=${d.token}`);
    expectFailure(response, 400, 'invalid_request');
    expect(response.body.error).not.toContain(d.token);
  });

  it('a Content-Encoding the daemon does not decode: 415 unsupported_encoding', async () => {
    const response = await d.api('POST', '/api/mcp/tools/list', '{}', { 'Content-Encoding': 'zip-zap' });
    expectFailure(response, 415, 'unsupported_encoding');
  });

  it('no token, a wrong one, or one in ?token= where only the header counts: 401 unauthorized', async () => {
    const noToken = await fetch(`${d.url}/api/mcp/servers/`);
    expectFailure({ status: noToken.status, body: await noToken.json() }, 401, 'unauthorized');
    expectFailure(
      await d.api('GET', '/api/mcp/servers/', undefined, { 'X-Inspector-Token': 'wrong' }),
      401,
      'unauthorized',
    );
    const inQuery = await fetch(`${d.url}/api/mcp/servers/?token=${d.token}`);
    expectFailure({ status: inQuery.status, body: await inQuery.json() }, 401, 'unauthorized');
  });

  it('a widget view code that is not one: 401 invalid_view_code', async () => {
    const response = await fetch(`${d.url}/api/mcp/openai/widget/any?view=not-a-code`);
    expectFailure({ status: response.status, body: await response.json() }, 401, 'invalid_view_code');
  });

  it('a Host that is not loopback: 403 forbidden_host, on the API and on the web page', async () => {
    const port = new URL(d.url).port;
    for (const path of ['/api/mcp/servers/', '/api/mcp/health', '/']) {
      const response = await raw(d, path, { Host: `evil.example:${port}`, 'X-Inspector-Token': d.token });
      expectFailure(response, 403, 'forbidden_host');
    }
  });

  it('a foreign Origin: 403 forbidden_origin', async () => {
    const response = await d.api('GET', '/api/mcp/servers/', undefined, { Origin: 'https://evil.example' });
    expectFailure(response, 403, 'forbidden_origin');
  });

  it('no Origin with auth off: 403 forbidden_origin', async () => {
    const open = await daemon({ token: null });
    const response = await fetch(`${open.url}/api/mcp/servers/`);
    expectFailure({ status: response.status, body: await response.json() }, 403, 'forbidden_origin');
  });

  it('no such route, in the API or outside it: 404 route_not_found', async () => {
    expectFailure(await d.api('GET', '/api/mcp/no-such-route'), 404, 'route_not_found');
    expectFailure(await d.api('DELETE', '/api/mcp/tools/list'), 404, 'route_not_found');
    // A path of 10,000 characters is not reflected whole.
    const long = await d.api('GET', `/api/mcp/${'x'.repeat(10_000)}`);
    expectFailure(long, 404, 'route_not_found');
    expect(long.body.error.length).toBeLessThan(300);
    // Any GET outside the API is the web page's (its index.html when built): a POST is no route.
    const page = await fetch(`${d.url}/no-such-page`, { method: 'POST' });
    expectFailure({ status: page.status, body: await page.json() }, 404, 'route_not_found');
  });

  it('OPTIONS that is no CORS preflight, or CONNECT: 405 method_not_allowed', async () => {
    const { host, port } = new URL(d.url);
    const options = await onSocket(
      port,
      `OPTIONS /api/mcp/health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    expectFailure(options, 405, 'method_not_allowed');
    const tunnel = await onSocket(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectFailure(tunnel, 405, 'method_not_allowed');
  });

  it('an Expect other than 100-continue: 417 expectation_failed', async () => {
    const { host, port } = new URL(d.url);
    const answer = await onSocket(
      port,
      `GET /api/mcp/health HTTP/1.1\r\nHost: ${host}\r\nExpect: foo\r\nConnection: close\r\n\r\n`,
    );
    expectFailure(answer, 417, 'expectation_failed');
  });

  it("headers over Node's size limit: 431 headers_too_large", async () => {
    const { host, port } = new URL(d.url);
    const answer = await onSocket(
      port,
      `GET /api/mcp/health HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectFailure(answer, 431, 'headers_too_large');
  });

  it('a request that does not arrive in time: 408 request_timeout', async () => {
    // The daemon's answers on a server that waits for headers a moment rather than Node's minute.
    const server = createServer({ headersTimeout: 200, connectionsCheckingInterval: 50 });
    answerClientErrors(server, 4 * 1024 * 1024);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    onTestFinished(() => void server.close());
    const { port } = server.address() as AddressInfo;
    expectFailure(await onSocket(port, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'), 408, 'request_timeout');
  });

  it('unknown ids: 404 with the code of what is unknown', async () => {
    expectFailure(await d.api('GET', '/api/mcp/servers/nobody'), 404, 'server_not_found');
    expectFailure(
      await d.api('POST', '/api/mcp/tools/list', { serverId: 'nobody' }),
      404,
      'server_not_found',
    );
    expectFailure(
      await d.api('POST', '/api/mcp/tools/cancel', { executionId: 'none' }),
      404,
      'execution_not_found',
    );
    const respond = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: 'none',
      response: { action: 'cancel' },
    });
    expectFailure(respond, 404, 'elicitation_not_found');
    expectFailure(await d.api('GET', '/api/mcp/resources/widget/nobody'), 404, 'widget_not_found');
    expectFailure(await d.api('POST', '/api/mcp/openai/widget/nobody/view'), 404, 'widget_not_found');
    expectFailure(await d.api('GET', '/api/mcp/rpc-logs/999999'), 404, 'log_entry_not_found');
    expectFailure(await d.api('GET', '/api/mcp/rpc-logs/first'), 404, 'log_entry_not_found');
  });

  it('refusals of the live channel upgrade answer the same status and code as a request would', async () => {
    expectFailure(await upgrade(d, `/api/mcp/ws?token=wrong`), 401, 'unauthorized');
    expectFailure(
      await upgrade(d, `/api/mcp/ws?token=${d.token}`, { Origin: 'https://evil.example' }),
      403,
      'forbidden_origin',
    );
    const port = new URL(d.url).port;
    expectFailure(
      await upgrade(d, `/api/mcp/ws?token=${d.token}`, { Host: `evil.example:${port}` }),
      403,
      'forbidden_host',
    );
    expectFailure(await upgrade(d, `/api/mcp/elsewhere?token=${d.token}`), 404, 'route_not_found');
  });
});

describe('limits', () => {
  it('a body over the limit, announced or streamed: 413 payload_too_large', async () => {
    const d = await daemon({ bodyLimitBytes: 1024 });
    const body = JSON.stringify({ serverId: 'x'.repeat(2048) });
    expectFailure(await d.api('POST', '/api/mcp/tools/list', body), 413, 'payload_too_large');
    const streamed = await fetch(`${d.url}/api/mcp/tools/list`, {
      method: 'POST',
      headers: { 'X-Inspector-Token': d.token, 'Content-Type': 'application/json' },
      body: new Blob([body]).stream(),
      duplex: 'half',
    } as RequestInit);
    expectFailure({ status: streamed.status, body: await streamed.json() }, 413, 'payload_too_large');
  });

  it('more requests a minute than the rate limit: 429 rate_limited with Retry-After', async () => {
    const d = await daemon({ rateLimitPerMinute: 2 });
    await d.api('GET', '/api/mcp/servers/');
    await d.api('GET', '/api/mcp/servers/');
    const refused = await d.api('GET', '/api/mcp/servers/');
    expectFailure(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('too many wrong tokens: 429 too_many_auth_failures, on a request and on the live channel', async () => {
    const d = await daemon({ authFailuresPerMinute: 2 });
    for (let i = 0; i < 2; i++) {
      expect(
        (await d.api('GET', '/api/mcp/servers/', undefined, { 'X-Inspector-Token': 'wrong' })).status,
      ).toBe(401);
    }
    const refused = await d.api('GET', '/api/mcp/servers/');
    expectFailure(refused, 429, 'too_many_auth_failures');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const live = await upgrade(d, `/api/mcp/ws?token=${d.token}`);
    expectFailure(live, 429, 'too_many_auth_failures');
    expect((live.headers as Record<string, string>)['retry-after']).toMatch(/^\d+$/);
  });
});

describe('user tokens of a shared daemon', () => {
  it('a backend that cannot be reached: 503 auth_backend_unavailable', async () => {
    const d = await daemon({ userAuth: { backendUrl: `http://127.0.0.1:${await freePort()}` } });
    const answer = await d.api('GET', '/api/mcp/servers/', undefined, {
      'X-Inspector-Token': '',
      Authorization: 'Bearer some-user-token',
    });
    expectFailure(answer, 503, 'auth_backend_unavailable');
  });
});

describe('the web page', () => {
  let pageDir = '';
  beforeAll(async () => {
    pageDir = await mkdtemp(join(tmpdir(), 'inspector-page-'));
    await writeFile(join(pageDir, 'index.html'), '<!doctype html><title>inspector</title>');
  });
  afterAll(() => rm(pageDir, { recursive: true, force: true }));

  it('a condition that fails: 412 precondition_failed; a Range past the end: 416 range_not_satisfiable', async () => {
    const d = await daemon({ staticDir: pageDir });
    const conditional = await fetch(`${d.url}/`, { headers: { 'If-Match': '"another"' } });
    expectFailure({ status: conditional.status, body: await conditional.json() }, 412, 'precondition_failed');
    const ranged = await fetch(`${d.url}/tools`, { headers: { Range: 'bytes=100000-' } });
    expectFailure({ status: ranged.status, body: await ranged.json() }, 416, 'range_not_satisfiable');
  });
});

describe('failures of tool calls and MCP servers', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon();
    for (const [id, config] of [
      ['fixture', fixtureStdio('tools-server.ts')],
      ['everything', everythingStdio()],
      ['missing', { transport: 'stdio', command: 'no-such-command-for-the-inspector' }],
    ] as const) {
      expect((await d.api('PUT', `/api/mcp/servers/${id}`, { config })).status).toBe(201);
    }
  }, 30_000);
  afterAll(() => d.close());

  const execute = (serverId: string, toolName: string, extra: object = {}) =>
    d.api('POST', '/api/mcp/tools/execute', { serverId, toolName, ...extra });

  it('an unknown tool: 404 tool_not_found; an unknown prompt: 404 prompt_not_found', async () => {
    expectFailure(await execute('fixture', 'no-such-tool'), 404, 'tool_not_found');
    const long = await execute('fixture', 'y'.repeat(100_000));
    expectFailure(long, 404, 'tool_not_found');
    expect(long.body.error).toBe(`Unknown tool "${'y'.repeat(120)}…" on server "fixture"`);
    const prompt = await d.api('POST', '/api/mcp/prompts/get', {
      serverId: 'everything',
      name: 'no-such-prompt',
    });
    expectFailure(prompt, 404, 'prompt_not_found');
  });

  it('a call while another runs: 409 execution_busy naming it', async () => {
    const running = execute('fixture', 'slow', { parameters: { ms: 60_000 } });
    const active = await vi.waitFor(
      () => {
        const execution = d.daemon.executions.activeExecution;
        if (!execution) throw new Error('not running yet');
        return execution;
      },
      { timeout: 20_000, interval: 20 },
    );
    const busy = await execute('fixture', 'ping');
    expectFailure(busy, 409, 'execution_busy');
    expect(busy.body.activeExecution).toEqual(active);
    expect((await d.api('POST', '/api/mcp/tools/cancel', { executionId: active.id })).status).toBe(200);
    expect((await running).body.status).toBe('cancelled');
  });

  it('a call past its time-out: 504 tool_timeout', async () => {
    const timedOut = await execute('fixture', 'slow', { parameters: { ms: 60_000 }, timeoutMs: 300 });
    expectFailure(timedOut, 504, 'tool_timeout');
    expect(d.daemon.executions.activeExecution).toBeUndefined();
  });

  it('a JSON-RPC error of the server: 502 mcp_error, its own code in mcpError', async () => {
    // The fixture offers tools only: it answers prompts/list "method not found".
    const response = await d.api('POST', '/api/mcp/prompts/list', { serverId: 'fixture' });
    expectFailure(response, 502, 'mcp_error');
    expect(response.body.mcpError.code).toBe(-32601);
  });

  it('a server that cannot be started: 502 upstream_failed, the reason in mcpError', async () => {
    const response = await d.api('POST', '/api/mcp/servers/missing/connect');
    expectFailure(response, 502, 'upstream_failed');
    expect(response.body.mcpError.code).toBe('COMMAND_NOT_FOUND');
  });
});

describe('failures of OAuth with a remote server', () => {
  it('a server that asks for a sign-in: 502 authorization_required with the URL; a broken flow: 502 authorization_failed', async () => {
    const resource = { url: '' };
    const as = await startAuthorizationServer({ resource: () => resource.url, redirectUris: () => [] });
    let issuer = as.issuer;
    const mcp = await startProtectedServer({
      issuer: () => issuer,
      verifyAccessToken: () => Promise.reject(new InvalidTokenError('no token is good here')),
    });
    resource.url = mcp.url;
    const d = await daemon();
    onTestFinished(async () => {
      await mcp.close();
      await as.close();
    });
    await d.api('PUT', '/api/mcp/servers/oauth', { config: { transport: 'http', url: mcp.url, auth: {} } });
    const required = await d.api('POST', '/api/mcp/servers/oauth/connect');
    expectFailure(required, 502, 'authorization_required');
    expect(required.body.mcpError.data.authorizationUrl).toMatch(new RegExp(`^${as.issuer}/`));

    // The protected-resource metadata now names an authorization server that is not there.
    issuer = `${mcp.url.replace(/\/mcp$/, '')}/nowhere`;
    await d.api('POST', '/api/mcp/servers/oauth/disconnect');
    const failed = await d.api('POST', '/api/mcp/servers/oauth/connect');
    expectFailure(failed, 502, 'authorization_failed');
    expect(failed.body.mcpError.code).toBe('AUTH_FLOW_FAILED');

    // Nothing of its auth debugger waits: no guided sign-in runs.
    expectFailure(await d.api('POST', '/api/mcp/servers/oauth/auth/trace/next'), 404, 'auth_step_not_found');
  });
});

describe('the code of an error nobody named', () => {
  it('is internal_error, 500, with the error as mcpError', () => {
    const { status, body } = toErrorResponse(new TypeError('x is not a function'), false);
    expect(status).toBe(500);
    expect(body).toEqual({
      error: 'x is not a function',
      code: 'internal_error',
      mcpError: { name: 'TypeError', message: 'x is not a function' },
    });
    answered.add(body.code);
  });
});

describe('the codes are complete', () => {
  it('the status table has every code and nothing else, each a 4xx or 5xx', () => {
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
    for (const code of ERROR_CODES) expect(ERROR_STATUS[code]).toBeLessThan(600);
  });

  it('README lists every code with its status', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('### Errors'),
      readme.indexOf('\n### ', readme.indexOf('### Errors') + 1),
    );
    const listed = [...section.matchAll(/^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|/gm)].map(
      ([, status, code]) => [code, Number(status)],
    );
    expect(Object.fromEntries(listed)).toEqual(ERROR_STATUS);
    expect(listed).toHaveLength(ERROR_CODES.length);
  });

  // Runs last: the tests above each add the codes they were answered with.
  it('every code was answered by a request above', () => {
    expect([...answered].sort()).toEqual([...ERROR_CODES].sort());
  });
});
