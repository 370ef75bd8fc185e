/**
 * OAuth 2.1 for remote servers against real parts: the daemon on an ephemeral port, `oidc-provider` as the
 * authorization server on loopback, and a fixture MCP server protected with the SDK's bearer auth. The
 * test is the person's browser: it opens the authorization URL the daemon answers with and follows the
 * redirects, through the provider's login and consent, back to the daemon's callback.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { once } from 'node:events';
import { createServer, get, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { ServerRecord } from '../../shared/servers.ts';
import { authorizationUrlOf, followAuthorization } from '../conformance/oauth-browser.ts';
import {
  type AuthorizationServer,
  MACHINE_CLIENT,
  PRE_REGISTERED,
  RESOURCE_SCOPE,
} from '../fixtures/authorization-server.ts';
import { type ProtectedServer, startProtectedPair } from '../fixtures/oauth-protected-server.ts';
import { startDaemon, type TestDaemon } from './helpers.ts';

let d: TestDaemon;
let as: AuthorizationServer;
let mcp: ProtectedServer;

beforeAll(async () => {
  d = await startDaemon();
  ({ as, mcp } = await startProtectedPair(() => d.url));
});

afterAll(async () => {
  await d?.close();
  await mcp?.close();
  await as?.close();
});

async function putServer(id: string, auth: Record<string, unknown>): Promise<void> {
  const put = await d.api('PUT', `/api/mcp/servers/${id}`, {
    config: { transport: 'http', url: mcp.url, auth },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
}

/** Connects, which must ask for a sign-in, and answers with the authorization URL. */
async function authorizationUrlFor(id: string): Promise<string> {
  const connect = await d.api('POST', `/api/mcp/servers/${id}/connect`);
  expect(connect.status, JSON.stringify(connect.body)).toBe(502);
  expect(connect.body.code).toBe('authorization_required');
  const url = authorizationUrlOf(connect.body);
  expect(url).toBeTypeOf('string');
  return url as string;
}

async function whoami(id: string): Promise<{ clientId: string; scopes: string[] }> {
  const call = await d.api('POST', `/api/mcp/servers/${id}/tools/whoami/call`, { parameters: {} });
  expect(call.status, JSON.stringify(call.body)).toBe(200);
  return JSON.parse(call.body.result.content[0].text);
}

async function record(id: string): Promise<ServerRecord> {
  return (await d.api('GET', `/api/mcp/servers/${id}`)).body as ServerRecord;
}

async function storedGrant(
  id: string,
): Promise<{ tokens: { access_token: string; refresh_token?: string } }> {
  return JSON.parse(await readFile(join(d.dataDir, 'oauth', `${id}.json`), 'utf8'));
}

describe('OAuth with a real authorization server', () => {
  it('registers dynamically, signs in with PKCE S256 and the resource, and connects from the callback', async () => {
    await putServer('dcr', {});
    const url = new URL(await authorizationUrlFor('dcr'));
    expect(url.origin).toBe(as.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(mcp.url);
    expect(url.searchParams.get('redirect_uri')).toBe(`${d.url}/oauth/callback`);
    expect(url.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
    const waiting = await record('dcr');
    expect(waiting.status).toBe('auth_required');
    expect(waiting.auth).toMatchObject({ state: 'required', authorizationUrl: url.href });

    const interactionsBefore = as.interactions;
    const callback = await followAuthorization(url.href);
    expect(as.interactions).toBeGreaterThan(interactionsBefore);
    expect(callback.url.startsWith(`${d.url}/oauth/callback?`)).toBe(true);
    expect(callback.status, callback.page).toBe(200);
    expect(callback.page).toContain('Signed in to dcr');

    const signedIn = await record('dcr');
    expect(signedIn.status).toBe('connected');
    expect(signedIn.auth?.state).toBe('authorized');
    expect(signedIn.auth?.scopes).toContain(RESOURCE_SCOPE);
    expect(signedIn.auth?.issuer).toBe(as.issuer);
    expect(signedIn.auth?.refreshable).toBe(true);
    expect(Date.parse(signedIn.auth?.expiresAt ?? '')).toBeGreaterThan(Date.now());
    const me = await whoami('dcr');
    expect(me.scopes).toContain(RESOURCE_SCOPE);
    expect(me.clientId).not.toBe(PRE_REGISTERED.clientId);

    // The grant is on disk, readable by its owner only, and in no answer of the daemon.
    const file = join(d.dataDir, 'oauth', 'dcr.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(d.dataDir, 'oauth'))).mode & 0o777).toBe(0o700);
    const { tokens } = await storedGrant('dcr');
    expect(mcp.authorizations).toContain(`Bearer ${tokens.access_token}`);
    const answers = JSON.stringify([
      (await d.api('GET', '/api/mcp/servers')).body,
      (await d.api('GET', '/api/mcp/rpc-logs/export')).body,
    ]);
    expect(answers).not.toContain(tokens.access_token);
    expect(answers).not.toContain(tokens.refresh_token);
  });

  it('refreshes the access token when the server refuses it, without asking the person again', async () => {
    const before = await storedGrant('dcr');
    // The authorization server ends the access token: the server answers 401 to it from now on.
    await (await as.provider.AccessToken.find(before.tokens.access_token))?.destroy();
    await d.api('POST', '/api/mcp/servers/dcr/disconnect');
    const interactions = as.interactions;
    expect((await whoami('dcr')).scopes).toContain(RESOURCE_SCOPE);
    const after = await storedGrant('dcr');
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
    expect(as.interactions).toBe(interactions);
    expect(mcp.authorizations).toContain(`Bearer ${after.tokens.access_token}`);
  });

  it('forgets the grant: the file goes, and the next connection asks for a sign-in again', async () => {
    const forgot = await d.api('DELETE', '/api/mcp/servers/dcr/auth');
    expect(forgot.status, JSON.stringify(forgot.body)).toBe(200);
    expect(forgot.body.auth).toEqual({ state: 'none' });
    expect(forgot.body.status).toBe('disconnected');
    expect(await readdir(join(d.dataDir, 'oauth'))).not.toContain('dcr.json');
    await authorizationUrlFor('dcr');
  });

  it('starts a fresh sign-in on request: the record carries the authorization URL', async () => {
    const started = await d.api('POST', '/api/mcp/servers/dcr/auth/start');
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.auth.state).toBe('required');
    const callback = await followAuthorization(started.body.auth.authorizationUrl);
    expect(callback.status, callback.page).toBe(200);
    expect((await record('dcr')).status).toBe('connected');
  });

  it('signs in with a pre-registered client whose secret is masked in every answer', async () => {
    const warn = vi.spyOn(console, 'warn');
    onTestFinished(() => warn.mockRestore());
    await putServer('pre', { clientId: PRE_REGISTERED.clientId, clientSecret: PRE_REGISTERED.clientSecret });
    const listed = JSON.stringify((await d.api('GET', '/api/mcp/servers')).body);
    expect(listed).not.toContain(PRE_REGISTERED.clientSecret);
    expect((await record('pre')).config).toMatchObject({
      auth: { clientId: PRE_REGISTERED.clientId, clientSecret: '********' },
    });
    const url = new URL(await authorizationUrlFor('pre'));
    expect(url.searchParams.get('client_id')).toBe(PRE_REGISTERED.clientId);
    const callback = await followAuthorization(url.href);
    expect(callback.status, callback.page).toBe(200);
    expect((await whoami('pre')).clientId).toBe(PRE_REGISTERED.clientId);
    // The client is bound to the authorization server it was first used with (SEP-2352), and the stamp
    // kept, by the daemon itself: the SDK found nothing to warn about on the console.
    const grant = JSON.parse(await readFile(join(d.dataDir, 'oauth', 'pre.json'), 'utf8'));
    expect(grant.client).toEqual({ client_id: PRE_REGISTERED.clientId, issuer: as.issuer });
    expect(warn.mock.calls.flat().join('\n')).not.toContain('SEP-2352');
  });

  it('keeps the secret a PUT sends back masked, and drops the grant when the server moves or goes', async () => {
    const masked = (await record('pre')).config;
    const put = await d.api('PUT', '/api/mcp/servers/pre', { config: masked });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.auth?.state).toBe('authorized');
    // Signing in again redeems the code with the client secret: it must still be the stored one.
    await d.api('DELETE', '/api/mcp/servers/pre/auth');
    const callback = await followAuthorization(await authorizationUrlFor('pre'));
    expect(callback.status, callback.page).toBe(200);
    expect((await record('pre')).auth?.state).toBe('authorized');

    const moved = await d.api('PUT', '/api/mcp/servers/pre', {
      config: { ...masked, url: mcp.url.replace('127.0.0.1', 'localhost') },
    });
    expect(moved.body.auth).toEqual({ state: 'none' });
    // Another host: the masked secret is not sent there.
    expect(moved.body.config.auth).toEqual({ clientId: PRE_REGISTERED.clientId });
    expect(await readdir(join(d.dataDir, 'oauth'))).not.toContain('pre.json');

    await putServer('gone', { clientId: PRE_REGISTERED.clientId, clientSecret: PRE_REGISTERED.clientSecret });
    expect((await followAuthorization(await authorizationUrlFor('gone'))).status).toBe(200);
    expect(await readdir(join(d.dataDir, 'oauth'))).toContain('gone.json');
    await d.api('DELETE', '/api/mcp/servers/gone');
    expect(await readdir(join(d.dataDir, 'oauth'))).not.toContain('gone.json');
  });

  it('gets a token with client credentials, no browser involved', async () => {
    await putServer('machine', {
      grant: 'client_credentials',
      clientId: MACHINE_CLIENT.clientId,
      clientSecret: MACHINE_CLIENT.clientSecret,
    });
    const interactions = as.interactions;
    const connect = await d.api('POST', '/api/mcp/servers/machine/connect');
    expect(connect.status, JSON.stringify(connect.body)).toBe(200);
    expect(connect.body.auth).toMatchObject({ state: 'authorized' });
    expect((await whoami('machine')).clientId).toBe(MACHINE_CLIENT.clientId);
    const first = await storedGrant('machine');
    // A fresh authorization needs no person either: a new token, and connected.
    const started = await d.api('POST', '/api/mcp/servers/machine/auth/start');
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.status).toBe('connected');
    expect((await storedGrant('machine')).tokens.access_token).not.toBe(first.tokens.access_token);
    expect(as.interactions).toBe(interactions);
  });

  it('says what grant it holds after a restart, before any connection', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'inspector-test-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const first = await startDaemon({ dataDir });
    onTestFinished(() => first.close());
    const put = await first.api('PUT', '/api/mcp/servers/kept', {
      config: {
        transport: 'http',
        url: mcp.url,
        auth: { grant: 'client_credentials', ...MACHINE_CLIENT },
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    expect((await first.api('POST', '/api/mcp/servers/kept/connect')).status).toBe(200);
    await first.close();

    const again = await startDaemon({ dataDir });
    onTestFinished(() => again.close());
    const kept = (await again.api('GET', '/api/mcp/servers/kept')).body as ServerRecord;
    expect(kept.status).toBe('disconnected');
    expect(kept.auth).toMatchObject({ state: 'authorized' });
  });

  it('authorizes a server over the older HTTP+SSE transport the same way', async () => {
    const put = await d.api('PUT', '/api/mcp/servers/sse', {
      config: { transport: 'sse', url: mcp.sseUrl, auth: {} },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    const url = new URL(await authorizationUrlFor('sse'));
    expect(url.searchParams.get('resource')).toBe(mcp.sseUrl);
    const callback = await followAuthorization(url.href);
    expect(callback.status, callback.page).toBe(200);
    expect((await record('sse')).status).toBe('connected');
    expect((await whoami('sse')).scopes).toContain(RESOURCE_SCOPE);
  });

  it('refuses a callback whose iss names another authorization server, and redeems nothing', async () => {
    await putServer('wrong-iss', {});
    const url = await authorizationUrlFor('wrong-iss');
    const callback = await followAuthorization(url, (next) => {
      if (!next.startsWith(`${d.url}/oauth/callback`)) return next;
      const tampered = new URL(next);
      tampered.searchParams.set('iss', 'https://attacker.example');
      return tampered.href;
    });
    expect(callback.status).toBe(400);
    expect(callback.page).toContain('Sign-in failed');
    expect(callback.page).toContain('another issuer');
    expect(callback.page).not.toContain(new URL(callback.url).searchParams.get('code'));
    const after = await record('wrong-iss');
    expect(after.status).not.toBe('connected');
    expect(after.auth?.state).not.toBe('authorized');
  });

  it('answers a callback with an unknown state with a page that says so', async () => {
    const response = await fetch(`${d.url}/oauth/callback?code=abcdef&state=not-a-flow`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Unknown or expired sign-in');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    // The Host check runs before the callback like before every route.
    const { port } = new URL(d.url);
    const foreignHost = await new Promise<number>((resolve, reject) => {
      get(
        {
          host: '127.0.0.1',
          port,
          path: '/oauth/callback?code=abcdef&state=x',
          headers: { Host: 'evil.example' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      ).on('error', reject);
    });
    expect(foreignHost).toBe(403);
  });

  it('refuses OAuth settings that cannot work', async () => {
    const ws = await d.api('PUT', '/api/mcp/servers/bad', {
      config: { transport: 'websocket', url: 'ws://127.0.0.1:1/', auth: {} },
    });
    expect(ws.status).toBe(400);
    const machine = await d.api('PUT', '/api/mcp/servers/bad', {
      config: { transport: 'http', url: mcp.url, auth: { grant: 'client_credentials' } },
    });
    expect(machine.status).toBe(400);
    expect(machine.body.error).toContain('auth.clientId: is required for client_credentials');
  });

  it('masks a private key for private_key_jwt like a secret', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const put = await d.api('PUT', '/api/mcp/servers/jwt', {
      config: {
        transport: 'http',
        url: mcp.url,
        auth: {
          grant: 'client_credentials',
          clientId: 'jwt-client',
          privateKey: pem,
          signingAlgorithm: 'ES256',
        },
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    expect(put.body.config.auth).toEqual({
      grant: 'client_credentials',
      clientId: 'jwt-client',
      privateKey: '********',
      signingAlgorithm: 'ES256',
    });
    expect(JSON.stringify((await d.api('GET', '/api/mcp/servers')).body)).not.toContain('PRIVATE KEY');
    // Sent back masked, the stored key is kept (the registry file holds it, mode 0600).
    const again = await d.api('PUT', '/api/mcp/servers/jwt', { config: put.body.config });
    expect(again.status).toBe(200);
    const registry = JSON.parse(await readFile(join(d.dataDir, 'servers.json'), 'utf8'));
    expect(registry.mcpServers.jwt.auth.privateKey).toBe(pem);
  });
});

describe('the auth debugger', () => {
  type Trace = { mode: string; version: number; waiting?: number; steps: Array<Record<string, any>> };
  const trace = async (id: string): Promise<Trace> => {
    const answer = await d.api('GET', `/api/mcp/servers/${id}/auth/trace`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as Trace;
  };
  const kinds = (t: Trace) => t.steps.map((step) => step.kind);

  it('records every step of a sign-in, with its exchange, its rule, and every credential masked', async () => {
    await putServer('traced', {});
    const url = await authorizationUrlFor('traced');
    const before = await trace('traced');
    expect(kinds(before)).toEqual(
      expect.arrayContaining([
        'challenge',
        'resource-metadata',
        'server-metadata',
        'registration',
        'authorization',
      ]),
    );
    expect(kinds(before).indexOf('challenge')).toBeLessThan(kinds(before).indexOf('resource-metadata'));
    const challenge = before.steps.find((step) => step.kind === 'challenge');
    expect(challenge?.http.status).toBe(401);
    expect(challenge?.detail).toContain('resource_metadata');
    const metadata = before.steps.find((step) => step.kind === 'resource-metadata' && step.outcome === 'ok');
    expect(metadata?.http.url).toContain('/.well-known/oauth-protected-resource');
    expect(JSON.parse(metadata?.http.responseBody).resource).toBe(mcp.url);
    expect(metadata?.rule).toContain('RFC 9728');
    expect(metadata?.ms).toBeGreaterThanOrEqual(0);
    const registration = before.steps.find((step) => step.kind === 'registration');
    expect(registration?.http).toMatchObject({ method: 'POST', status: 201 });
    const authorization = before.steps.find((step) => step.kind === 'authorization');
    expect(authorization?.detail).toContain('code_challenge_method S256');
    expect(authorization?.problem).toBeUndefined();

    const callback = await followAuthorization(url);
    expect(callback.status, callback.page).toBe(200);
    const code = new URL(callback.url).searchParams.get('code') as string;
    const after = await trace('traced');
    const tail = kinds(after).slice(kinds(before).length);
    expect(tail).toEqual(expect.arrayContaining(['callback', 'token', 'outcome']));
    const token = after.steps.find((step) => step.kind === 'token');
    expect(token?.http.status).toBe(200);
    expect(token?.http.requestBody).toContain('grant_type=authorization_code');
    expect(token?.http.requestBody).toContain('code_verifier=********');
    expect(JSON.parse(token?.http.responseBody).access_token).toBe('********');
    expect(after.steps.at(-1)).toMatchObject({ kind: 'outcome', outcome: 'ok' });

    const { tokens } = await storedGrant('traced');
    const text = JSON.stringify(after);
    for (const secret of [tokens.access_token, tokens.refresh_token, code]) {
      expect(secret && text.includes(secret), 'a secret in the trace').toBe(false);
    }
  });

  it('holds each request of a guided sign-in until the person goes on', async () => {
    await putServer('guided', {});
    const started = await d.api('POST', '/api/mcp/servers/guided/auth/start', { mode: 'guided' });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const seen = new Set<number>();
    for (let round = 0; round < 30; round++) {
      let t = await trace('guided');
      for (
        let wait = 0;
        t.waiting === undefined && !kinds(t).includes('authorization') && wait < 100;
        wait++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        t = await trace('guided');
      }
      if (t.waiting === undefined) break;
      const held = t.steps.find((step) => step.seq === t.waiting);
      expect(held?.outcome).toBe('waiting');
      // Held means not sent: no answer yet.
      expect(held?.http.status).toBeUndefined();
      seen.add(t.waiting);
      const next = await d.api('POST', '/api/mcp/servers/guided/auth/trace/next');
      expect(next.status, JSON.stringify(next.body)).toBe(200);
    }
    const done = await trace('guided');
    expect(done.mode).toBe('guided');
    expect(kinds(done)).toContain('authorization');
    // Every request of the flow was held once: the metadata requests and the registration.
    const requests = done.steps.filter((step) => step.http && step.kind !== 'challenge');
    expect(requests.length).toBeGreaterThanOrEqual(3);
    expect(requests.every((step) => seen.has(step.seq))).toBe(true);
    expect((await record('guided')).auth).toMatchObject({ state: 'required' });

    const nothing = await d.api('POST', '/api/mcp/servers/guided/auth/trace/next');
    expect(nothing.status).toBe(404);
    expect(nothing.body.code).toBe('auth_step_not_found');
    const cleared = await d.api('DELETE', '/api/mcp/servers/guided/auth/trace');
    expect(cleared.body).toMatchObject({ serverId: 'guided', mode: 'quick', steps: [] });
    expect(cleared.body.version).toBeGreaterThan(done.version);
  });

  it('says what is wrong when the token request fails: a wrong client secret', async () => {
    await putServer('bad-secret', {
      grant: 'client_credentials',
      clientId: MACHINE_CLIENT.clientId,
      clientSecret: 'not-the-secret',
    });
    const connect = await d.api('POST', '/api/mcp/servers/bad-secret/connect');
    expect(connect.status).toBe(502);
    const t = await trace('bad-secret');
    const failed = t.steps.find((step) => step.kind === 'client-credentials');
    expect(failed).toMatchObject({ outcome: 'failed', http: { status: 401 } });
    expect(failed?.problem).toContain('invalid_client');
    expect(JSON.stringify(t)).not.toContain('not-the-secret');
  });

  describe('a hostile authorization server', () => {
    // Each server (/NAME/mcp) names its own authorization server (/NAME), whose metadata is wrong in
    // its own way; /hung's resource metadata never answers.
    const hung: ServerResponse[] = [];
    let base = '';
    let slow: TestDaemon;
    const metadataOf = (name: string) => {
      const issuer = `${base}/${name}`;
      const endpoint = { js: 'javascript:alert(1)', file: 'file:///etc/passwd' }[name];
      return {
        issuer: name === 'other-issuer' ? 'http://127.0.0.1:1/someone-else' : issuer,
        authorization_endpoint: endpoint ?? `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      };
    };
    const hostile = createServer((req, res) => {
      const [, first = '', second = '', name = ''] = (req.url ?? '').split('/');
      const json = (body: unknown) =>
        res.setHeader('Content-Type', 'application/json').end(JSON.stringify(body));
      if (first === '.well-known' && second === 'oauth-protected-resource') {
        if (name === 'hung') return void hung.push(res);
        return json({ resource: `${base}/${name}/mcp`, authorization_servers: [`${base}/${name}`] });
      }
      if (first === '.well-known') return json(metadataOf(name));
      res.statusCode = 401;
      res.setHeader(
        'WWW-Authenticate',
        `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/${first}"`,
      );
      res.end();
    });

    beforeAll(async () => {
      hostile.listen(0, '127.0.0.1');
      await once(hostile, 'listening');
      base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
      slow = await startDaemon({ connectTimeoutMs: 1500 });
    });

    afterAll(async () => {
      await slow?.close();
      for (const res of hung) res.destroy();
      hostile.close();
    });

    /** Connects (refused with 502) and checks that the record of the flow ends, saying why. */
    const failedFlow = async (name: string, auth: Record<string, unknown> = {}) => {
      const put = await slow.api('PUT', `/api/mcp/servers/${name}`, {
        config: { transport: 'http', url: `${base}/${name}/mcp`, auth },
      });
      expect(put.status).toBe(201);
      const connect = await slow.api('POST', `/api/mcp/servers/${name}/connect`);
      expect(connect.status, JSON.stringify(connect.body)).toBe(502);
      const steps = ((await slow.api('GET', `/api/mcp/servers/${name}/auth/trace`)).body as Trace).steps;
      expect(steps.filter((step) => step.outcome === 'pending')).toEqual([]);
      expect(steps.at(-1)).toMatchObject({ kind: 'outcome', outcome: 'failed', problem: connect.body.error });
      return { error: connect.body.error as string, code: connect.body.mcpError.code as string, steps };
    };

    it('ends the record of a flow refused for its metadata, saying why', async () => {
      expect((await failedFlow('other-issuer')).code).toBe('ISSUER_MISMATCH');
    });

    it('ends the record of a flow whose metadata never came: the request is marked unanswered', async () => {
      const { steps } = await failedFlow('hung');
      const metadata = steps.find((step) => step.kind === 'resource-metadata');
      expect(metadata).toMatchObject({ outcome: 'failed', problem: 'No answer came before the flow ended.' });
    });

    it('names what is wrong with metadata that breaks the schema, in words', async () => {
      const { error } = await failedFlow('js');
      expect(error).toMatch(/^The OAuth flow failed: authorization_endpoint: .*javascript/);
      expect(error).not.toContain('"code"');
    });

    it('names an authorization endpoint of another scheme as it is written', async () => {
      const { error } = await failedFlow('file', { clientId: 'pre-registered' });
      expect(error).toContain(
        'The authorization endpoint file:///etc/passwd is neither https nor on this machine',
      );
    });
  });

  it('refuses a mode it does not know', async () => {
    const bad = await d.api('POST', '/api/mcp/servers/traced/auth/start', { mode: 'slow' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_request');
  });
});
