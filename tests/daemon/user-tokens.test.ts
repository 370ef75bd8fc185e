/**
 * SPEC part 5 for a shared daemon: with CLOUD_BACKEND_HTTP_URL, a user's bearer token (issued by a real
 * OpenID provider, checked by a backend that asks that provider) is accepted beside the session token.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userAuthFromEnv } from '../../daemon/cli.ts';
import { UserTokenValidator } from '../../daemon/security/user-tokens.ts';
import {
  type AuthorizationServer,
  PRE_REGISTERED,
  startAuthorizationServer,
} from '../fixtures/authorization-server.ts';
import { startUserBackend, type UserBackend } from '../fixtures/user-backend.ts';
import { freePort, startDaemon, type TestDaemon } from './helpers.ts';
import { liveUrl, ofType, openLive, refusal } from './live-helpers.ts';

let provider: AuthorizationServer;
let backend: UserBackend;
let daemon: TestDaemon;
const logged: string[] = [];

/** An access token of `alice`, as the provider issues it, living `expiresIn` seconds. */
async function issueToken(expiresIn?: number): Promise<string> {
  const client = await provider.provider.Client.find(PRE_REGISTERED.clientId);
  const token = new provider.provider.AccessToken({
    accountId: 'alice',
    client,
    scope: 'openid',
    ...(expiresIn !== undefined && { expiresIn }),
  });
  return token.save();
}

/** A call with only the user's token, as a signed-in web page sends it. */
async function asUser(d: TestDaemon, token: string, path = '/api/mcp/user') {
  const response = await fetch(`${d.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as any };
}

beforeAll(async () => {
  provider = await startAuthorizationServer({
    resource: () => 'http://127.0.0.1/none',
    redirectUris: () => ['http://127.0.0.1/callback'],
  });
  backend = await startUserBackend(provider.provider);
  daemon = await startDaemon({
    userAuth: { backendUrl: backend.url, signIn: { issuer: provider.issuer, clientId: 'inspector-web' } },
    log: (line) => logged.push(line),
  });
});

afterAll(async () => {
  await daemon?.close();
  await backend?.close();
  await provider?.close();
});

describe('with CLOUD_BACKEND_HTTP_URL', () => {
  it('tells the page where users sign in, without a token', async () => {
    const health = await (await fetch(`${daemon.url}/api/mcp/health`)).json();
    expect(health.signIn).toEqual({ issuer: provider.issuer, clientId: 'inspector-web' });
  });

  it('accepts a valid user token, names its user and asks the backend once while it is trusted', async () => {
    const token = await issueToken();
    const before = backend.asked.length;
    const first = await asUser(daemon, token);
    expect(first).toEqual({
      status: 200,
      body: { user: { sub: 'alice', name: 'Alice Liddell', email: 'alice@example.test' } },
    });
    const servers = await asUser(daemon, token, '/api/mcp/servers');
    expect(servers.status).toBe(200);
    expect(servers.body.servers).toEqual([]);
    expect(backend.asked.slice(before)).toEqual([`Bearer ${token}`]);
  });

  it('keeps accepting the session token, which names no user', async () => {
    const answer = await daemon.api('GET', '/api/mcp/user');
    expect(answer).toMatchObject({ status: 200, body: { user: null } });
  });

  it('refuses an unknown token with 401 unauthorized', async () => {
    const answer = await asUser(daemon, 'not-a-token-the-provider-issued');
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({
      error: 'Unauthorized: the sign-in backend refused the user token',
      code: 'unauthorized',
    });
  });

  it('refuses a token once it has expired, even after it was accepted', async () => {
    const token = await issueToken(2);
    expect((await asUser(daemon, token)).status).toBe(200);
    await sleep(2_100);
    const answer = await asUser(daemon, token);
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('unauthorized');
  });

  it('refuses a token the provider revoked before it was ever shown', async () => {
    const token = await issueToken();
    const found = await provider.provider.AccessToken.find(token);
    await found?.destroy();
    expect((await asUser(daemon, token)).status).toBe(401);
  });

  it('lets a signed-in page open the live channel and the log stream with its token in ?token=', async () => {
    const token = await issueToken();
    const live = await openLive(daemon, { token });
    expect(await live.until((messages) => ofType(messages, 'hello')[0], 'hello')).toMatchObject({
      type: 'hello',
    });
    live.close();
    expect(await refusal(liveUrl(daemon, { token: 'not-a-token-the-provider-issued' }))).toBe(401);
    const stream = new AbortController();
    const logs = await fetch(`${daemon.url}/api/mcp/rpc-logs?token=${token}`, { signal: stream.signal });
    expect(logs.status).toBe(200);
    expect(logs.headers.get('content-type')).toContain('text/event-stream');
    stream.abort();
  });

  it('never writes a user token to its log', async () => {
    const token = await issueToken();
    await asUser(daemon, token);
    await asUser(daemon, `${token}x`);
    expect(logged.join('\n')).not.toContain(token);
  });
});

describe('a backend that breaks the contract', () => {
  afterAll(() => {
    backend.behaviour = 'contract';
  });

  it.each([
    ['server-error', 'answered 500'],
    ['not-a-user', 'answered 200 without a user record ({ sub, name?, email?, exp? })'],
    ['too-large', 'answered 200 without a user record ({ sub, name?, email?, exp? })'],
  ] as const)('%s: 503 auth_backend_unavailable (%s), nothing cached', async (behaviour, said) => {
    backend.behaviour = behaviour;
    const token = await issueToken();
    const answer = await asUser(daemon, token);
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({
      error: `The sign-in backend ${said}: the user token cannot be checked`,
      code: 'auth_backend_unavailable',
    });
    backend.behaviour = 'contract';
    expect((await asUser(daemon, token)).status).toBe(200);
  });
});

describe('the cache of valid answers', () => {
  it('holds at most maxEntries tokens and trusts an answer at most maxAgeMs', async () => {
    const [first, second] = [await issueToken(), await issueToken()];
    const asks = (token: string): number => backend.asked.filter((h) => h === `Bearer ${token}`).length;
    const small = new UserTokenValidator({ backendUrl: backend.url, maxEntries: 1 });
    await small.validate(first);
    await small.validate(second);
    await small.validate(second);
    await small.validate(first);
    expect([asks(first), asks(second)]).toEqual([2, 1]);

    const brief = new UserTokenValidator({ backendUrl: backend.url, maxAgeMs: 1_000 });
    const start = Date.now();
    await brief.validate(second, start);
    await brief.validate(second, start + 500);
    expect(asks(second)).toBe(2);
    await brief.validate(second, start + 1_500);
    expect(asks(second)).toBe(3);
  });

  it('asks the backend once for concurrent calls with one token', async () => {
    const token = await issueToken();
    const validator = new UserTokenValidator({ backendUrl: backend.url });
    const users = await Promise.all([1, 2, 3].map(() => validator.validate(token)));
    expect(users.map((user) => user.sub)).toEqual(['alice', 'alice', 'alice']);
    expect(backend.asked.filter((h) => h === `Bearer ${token}`)).toHaveLength(1);
  });
});

describe('when the backend cannot be reached', () => {
  let offline: TestDaemon;
  beforeAll(async () => {
    offline = await startDaemon({ userAuth: { backendUrl: `http://127.0.0.1:${await freePort()}` } });
  });
  afterAll(() => offline?.close());

  it('answers 503 auth_backend_unavailable and says why, and the session token still works', async () => {
    const token = await issueToken();
    const answer = await asUser(offline, token);
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('auth_backend_unavailable');
    expect(answer.body.error).toMatch(/sign-in backend cannot be reached.*CLOUD_BACKEND_HTTP_URL/);
    expect(answer.body.error).not.toContain(token);
    expect((await offline.api('GET', '/api/mcp/servers')).status).toBe(200);
  });

  it('has no sign-in to offer without an OpenID provider', async () => {
    const health = await (await fetch(`${offline.url}/api/mcp/health`)).json();
    expect(health).not.toHaveProperty('signIn');
  });
});

describe('without CLOUD_BACKEND_HTTP_URL nothing changes', () => {
  let plain: TestDaemon;
  beforeAll(async () => {
    plain = await startDaemon();
  });
  afterAll(() => plain?.close());

  it('refuses a valid user token and never asks a backend', async () => {
    const token = await issueToken();
    const before = backend.asked.length;
    const answer = await asUser(plain, token);
    expect(answer).toEqual({ status: 401, body: { error: 'Unauthorized', code: 'unauthorized' } });
    expect(backend.asked.length).toBe(before);
    const health = await (await fetch(`${plain.url}/api/mcp/health`)).json();
    expect(health).not.toHaveProperty('signIn');
  });

  it('reads nothing from the environment when the variable is unset, and checks it when set', () => {
    expect(
      userAuthFromEnv({ INSPECTOR_OIDC_ISSUER: 'https://id.example', INSPECTOR_OIDC_CLIENT_ID: 'x' }),
    ).toBeUndefined();
    expect(userAuthFromEnv({ CLOUD_BACKEND_HTTP_URL: 'https://backend.example' })).toEqual({
      backendUrl: 'https://backend.example',
    });
    expect(
      userAuthFromEnv({
        CLOUD_BACKEND_HTTP_URL: 'https://backend.example',
        INSPECTOR_OIDC_ISSUER: 'https://id.example/',
        INSPECTOR_OIDC_CLIENT_ID: 'inspector',
      }),
    ).toEqual({
      backendUrl: 'https://backend.example',
      signIn: { issuer: 'https://id.example', clientId: 'inspector' },
    });
    expect(() => userAuthFromEnv({ CLOUD_BACKEND_HTTP_URL: 'ftp://backend' })).toThrow(
      /http:\/\/ or https:\/\//,
    );
    expect(() =>
      userAuthFromEnv({
        CLOUD_BACKEND_HTTP_URL: 'https://b.example',
        INSPECTOR_OIDC_ISSUER: 'https://id.example',
      }),
    ).toThrow(/set both or neither/);
  });
});
