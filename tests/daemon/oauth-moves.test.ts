/**
 * OAuth when the server asks for more than the grant holds, against real parts: the daemon, `oidc-provider`
 * and the fixture MCP server protected with the SDK's bearer auth. A tool that needs more scope makes the
 * daemon step up (SEP-2350) and sign in again for it, a bounded number of times, over Streamable HTTP
 * and over SSE alike (the same steps, run against each endpoint of the fixture); a server whose
 * protected-resource metadata moves to another authorization server is followed there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../shared/servers.ts';
import { authorizationUrlOf, followAuthorization } from '../conformance/oauth-browser.ts';
import { ADMIN_SCOPE, type AuthorizationServer, RESOURCE_SCOPE } from '../fixtures/authorization-server.ts';
import {
  type ProtectedServer,
  startAuthorizationServerFor,
  startProtectedPair,
  tokenIssuedBy,
} from '../fixtures/oauth-protected-server.ts';
import { startDaemon, type TestDaemon } from './helpers.ts';

let d: TestDaemon;
const closing: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  d = await startDaemon();
  closing.push(d);
});

afterAll(async () => {
  for (const part of closing.reverse()) await part.close();
});

/** The fixture's two endpoints, one per remote transport: the same tools, each its own resource. */
const TRANSPORTS = [
  { transport: 'http', name: 'Streamable HTTP', endpoint: (mcp: ProtectedServer) => mcp.url },
  { transport: 'sse', name: 'SSE', endpoint: (mcp: ProtectedServer) => mcp.sseUrl },
] as const;
type Transport = (typeof TRANSPORTS)[number];

async function putServer(id: string, mcp: ProtectedServer, over: Transport = TRANSPORTS[0]): Promise<void> {
  const put = await d.api('PUT', `/api/mcp/servers/${id}`, {
    config: { transport: over.transport, url: over.endpoint(mcp), auth: {} },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
}

/** The authorization URL of an answer that must ask for a sign-in. */
function authorizationUrlIn(answer: { status: number; body: any }): URL {
  expect(answer.status, JSON.stringify(answer.body)).toBe(502);
  expect(answer.body.code).toBe('authorization_required');
  const url = authorizationUrlOf(answer.body);
  expect(url).toBeTypeOf('string');
  return new URL(url as string);
}

/** Follows an authorization URL as the person's browser: the daemon's callback page must say signed in. */
async function signIn(url: URL): Promise<void> {
  const callback = await followAuthorization(url.href);
  expect(callback.url.startsWith(`${d.url}/oauth/callback?`)).toBe(true);
  expect(callback.status, callback.page).toBe(200);
}

function call(id: string, tool: string) {
  return d.api('POST', `/api/mcp/servers/${id}/tools/${tool}/call`, { parameters: {} });
}

/** The scopes the server saw on the token of a successful call. */
async function scopesOfCall(id: string, tool: string): Promise<string[]> {
  const answer = await call(id, tool);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return JSON.parse(answer.body.result.content[0].text).scopes;
}

async function record(id: string): Promise<ServerRecord> {
  return (await d.api('GET', `/api/mcp/servers/${id}`)).body as ServerRecord;
}

describe.each(TRANSPORTS)('step-up authorization over $name', (over) => {
  let as: AuthorizationServer;
  let mcp: ProtectedServer;
  const id = `step-${over.transport}`;

  beforeAll(async () => {
    ({ as, mcp } = await startProtectedPair(() => d.url, {
      toolScopes: { admin: [ADMIN_SCOPE] },
      refusingTools: ['stubborn'],
    }));
    closing.push(as, mcp);
    await putServer(id, mcp, over);
    await signIn(authorizationUrlIn(await d.api('POST', `/api/mcp/servers/${id}/connect`)));
  });

  it('signs in again for the larger scope a tool asks for, then calls it', async () => {
    expect(await scopesOfCall(id, 'whoami')).not.toContain(ADMIN_SCOPE);

    const refused = await call(id, 'admin');
    const url = authorizationUrlIn(refused);
    expect(url.origin).toBe(as.issuer);
    const asked = url.searchParams.get('scope')?.split(' ');
    expect(asked).toEqual(expect.arrayContaining([RESOURCE_SCOPE, ADMIN_SCOPE]));
    expect(url.searchParams.get('resource')).toBe(over.endpoint(mcp));
    expect((await record(id)).auth).toMatchObject({ state: 'required', authorizationUrl: url.href });

    const trace = (await d.api('GET', `/api/mcp/servers/${id}/auth/trace`)).body as {
      steps: Array<{ kind: string; detail?: string; http?: { status?: number } }>;
    };
    const challengeAt = trace.steps.findIndex(
      (step) => step.kind === 'challenge' && step.detail?.includes('insufficient_scope'),
    );
    expect(trace.steps[challengeAt]?.http?.status).toBe(403);
    // The client was registered for mcp:tools only: the step-up registers one for the larger scope.
    const kinds = trace.steps.map((step) => step.kind);
    expect(kinds.lastIndexOf('registration')).toBeGreaterThan(challengeAt);

    await signIn(url);
    expect((await record(id)).auth?.scopes).toEqual(expect.arrayContaining([RESOURCE_SCOPE, ADMIN_SCOPE]));
    expect(await scopesOfCall(id, 'admin')).toContain(ADMIN_SCOPE);
    // The other tools go on with the larger grant, no sign-in again.
    expect(await scopesOfCall(id, 'whoami')).toContain(RESOURCE_SCOPE);
  });

  it('stops stepping up when the server keeps refusing a grant that holds every scope it names', async () => {
    const interactions = as.interactions;
    const before = mcp.authorizations.length;
    const refused = await call(id, 'stubborn');
    expect(refused.status, JSON.stringify(refused.body)).toBe(502);
    expect(refused.body.code).toBe('authorization_failed');
    expect(refused.body.mcpError.code).toBe('INSUFFICIENT_SCOPE');
    expect(refused.body.error).toContain('insufficient_scope after the grant was stepped up');
    // Bounded: the call, and once more after the step-up (a refresh: no person is asked), not a loop.
    expect(mcp.authorizations.length - before).toBe(2);
    expect(as.interactions).toBe(interactions);
    expect((await record(id)).auth?.state).toBe('authorized');
    // The grant stays good for the tools it is enough for.
    expect(await scopesOfCall(id, 'admin')).toContain(ADMIN_SCOPE);
  });
});

describe('a server that moves to another authorization server', () => {
  let first: AuthorizationServer;
  let second: AuthorizationServer;
  let mcp: ProtectedServer;
  // The authorization server the protected-resource metadata names, and whose tokens the server takes.
  let current: AuthorizationServer;

  beforeAll(async () => {
    ({ as: first, mcp } = await startProtectedPair(() => d.url, {
      issuer: () => current.issuer,
      verifyAccessToken: (token, resource) => tokenIssuedBy(current)(token, resource),
    }));
    current = first;
    second = await startAuthorizationServerFor(
      () => mcp.url,
      () => d.url,
    );
    closing.push(first, mcp, second);
  });

  it('discovers the new one on the next call, signs in there, and keeps its grant', async () => {
    await putServer('moved', mcp);
    const firstUrl = authorizationUrlIn(await d.api('POST', '/api/mcp/servers/moved/connect'));
    expect(firstUrl.origin).toBe(first.issuer);
    await signIn(firstUrl);
    expect((await record('moved')).auth?.issuer).toBe(first.issuer);
    expect(await scopesOfCall('moved', 'whoami')).toContain(RESOURCE_SCOPE);

    // The server now trusts the second authorization server only: the first's tokens are refused.
    current = second;
    const secondUrl = authorizationUrlIn(await call('moved', 'whoami'));
    expect(secondUrl.origin).toBe(second.issuer);
    expect(secondUrl.searchParams.get('resource')).toBe(mcp.url);
    const interactions = second.interactions;
    await signIn(secondUrl);
    expect(second.interactions).toBeGreaterThan(interactions);

    expect(await scopesOfCall('moved', 'whoami')).toContain(RESOURCE_SCOPE);
    const signedIn = await record('moved');
    expect(signedIn.status).toBe('connected');
    expect(signedIn.auth).toMatchObject({ state: 'authorized', issuer: second.issuer });
  });
});
