/**
 * The browser half of an OpenID Connect sign-in (SPEC part 5): the authorization-code flow with PKCE
 * (S256) for a public client, as RFC 9700 asks of a browser app. Every answer of the provider is checked
 * before it is used: it is another party's data.
 */

export interface ProviderMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  scopesSupported?: string[];
}

/** A sign-in under way: what the page keeps while the browser is at the provider. */
export interface PendingSignIn {
  issuer: string;
  clientId: string;
  redirectUri: string;
  state: string;
  codeVerifier: string;
  tokenEndpoint: string;
}

export interface IssuedToken {
  accessToken: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** When the provider gave one: it buys the next access token. A secret, like a password. */
  refreshToken?: string;
}

/** What renewing a token needs: where, as which client, and the refresh token to spend. */
export interface RefreshGrant {
  tokenEndpoint: string;
  clientId: string;
  refreshToken: string;
}

export class SignInError extends Error {
  override name = 'SignInError';
}

/** How long a token whose answer has no `expires_in` is kept: an hour, the usual lifetime. */
const DEFAULT_LIFETIME_S = 3600;
/** A token is renewed at most this long before it expires... */
const RENEW_LEAD_MAX_MS = 60_000;
/** ...and, for a short-lived one, once this share of the time it has left is gone. */
const RENEW_AT_SHARE = 0.75;

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

const randomString = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

function httpUrl(value: unknown, what: string): string {
  if (typeof value === 'string') {
    try {
      const url = new URL(value);
      if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
    } catch {
      // Reported below.
    }
  }
  throw new SignInError(`The provider's ${what} is not an http(s) URL`);
}

async function readJson(response: Response, what: string): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new SignInError(`The provider's ${what} is not JSON (HTTP ${response.status})`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SignInError(`The provider's ${what} is not a JSON object`);
  }
  return body as Record<string, unknown>;
}

/** Reads `<issuer>/.well-known/openid-configuration` and checks it names this issuer and allows S256. */
export async function discover(issuer: string): Promise<ProviderMetadata> {
  let response: Response;
  try {
    response = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  } catch {
    throw new SignInError(`The sign-in provider ${issuer} cannot be reached`);
  }
  if (!response.ok) {
    throw new SignInError(`The sign-in provider ${issuer} answered ${response.status} to its discovery`);
  }
  const body = await readJson(response, 'discovery document');
  if (body.issuer !== issuer) {
    throw new SignInError(`The discovery document names another issuer than ${issuer}`);
  }
  const methods = body.code_challenge_methods_supported;
  if (Array.isArray(methods) && !methods.includes('S256')) {
    throw new SignInError('The sign-in provider does not support PKCE with S256');
  }
  const scopes = body.scopes_supported;
  return {
    issuer,
    authorizationEndpoint: httpUrl(body.authorization_endpoint, 'authorization endpoint'),
    tokenEndpoint: httpUrl(body.token_endpoint, 'token endpoint'),
    ...(Array.isArray(scopes) && { scopesSupported: scopes.filter((s) => typeof s === 'string') }),
  };
}

/**
 * The authorization URL to send the browser to, and what must be kept until it comes back. `openid`
 * always; `profile` and `email` when the provider has them, so the backend may name the user; and
 * `offline_access` when it has that, for a refresh token, with `prompt=consent` as OpenID Connect Core
 * (section 11) asks of a request for offline access.
 */
export async function startSignIn(
  metadata: ProviderMetadata,
  clientId: string,
  redirectUri: string,
): Promise<{ url: string; pending: PendingSignIn }> {
  const codeVerifier = randomString();
  const state = randomString();
  const supported = (scope: string): boolean => metadata.scopesSupported?.includes(scope) ?? false;
  const scope = ['openid', ...['profile', 'email', 'offline_access'].filter(supported)];
  const url = new URL(metadata.authorizationEndpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: scope.join(' '),
    state,
    code_challenge: await s256(codeVerifier),
    code_challenge_method: 'S256',
    ...(supported('offline_access') && { prompt: 'consent' }),
  }).toString();
  return {
    url: url.href,
    pending: {
      issuer: metadata.issuer,
      clientId,
      redirectUri,
      state,
      codeVerifier,
      tokenEndpoint: metadata.tokenEndpoint,
    },
  };
}

/**
 * The provider's redirect back: checks `state` (and `iss`, RFC 9207, when sent) against the pending
 * sign-in and trades the code for the access token.
 */
export async function finishSignIn(
  params: URLSearchParams,
  pending: PendingSignIn,
  now = Date.now(),
): Promise<IssuedToken> {
  if (params.get('state') !== pending.state) {
    throw new SignInError('The sign-in came back for another request (state does not match): try again');
  }
  const iss = params.get('iss');
  if (iss !== null && iss !== pending.issuer) {
    throw new SignInError('The sign-in came back from another provider than the one configured');
  }
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    throw new SignInError(
      `The provider refused the sign-in: ${error}${description ? ` (${description})` : ''}`,
    );
  }
  const code = params.get('code');
  if (!code) throw new SignInError('The sign-in came back without a code');
  return requestToken(
    pending.tokenEndpoint,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: pending.redirectUri,
      client_id: pending.clientId,
      code_verifier: pending.codeVerifier,
    },
    now,
  );
}

/**
 * Spends the refresh token for a new access token (RFC 6749 section 6; a public client names itself
 * with `client_id`). A provider that rotates refresh tokens sends a new one, to keep instead: the old
 * one is spent. One that does not keeps the old one good.
 */
export async function renewToken(grant: RefreshGrant, now = Date.now()): Promise<IssuedToken> {
  const issued = await requestToken(
    grant.tokenEndpoint,
    { grant_type: 'refresh_token', refresh_token: grant.refreshToken, client_id: grant.clientId },
    now,
  );
  return { ...issued, refreshToken: issued.refreshToken ?? grant.refreshToken };
}

/**
 * When to renew a token that expires at `expiresAt`, in milliseconds from `now`: a minute before it
 * expires, or sooner for a short-lived token (once three quarters of the time it has left are gone),
 * so the renewal is done before any call is made with a token the daemon would refuse.
 */
export function renewDelay(expiresAt: number, now = Date.now()): number {
  const left = Math.max(0, expiresAt - now);
  return Math.round(left - Math.min(RENEW_LEAD_MAX_MS, left * (1 - RENEW_AT_SHARE)));
}

/** A token as an HTTP header may carry it: printable ASCII without spaces. */
const usable = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && !/[^\x21-\x7e]/.test(value);

/** One token request; the answer is checked before any of it is kept. */
async function requestToken(
  tokenEndpoint: string,
  params: Record<string, string>,
  now: number,
): Promise<IssuedToken> {
  let response: Response;
  try {
    response = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams(params),
    });
  } catch {
    throw new SignInError("The provider's token endpoint cannot be reached");
  }
  const body = await readJson(response, 'token answer');
  if (!response.ok) {
    const reason = typeof body.error === 'string' ? body.error.slice(0, 100) : `HTTP ${response.status}`;
    throw new SignInError(`The provider refused to issue a token: ${reason}`);
  }
  const accessToken = body.access_token;
  if (!usable(accessToken)) throw new SignInError('The provider answered without a usable access token');
  const refreshToken = body.refresh_token;
  if (refreshToken !== undefined && !usable(refreshToken)) {
    throw new SignInError('The provider answered with a refresh token that is not usable');
  }
  const lifetime =
    typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : DEFAULT_LIFETIME_S;
  return { accessToken, expiresAt: now + lifetime * 1000, ...(refreshToken && { refreshToken }) };
}
