/**
 * The assertion grants against real parts: `oidc-provider` as the MCP server's authorization server,
 * taught the JWT bearer grant (RFC 7523) with `registerGrantType`, and a second `oidc-provider` as the
 * enterprise IdP, taught the token exchange (RFC 8693) that issues identity assertion grants (ID-JAG,
 * SEP-990). The test plays the platform and the person: it signs the workload token and the ID token
 * with keys it makes, which the two servers trust.
 */
import { generateKeyPairSync, type KeyObject, randomUUID, sign, verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthTrace } from '../../shared/oauth.ts';
import {
  type AuthorizationServer,
  RESOURCE_SCOPE,
  startAuthorizationServer,
} from '../fixtures/authorization-server.ts';
import {
  type ProtectedServer,
  startProtectedServer,
  tokenIssuedBy,
} from '../fixtures/oauth-protected-server.ts';
import { startDaemon, type TestDaemon } from './helpers.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const WORKLOAD_ISSUER = 'https://workload-platform.example';

type Claims = Record<string, unknown>;

/** The parts of oidc-provider's token endpoint a custom grant handler uses. */
interface GrantContext {
  oidc: { params: Record<string, string | undefined>; client: { clientId: string } };
  status: number;
  body: unknown;
}
interface GrantProvider {
  registerGrantType(name: string, handler: (ctx: GrantContext) => Promise<void>, params: string[]): void;
  ClientCredentials: new (init: { client: unknown; scope: string }) => {
    resourceServer?: unknown;
    save(): Promise<string>;
  };
  ResourceServer: new (identifier: string, info: Record<string, unknown>) => unknown;
}

const keyPair = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const workloadKeys = keyPair();
const idTokenKeys = keyPair();
const jagKeys = keyPair();

function signJwt(header: Claims, claims: Claims, key: KeyObject): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'ES256', ...header })}.${part(claims)}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** The claims of a JWT signed with the key and unexpired, with its header; undefined otherwise. */
function verifiedJwt(
  jwt: string | undefined,
  key: KeyObject,
): { header: Claims; claims: Claims } | undefined {
  const [header = '', payload = '', signature = ''] = (jwt ?? '').split('.');
  const input = Buffer.from(`${header}.${payload}`);
  const signed = Buffer.from(signature, 'base64url');
  if (!verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signed)) return undefined;
  const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Claims;
  const claims = decode(payload);
  if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) return undefined;
  return { header: decode(header), claims };
}

const now = () => Math.floor(Date.now() / 1000);

function refuse(ctx: GrantContext, error: string, description: string): void {
  ctx.status = 400;
  ctx.body = { error, error_description: description };
}

let d: TestDaemon;
let as: AuthorizationServer;
let idp: AuthorizationServer;
let mcp: ProtectedServer;
/** The MCP client registered at the authorization server for enterprise-managed authorization. */
let enterpriseClient: { client_id: string; client_secret: string };
/** The daemon's client at the IdP. */
let idpClient: { client_id: string; client_secret: string };
/** What the two token endpoints took. */
const exchanges: Claims[] = [];
const bearerGrants: Array<{ claims: Claims; clientId: string }> = [];

/** The MCP authorization server's JWT bearer grant: a workload token, or an ID-JAG of the IdP. */
async function jwtBearerGrant(ctx: GrantContext): Promise<void> {
  const { assertion, resource } = ctx.oidc.params;
  const workload = verifiedJwt(assertion, workloadKeys.publicKey);
  const jag = verifiedJwt(assertion, jagKeys.publicKey);
  const verified = workload ?? jag;
  if (!verified || verified.claims.aud !== as.issuer) {
    return refuse(ctx, 'invalid_grant', 'The assertion is not trusted, expired, or for another audience');
  }
  if (jag) {
    if (jag.header.typ !== 'oauth-id-jag+jwt' || jag.claims.client_id !== ctx.oidc.client.clientId) {
      return refuse(ctx, 'invalid_grant', 'The ID-JAG is not for this client');
    }
    if (jag.claims.resource !== resource)
      return refuse(ctx, 'invalid_grant', 'The ID-JAG is for another resource');
  }
  bearerGrants.push({ claims: verified.claims, clientId: ctx.oidc.client.clientId });
  const provider = as.provider as unknown as GrantProvider;
  const token = new provider.ClientCredentials({ client: ctx.oidc.client, scope: RESOURCE_SCOPE });
  token.resourceServer = new provider.ResourceServer(mcp.url, {
    scope: RESOURCE_SCOPE,
    audience: mcp.url,
    accessTokenTTL: 3600,
    accessTokenFormat: 'opaque',
  });
  ctx.body = {
    access_token: await token.save(),
    token_type: 'Bearer',
    expires_in: 3600,
    scope: RESOURCE_SCOPE,
  };
}

/** The IdP's token exchange: an ID token of its own for an ID-JAG for the MCP authorization server. */
async function tokenExchangeGrant(ctx: GrantContext): Promise<void> {
  const params = ctx.oidc.params;
  exchanges.push({ ...params, subject_token: undefined });
  const idToken = verifiedJwt(params.subject_token, idTokenKeys.publicKey);
  if (
    !idToken ||
    idToken.claims.iss !== idp.issuer ||
    idToken.claims.aud !== ctx.oidc.client.clientId ||
    params.subject_token_type !== 'urn:ietf:params:oauth:token-type:id_token' ||
    params.requested_token_type !== ID_JAG ||
    !params.audience ||
    !params.resource
  ) {
    return refuse(ctx, 'invalid_grant', 'The ID token or the exchange parameters are not valid');
  }
  const jag = signJwt(
    { typ: 'oauth-id-jag+jwt' },
    {
      iss: idp.issuer,
      sub: idToken.claims.sub,
      aud: params.audience,
      resource: params.resource,
      client_id: enterpriseClient.client_id,
      jti: randomUUID(),
      iat: now(),
      exp: now() + 300,
    },
    jagKeys.privateKey,
  );
  ctx.body = { access_token: jag, issued_token_type: ID_JAG, token_type: 'N_A', expires_in: 300 };
}

/** A client registered dynamically (RFC 7591) at an oidc-provider, as its administrator would. */
async function register(
  at: AuthorizationServer,
  metadata: Claims,
): Promise<{ client_id: string; client_secret: string }> {
  const response = await fetch(`${at.issuer}/reg`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [], response_types: [], ...metadata }),
  });
  const body = (await response.json()) as { client_id: string; client_secret: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body;
}

function workloadToken(claims: Claims = {}): string {
  return signJwt(
    { typ: 'JWT' },
    { iss: WORKLOAD_ISSUER, sub: 'ci-runner', aud: as.issuer, iat: now(), exp: now() + 600, ...claims },
    workloadKeys.privateKey,
  );
}

function idTokenFor(person: string): string {
  return signJwt(
    { typ: 'JWT' },
    { iss: idp.issuer, sub: person, aud: idpClient.client_id, iat: now(), exp: now() + 600 },
    idTokenKeys.privateKey,
  );
}

beforeAll(async () => {
  d = await startDaemon();
  const options = { resource: () => mcp.url, redirectUris: () => ['http://127.0.0.1/unused'] };
  as = await startAuthorizationServer(options);
  idp = await startAuthorizationServer(options);
  mcp = await startProtectedServer({
    issuer: () => as.issuer,
    requiredScopes: [RESOURCE_SCOPE],
    verifyAccessToken: tokenIssuedBy(as),
  });
  (as.provider as unknown as GrantProvider).registerGrantType(JWT_BEARER, jwtBearerGrant, [
    'assertion',
    'scope',
    'resource',
  ]);
  (idp.provider as unknown as GrantProvider).registerGrantType(TOKEN_EXCHANGE, tokenExchangeGrant, [
    'subject_token',
    'subject_token_type',
    'requested_token_type',
    'audience',
    'resource',
    'scope',
  ]);
  enterpriseClient = await register(as, {
    grant_types: [JWT_BEARER],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  idpClient = await register(idp, {
    grant_types: [TOKEN_EXCHANGE],
    token_endpoint_auth_method: 'client_secret_post',
  });
});

afterAll(async () => {
  await d?.close();
  await mcp?.close();
  await as?.close();
  await idp?.close();
});

async function putServer(id: string, auth: Record<string, unknown>) {
  const put = await d.api('PUT', `/api/mcp/servers/${id}`, {
    config: { transport: 'http', url: mcp.url, auth },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
  return put;
}

async function whoami(id: string): Promise<{ clientId: string; scopes: string[] }> {
  const call = await d.api('POST', `/api/mcp/servers/${id}/tools/whoami/call`, { parameters: {} });
  expect(call.status, JSON.stringify(call.body)).toBe(200);
  return JSON.parse(call.body.result.content[0].text);
}

async function trace(id: string): Promise<AuthTrace> {
  return (await d.api('GET', `/api/mcp/servers/${id}/auth/trace`)).body as AuthTrace;
}

describe('the JWT bearer grant (workload identity federation)', () => {
  it('presents the workload token, registering itself, with no person and no browser', async () => {
    const assertion = workloadToken();
    const put = await putServer('workload', { grant: 'jwt_bearer', assertion });
    expect(put.body.config.auth).toEqual({ grant: 'jwt_bearer', assertion: '********' });
    const connect = await d.api('POST', '/api/mcp/servers/workload/connect');
    expect(connect.status, JSON.stringify(connect.body)).toBe(200);
    expect(connect.body.auth).toMatchObject({ state: 'authorized', scopes: [RESOURCE_SCOPE] });
    expect(bearerGrants.at(-1)?.claims).toMatchObject({ iss: WORKLOAD_ISSUER, sub: 'ci-runner' });
    // The daemon registered a client for this grant itself; the server knows the token as that client's.
    expect((await whoami('workload')).clientId).toBe(bearerGrants.at(-1)?.clientId);
    const steps = (await trace('workload')).steps;
    const grant = steps.find((step) => step.kind === 'jwt-bearer');
    expect(grant).toMatchObject({ outcome: 'ok', title: 'JWT bearer token request' });
    expect(grant?.rule).toContain('RFC 7523');
    expect(grant?.http?.requestBody).toContain('assertion=********');
    expect(JSON.stringify(steps)).not.toContain(assertion);
    expect(JSON.stringify((await d.api('GET', '/api/mcp/servers')).body)).not.toContain(assertion);
  });

  it('says what is wrong with an expired workload token, and shows none of it', async () => {
    const assertion = workloadToken({ exp: now() - 60 });
    await putServer('expired-workload', { grant: 'jwt_bearer', assertion });
    const connect = await d.api('POST', '/api/mcp/servers/expired-workload/connect');
    expect(connect.status).toBe(502);
    expect(connect.body.code).toBe('authorization_failed');
    expect(connect.body.mcpError?.code).toBe('invalid_grant');
    expect(JSON.stringify(connect.body)).not.toContain(assertion);
    const failed = (await trace('expired-workload')).steps.find(
      (step) => step.kind === 'jwt-bearer' && step.outcome === 'failed',
    );
    expect(failed?.problem).toContain('auth.assertion');
  });
});

describe('enterprise-managed authorization (token exchange, SEP-990)', () => {
  it("exchanges the person's ID token at the IdP for an ID-JAG and presents it as the grant", async () => {
    const idToken = idTokenFor('alice@example.com');
    const put = await putServer('enterprise', {
      grant: 'token_exchange',
      clientId: enterpriseClient.client_id,
      clientSecret: enterpriseClient.client_secret,
      idpUrl: idp.issuer,
      idpClientId: idpClient.client_id,
      idpClientSecret: idpClient.client_secret,
      idToken,
    });
    expect(put.body.config.auth).toMatchObject({
      clientSecret: '********',
      idpClientSecret: '********',
      idToken: '********',
    });
    const connect = await d.api('POST', '/api/mcp/servers/enterprise/connect');
    expect(connect.status, JSON.stringify(connect.body)).toBe(200);
    expect(connect.body.auth).toMatchObject({ state: 'authorized', issuer: as.issuer });
    // The IdP was asked for a grant for this authorization server and this server.
    expect(exchanges.at(-1)).toMatchObject({ audience: as.issuer, resource: mcp.url });
    expect(bearerGrants.at(-1)).toMatchObject({
      clientId: enterpriseClient.client_id,
      claims: { sub: 'alice@example.com', iss: idp.issuer, resource: mcp.url },
    });
    expect((await whoami('enterprise')).clientId).toBe(enterpriseClient.client_id);
    const steps = (await trace('enterprise')).steps;
    const kinds = steps.map((step) => step.kind);
    expect(kinds.indexOf('token-exchange')).toBeGreaterThan(-1);
    expect(kinds.indexOf('jwt-bearer')).toBeGreaterThan(kinds.indexOf('token-exchange'));
    const exchange = steps.find((step) => step.kind === 'token-exchange');
    expect(exchange).toMatchObject({ outcome: 'ok', title: 'Token exchange at the IdP' });
    expect(exchange?.http?.url).toBe(`${idp.issuer}/token`);
    const shown = JSON.stringify(steps);
    for (const secret of [idToken, idpClient.client_secret, enterpriseClient.client_secret]) {
      expect(shown).not.toContain(secret);
    }
  });

  it('keeps the ID token a PUT sends back masked for the same IdP, and drops it for another', async () => {
    const idToken = idTokenFor('bob@example.com');
    const auth = {
      grant: 'token_exchange',
      clientId: enterpriseClient.client_id,
      clientSecret: enterpriseClient.client_secret,
      idpUrl: idp.issuer,
      idpClientId: idpClient.client_id,
      idToken,
    };
    const put = await putServer('kept', auth);
    const again = await d.api('PUT', '/api/mcp/servers/kept', { config: put.body.config });
    expect(again.status).toBe(200);
    const stored = async () =>
      JSON.parse(await readFile(join(d.dataDir, 'servers.json'), 'utf8')).mcpServers.kept.auth;
    expect((await stored()).idToken).toBe(idToken);
    const moved = {
      ...put.body.config,
      auth: { ...put.body.config.auth, idpUrl: 'https://other-idp.example' },
    };
    expect((await d.api('PUT', '/api/mcp/servers/kept', { config: moved })).status).toBe(200);
    expect((await stored()).idToken).toBeUndefined();
  });

  it('refuses assertion grants without what they need, naming each field', async () => {
    const bearer = await d.api('PUT', '/api/mcp/servers/bad', {
      config: { transport: 'http', url: mcp.url, auth: { grant: 'jwt_bearer' } },
    });
    expect(bearer.status).toBe(400);
    expect(bearer.body.error).toContain('auth.assertion');
    const exchange = await d.api('PUT', '/api/mcp/servers/bad', {
      config: { transport: 'http', url: mcp.url, auth: { grant: 'token_exchange' } },
    });
    expect(exchange.status).toBe(400);
    for (const field of ['auth.clientId', 'auth.idToken', 'auth.idpClientId', 'auth.idpUrl']) {
      expect(exchange.body.error).toContain(field);
    }
    const notJwt = await d.api('PUT', '/api/mcp/servers/bad', {
      config: { transport: 'http', url: mcp.url, auth: { grant: 'jwt_bearer', assertion: 'not a jwt' } },
    });
    expect(notJwt.status).toBe(400);
  });
});
