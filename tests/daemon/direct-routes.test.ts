/**
 * POST /api/mcp/tools/execute is answered outside express when it comes in its ordinary form
 * (daemon/http/direct-routes.ts). Every answer must be the one express gives: each case sends the same
 * request to the exact path, which the direct route takes, and to `/api/mcp/tools/execute/`, which only
 * express routes (to the same handler), and compares what comes back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenMatches } from '../../daemon/security/token-middleware.ts';
import {
  fixtureStdio,
  type RawAnswer,
  rawRequest,
  registerAndConnect,
  startDaemon,
  type TestDaemon,
} from './helpers.ts';

const DIRECT = '/api/mcp/tools/execute';
const EXPRESS = '/api/mcp/tools/execute/';

/** POSTs these bytes (or parts) with exactly these headers. */
const send = (url: string, path: string, headers: Record<string, string>, body: string | Buffer[]) =>
  rawRequest(`${url}${path}`, { method: 'POST', headers, body });

/** Counts the requests that reach express while `run` runs. */
async function expressRequests(d: TestDaemon, run: () => Promise<void>): Promise<number> {
  const app = d.daemon.app as typeof d.daemon.app & { handle: (...args: unknown[]) => void };
  const handle = app.handle;
  let handled = 0;
  app.handle = (...args: unknown[]) => {
    handled++;
    handle.apply(app, args);
  };
  try {
    await run();
  } finally {
    app.handle = handle;
  }
  return handled;
}

/** What must be the same on both paths: status, body and the headers the daemon sets. */
const shape = (raw: RawAnswer) => ({
  status: raw.status,
  body: JSON.parse(raw.text) as Record<string, unknown>,
  contentType: raw.headers['content-type'],
  retryAfter: raw.headers['retry-after'],
  allowOrigin: raw.headers['access-control-allow-origin'],
  vary: raw.headers.vary,
});

/** Sends to both paths, direct first, and expects the same answer. */
async function sameOnBoth(
  d: TestDaemon,
  body: string,
  headers: Record<string, string> = {},
): Promise<ReturnType<typeof shape>> {
  const all = { 'content-type': 'application/json', 'x-inspector-token': d.token, ...headers };
  const direct = shape(await send(d.url, DIRECT, all, body));
  const routed = shape(await send(d.url, EXPRESS, all, body));
  expect(direct).toEqual(routed);
  return direct;
}

describe('the direct route of POST /api/mcp/tools/execute', () => {
  let d: TestDaemon;

  beforeAll(async () => {
    d = await startDaemon();
    const connected = await registerAndConnect(d, 'tools', fixtureStdio('tools-server.ts'));
    expect(connected.status).toBe(200);
  });
  afterAll(() => d.close());

  it('calls the tool and answers as the express route does', async () => {
    const body = JSON.stringify({ serverId: 'tools', toolName: 'ping' });
    const headers = { 'content-type': 'application/json', 'x-inspector-token': d.token };
    const direct = await send(d.url, DIRECT, headers, body);
    const routed = await send(d.url, EXPRESS, headers, body);
    for (const raw of [direct, routed]) {
      expect(raw.status).toBe(200);
      expect(raw.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(raw.headers['content-length']).toBe(String(Buffer.byteLength(raw.text)));
      expect(raw.headers['x-powered-by']).toBeUndefined();
    }
    const { executionId: a, ...directAnswer } = JSON.parse(direct.text);
    const { executionId: b, ...routedAnswer } = JSON.parse(routed.text);
    expect(directAnswer).toEqual(routedAnswer);
    expect(directAnswer).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'pong' }] },
    });
    expect(a).not.toBe(b);
  });

  it('takes the ordinary call from express, and hands express every other', async () => {
    const body = JSON.stringify({ serverId: 'tools', toolName: 'ping' });
    const headers = { 'content-type': 'application/json', 'x-inspector-token': d.token };
    const taken = await expressRequests(d, async () => {
      expect((await send(d.url, DIRECT, headers, body)).status).toBe(200);
      expect((await send(d.url, DIRECT, headers, '{"serverId":')).status).toBe(400);
    });
    expect(taken).toBe(0);
    const handed = await expressRequests(d, async () => {
      expect((await send(d.url, EXPRESS, headers, body)).status).toBe(200);
      expect((await send(d.url, `${DIRECT}?x=1`, headers, body)).status).toBe(200);
      expect((await send(d.url, DIRECT, { ...headers, 'x-inspector-token': 'wrong' }, body)).status).toBe(
        401,
      );
      const latin1 = { ...headers, 'content-type': 'application/json; charset=latin1' };
      expect((await send(d.url, DIRECT, latin1, body)).status).toBe(415);
    });
    expect(handed).toBe(4);
  });

  it('reads a body that comes in parts, after its headers, as one that came with them', async () => {
    const body = Buffer.from(JSON.stringify({ serverId: 'tools', toolName: 'ping' }));
    const headers = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'x-inspector-token': d.token,
    };
    let answer: RawAnswer | undefined;
    const handled = await expressRequests(d, async () => {
      answer = await send(d.url, DIRECT, headers, [body.subarray(0, 10), body.subarray(10)]);
    });
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer?.text ?? '')).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'pong' }] },
    });
    expect(handled).toBe(0);
  });

  it('answers bad bodies with the same 400s', async () => {
    const missing = await sameOnBoth(d, JSON.stringify({ serverId: 'tools' }));
    expect(missing).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    const malformed = await sameOnBoth(d, '{"serverId": "tools",');
    expect(malformed).toMatchObject({
      status: 400,
      body: { code: 'malformed_request', error: 'body: malformed JSON' },
    });
    const deep = await sameOnBoth(d, `{"a":${'['.repeat(300)}${']'.repeat(300)}}`);
    expect(deep).toMatchObject({ status: 400, body: { code: 'malformed_request' } });
    expect(String(deep.body.error)).toContain('levels deep');
    const notAnObject = await sameOnBoth(d, '"ping"');
    expect(notAnObject).toMatchObject({ status: 400, body: { code: 'malformed_request' } });
    const empty = await sameOnBoth(d, '');
    expect(empty).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
  });

  it('answers an unknown server or tool with the same 404s', async () => {
    const server = await sameOnBoth(d, JSON.stringify({ serverId: 'nope', toolName: 'ping' }));
    expect(server).toMatchObject({ status: 404, body: { code: 'server_not_found' } });
    const tool = await sameOnBoth(d, JSON.stringify({ serverId: 'tools', toolName: 'nope' }));
    expect(tool).toMatchObject({ status: 404, body: { code: 'tool_not_found' } });
  });

  it('answers a call while another runs with the same 409', async () => {
    const slow = d.api('POST', DIRECT, { serverId: 'tools', toolName: 'slow', parameters: { ms: 1500 } });
    await expect
      .poll(async () => (await d.api('GET', '/api/mcp/tools/active')).body.activeExecution)
      .not.toBeNull();
    const busy = await sameOnBoth(d, JSON.stringify({ serverId: 'tools', toolName: 'ping' }));
    expect(busy).toMatchObject({ status: 409, body: { code: 'execution_busy' } });
    expect((await slow).status).toBe(200);
  });

  it('refuses a wrong or missing token, a foreign Host or Origin, and an oversized body as express does', async () => {
    const body = JSON.stringify({ serverId: 'tools', toolName: 'ping' });
    expect(await sameOnBoth(d, body, { 'x-inspector-token': 'wrong-token-0123456789abcdef' })).toMatchObject({
      status: 401,
      body: { code: 'unauthorized' },
    });
    expect(await sameOnBoth(d, body, { 'x-inspector-token': d.token.slice(0, -1) })).toMatchObject({
      status: 401,
    });
    expect(await sameOnBoth(d, body, { host: 'evil.example' })).toMatchObject({
      status: 403,
      body: { code: 'forbidden_host' },
    });
    expect(await sameOnBoth(d, body, { origin: 'https://evil.example' })).toMatchObject({
      status: 403,
      body: { code: 'forbidden_origin' },
    });
    expect(await sameOnBoth(d, body, { 'content-type': 'text/plain' })).toMatchObject({ status: 400 });
  });

  it('gives an extension page the same CORS headers', async () => {
    const origin = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
    const headers = { 'content-type': 'application/json', 'x-inspector-token': d.token, origin };
    const body = JSON.stringify({ serverId: 'tools', toolName: 'ping' });
    for (const path of [DIRECT, EXPRESS]) {
      const raw = await send(d.url, path, headers, body);
      expect(raw.status).toBe(200);
      expect(raw.headers['access-control-allow-origin']).toBe(origin);
      expect(raw.headers.vary).toBe('Origin');
    }
  });
});

describe('the direct route with the daemon’s limits', () => {
  it('counts calls on both paths against one rate limit and refuses past it with the same 429', async () => {
    const d = await startDaemon({ rateLimitPerMinute: 4 });
    try {
      const body = JSON.stringify({ serverId: 'nope', toolName: 'ping' });
      const headers = { 'content-type': 'application/json', 'x-inspector-token': d.token };
      // Four requests in all, two on each path, are let through (to a 404: no server needed).
      for (const path of [DIRECT, EXPRESS, DIRECT, EXPRESS]) {
        expect((await send(d.url, path, headers, body)).status).toBe(404);
      }
      const refused = await sameOnBoth(d, body);
      expect(refused).toMatchObject({
        status: 429,
        body: { code: 'rate_limited', error: 'Too many requests: more than 4 a minute' },
        retryAfter: '60',
      });
    } finally {
      await d.close();
    }
  });

  it('refuses a body announced larger than the limit with the same 413, before reading it', async () => {
    const d = await startDaemon({ bodyLimitBytes: 64 });
    try {
      const body = JSON.stringify({
        serverId: 'tools',
        toolName: 'ping',
        parameters: { pad: 'x'.repeat(100) },
      });
      expect(await sameOnBoth(d, body)).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
    } finally {
      await d.close();
    }
  });

  it('leaves a client blocked after failed attempts blocked, even with the right token', async () => {
    const d = await startDaemon({ authFailuresPerMinute: 2 });
    try {
      const body = JSON.stringify({ serverId: 'nope', toolName: 'ping' });
      for (let i = 0; i < 3; i++) {
        await send(
          d.url,
          DIRECT,
          { 'content-type': 'application/json', 'x-inspector-token': 'wrong-token-0123456789' },
          body,
        );
      }
      const blocked = await sameOnBoth(d, body);
      expect(blocked).toMatchObject({ status: 429, body: { code: 'too_many_auth_failures' } });
    } finally {
      await d.close();
    }
  });

  it('with --no-auth, still refuses a program that sends no Origin', async () => {
    const d = await startDaemon({ token: null });
    try {
      const body = JSON.stringify({ serverId: 'nope', toolName: 'ping' });
      const refused = await sameOnBoth(d, body, { 'x-inspector-token': '' });
      expect(refused).toMatchObject({ status: 403, body: { code: 'forbidden_origin' } });
      const own = await sameOnBoth(d, body, { origin: d.url });
      expect(own).toMatchObject({ status: 404, body: { code: 'server_not_found' } });
    } finally {
      await d.close();
    }
  });
});

describe('tokenMatches', () => {
  const token = 'test-token-0123456789abcdef';
  it('accepts the token and nothing else: not a prefix, an extension, another of the same length or nothing', () => {
    expect(tokenMatches(token, token)).toBe(true);
    expect(tokenMatches(Buffer.from(token), token)).toBe(true);
    expect(tokenMatches(token, token.slice(0, -1))).toBe(false);
    expect(tokenMatches(token, `${token}0`)).toBe(false);
    expect(tokenMatches(token, token.replace('t', 'T'))).toBe(false);
    expect(tokenMatches(token, '')).toBe(false);
    expect(tokenMatches(token, undefined)).toBe(false);
    // As many bytes as the token, in fewer characters.
    expect(tokenMatches(token, 'é'.repeat(token.length / 2) + 'x'.repeat(token.length % 2))).toBe(false);
  });
});
