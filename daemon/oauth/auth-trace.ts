/**
 * The auth debugger's record (issue 12): every HTTP exchange of a server's OAuth flows, as the SDK made
 * it through the fetch given here, plus the steps that are no request (the authorization URL, the
 * callback, the outcome). Each step says which rule it follows and, when it fails, what to do. In guided
 * mode every request to the authorization side waits until the person goes on.
 *
 * All of it is hostile input and secret-laden: headers, form fields and JSON fields that carry
 * credentials are masked, every secret the flow has seen is redacted, and bodies are cut short.
 */
import { randomUUID } from 'node:crypto';
import type { AuthExchange, AuthStep, AuthStepKind, AuthTrace, AuthTraceMode } from '../../shared/oauth.ts';
import { redact } from '../mcp/redact.ts';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Steps kept per server: the oldest go first. */
export const MAX_AUTH_STEPS = 200;
/** The most of a body a step keeps. */
export const MAX_AUTH_BODY = 16 * 1024;
/** The longest an answer of an authorization server may take. */
const AUTH_REQUEST_TIMEOUT_MS = 30_000;

const MASK = '********';
/** Request headers that carry credentials: shown as their scheme and a mask. */
const SECRET_HEADERS = new Set(['authorization', 'dpop', 'cookie', 'proxy-authorization']);
/** Response headers worth showing; the rest say nothing about OAuth. */
const SHOWN_RESPONSE_HEADERS = [
  'content-type',
  'www-authenticate',
  'location',
  'cache-control',
  'dpop-nonce',
];
/** Form and JSON fields that carry credentials. */
const SECRET_FIELDS = new Set([
  'code',
  'code_verifier',
  'client_secret',
  'refresh_token',
  'access_token',
  'id_token',
  'client_assertion',
  'assertion',
  'subject_token',
  'actor_token',
  'registration_access_token',
  'token',
]);

const RULES: Record<AuthStepKind, string> = {
  challenge:
    'MCP Authorization: a protected server answers 401 with WWW-Authenticate naming its resource_metadata (RFC 9728 §5.1); a 403 with error="insufficient_scope" asks for more scope (RFC 6750 §3.1), and the client steps up a bounded number of times.',
  'resource-metadata':
    "RFC 9728: the client reads the server's protected-resource metadata (from the challenge, else the path-based well-known URL, then the root one). It must name authorization_servers, and its resource must be the server's URL.",
  'server-metadata':
    'RFC 8414 and OpenID Connect Discovery: the client tries oauth-authorization-server and openid-configuration, with the issuer path inserted and appended. The issuer in the answer must be the one asked, and code_challenge_methods_supported must include S256.',
  registration:
    'RFC 7591: without a pre-registered client id or a client metadata document URL the client registers itself, giving its loopback redirect URI.',
  authorization:
    'OAuth 2.1 §4.1 with PKCE (RFC 7636, S256) and the resource parameter (RFC 8707): the person signs in in a browser; state binds the answer to this flow.',
  callback:
    "RFC 8252 §7.3: the browser comes back to the daemon's loopback callback; state must name a waiting flow, and iss must be the issuer asked (RFC 9207).",
  token:
    'OAuth 2.1 §4.1.3: the code is redeemed with its code_verifier and the same resource and redirect_uri, the client authenticating as it registered.',
  refresh: 'OAuth 2.1 §4.3: the refresh token buys a new access token without the person.',
  'client-credentials':
    'OAuth 2.1 §4.2: a confidential client gets a token with its own credentials, no person.',
  'token-exchange':
    "RFC 8693 and SEP-990 (enterprise-managed authorization): the person's ID token is exchanged at the IdP for an identity assertion grant (requested_token_type id-jag) naming the MCP server's authorization server as audience and the server as resource.",
  'jwt-bearer':
    'RFC 7523 §2.1: a JWT is presented as the grant (grant_type jwt-bearer, assertion): an identity assertion grant from the IdP (SEP-990) or a workload identity token (SEP-1933). It must be issued for this authorization server and unexpired; a refusal is not retried with another grant.',
  other: 'A request the OAuth flow made.',
  outcome: 'How the flow ended.',
};

const TITLES: Record<AuthStepKind, string> = {
  challenge: 'The server asks for authorization',
  'resource-metadata': 'Protected-resource metadata',
  'server-metadata': 'Authorization-server metadata',
  registration: 'Dynamic client registration',
  authorization: 'Authorization URL',
  callback: 'Callback',
  token: 'Token request',
  refresh: 'Token refresh',
  'client-credentials': 'Client-credentials token request',
  'token-exchange': 'Token exchange at the IdP',
  'jwt-bearer': 'JWT bearer token request',
  other: 'Request',
  outcome: 'Outcome',
};

/** The token requests' kinds by their grant_type. */
const GRANT_KINDS: Record<string, AuthStepKind> = {
  authorization_code: 'token',
  refresh_token: 'refresh',
  client_credentials: 'client-credentials',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'token-exchange',
  'urn:ietf:params:oauth:grant-type:jwt-bearer': 'jwt-bearer',
};

/** The grant_type of a form body, decoded (the URN grants come percent-encoded). */
function grantTypeOf(body: string): string | undefined {
  const raw = /(?:^|&)grant_type=([^&]*)/.exec(body)?.[1];
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/**
 * What a request of the flow is, by its URL and body; `mcp` for the MCP server's own requests (its
 * endpoint, and on SSE its message endpoint on the same origin), which are no OAuth step.
 */
export function classifyRequest(
  url: URL,
  method: string,
  body: string | undefined,
  serverUrl: string,
): AuthStepKind | 'mcp' {
  const path = url.pathname;
  if (path.includes('/.well-known/oauth-protected-resource')) return 'resource-metadata';
  if (
    path.includes('/.well-known/oauth-authorization-server') ||
    path.includes('/.well-known/openid-configuration')
  ) {
    return 'server-metadata';
  }
  const server = new URL(serverUrl);
  if (url.origin === server.origin && path === server.pathname) return 'mcp';
  if (method === 'POST' && body) {
    const grant = grantTypeOf(body);
    if (grant) return GRANT_KINDS[grant] ?? 'token';
    const json = body.trimStart().startsWith('{');
    if (json && body.includes('"redirect_uris"') && !body.includes('"jsonrpc"')) return 'registration';
  }
  return url.origin === server.origin ? 'mcp' : 'other';
}

/** A header value with its credential masked: `Bearer ********`. */
function maskHeader(name: string, value: string): string {
  if (!SECRET_HEADERS.has(name.toLowerCase())) return value;
  const scheme = /^([A-Za-z][\w.-]*)\s/.exec(value)?.[1];
  return scheme ? `${scheme} ${MASK}` : MASK;
}

/** A form body (`a=b&c=d`) or JSON text with its credential fields masked. */
export function maskBody(text: string): string {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.stringify(
        JSON.parse(text),
        (key, value: unknown) => (SECRET_FIELDS.has(key) && typeof value === 'string' ? MASK : value),
        2,
      );
    } catch {
      return text;
    }
  }
  if (/^[\w.~%+-]+=/.test(trimmed)) {
    const form = new URLSearchParams(text);
    for (const key of [...form.keys()]) if (SECRET_FIELDS.has(key)) form.set(key, MASK);
    return form.toString();
  }
  return text;
}

function cut(text: string): string {
  return text.length > MAX_AUTH_BODY ? `${text.slice(0, MAX_AUTH_BODY)}… (${text.length} characters)` : text;
}

/** The first MAX_AUTH_BODY characters of a response's body, read from a copy; the caller reads the original. */
async function peekBody(response: Response): Promise<string | undefined> {
  if (!response.body) return undefined;
  const reader = response.clone().body?.getReader();
  if (!reader) return undefined;
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (text.length > MAX_AUTH_BODY) {
        text = `${text.slice(0, MAX_AUTH_BODY)}… (cut at ${MAX_AUTH_BODY} characters)`;
        break;
      }
    }
  } catch {
    // The body broke off: what arrived is what the step shows.
  } finally {
    void reader.cancel().catch(() => {});
  }
  return text;
}

function bodyText(body: RequestInit['body']): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  return undefined;
}

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
  return headers;
}

/** What a failed exchange means, and how to fix it; undefined when the status says it plainly. */
function problemOf(kind: AuthStepKind, status: number, body: string | undefined): string | undefined {
  const code = body ? /"error"\s*:\s*"([^"]{1,64})"/.exec(body)?.[1] : undefined;
  switch (kind) {
    case 'resource-metadata':
      return status === 404
        ? 'No metadata here: the client tries the next well-known location. The server should serve it at the path-based URL or the root (RFC 9728 §3).'
        : `The metadata request failed (${status}).`;
    case 'server-metadata':
      return status === 404
        ? 'No metadata here: the client tries the next well-known location (OAuth, then OpenID, path inserted then appended).'
        : `The metadata request failed (${status}).`;
    case 'registration':
      return 'The authorization server refused dynamic registration: register a client there and set auth.clientId (and auth.clientSecret) in the server config, or give a client metadata document URL.';
    case 'token-exchange':
      if (code === 'invalid_grant') {
        return 'invalid_grant: the IdP did not take the ID token (expired, or issued for another client). Put a fresh one in auth.idToken.';
      }
      if (code === 'invalid_client') {
        return 'invalid_client: the IdP did not know the client. Check auth.idpClientId and auth.idpClientSecret.';
      }
      return `The token exchange failed (${status}${code ? `, ${code}` : ''}).`;
    case 'jwt-bearer':
      if (code === 'invalid_grant') {
        return 'invalid_grant: the assertion is expired, malformed, or issued for another authorization server. Give a fresh one (auth.assertion), or for token_exchange a fresh auth.idToken.';
      }
      return tokenRefusal(status, code);
    case 'token':
    case 'refresh':
    case 'client-credentials':
      return tokenRefusal(status, code);
    default:
      return undefined;
  }
}

/** What a token endpoint's refusal means, for any grant. */
function tokenRefusal(status: number, code: string | undefined): string {
  if (code === 'invalid_grant') {
    return 'invalid_grant: the code or refresh token is used, expired or was issued for another redirect URI, verifier or resource. Sign in again.';
  }
  if (code === 'invalid_client') {
    return 'invalid_client: the client could not authenticate. Check auth.clientId, auth.clientSecret or auth.privateKey, and the token endpoint auth method the client registered with.';
  }
  if (code === 'invalid_scope')
    return 'invalid_scope: ask for scopes the authorization server offers (auth.scopes).';
  if (code === 'unauthorized_client') return 'unauthorized_client: this client may not use this grant type.';
  return `The token request failed (${status}${code ? `, ${code}` : ''}).`;
}

/** Whether a failed status is one the client answers by trying elsewhere. */
function isFallback(kind: AuthStepKind, status: number): boolean {
  return (kind === 'resource-metadata' || kind === 'server-metadata') && status >= 400 && status < 500;
}

/** What a challenge says: its scheme parameters, in words. */
function challengeDetail(status: number, header: string | null): { detail: string; problem?: string } {
  if (!header) {
    return {
      detail: `${status} without WWW-Authenticate.`,
      problem:
        'The server names no resource_metadata: the client falls back to the well-known locations. A server should send WWW-Authenticate: Bearer resource_metadata="…" (RFC 9728 §5.1).',
    };
  }
  const scope = /scope="([^"]*)"/.exec(header)?.[1];
  const error = /error="([^"]*)"/.exec(header)?.[1];
  const metadata = /resource_metadata="([^"]*)"/.exec(header)?.[1];
  const parts = [
    metadata
      ? `resource_metadata ${metadata}`
      : 'no resource_metadata (the client tries the well-known URLs)',
    scope ? `scope "${scope}"` : undefined,
    error ? `error ${error}` : undefined,
  ].filter(Boolean);
  return { detail: parts.join('; ') };
}

export class ServerAuthTrace {
  mode: AuthTraceMode = 'quick';
  private steps: AuthStep[] = [];
  private seq = 0;
  private held?: { step: AuthStep; release: () => void };
  /**
   * Grows with every change, so a view that reaches the panel late (an HTTP answer behind the live
   * channel's later messages) is known as older.
   */
  private version = 0;
  /** This record's own id: versions compare only within one daemon run. */
  private readonly epoch = randomUUID();

  constructor(
    readonly serverId: string,
    /** Every secret the server's flows have seen, longest first. */
    private readonly secrets: () => string[],
    private readonly onChange: (trace: AuthTrace) => void,
  ) {}

  view(): AuthTrace {
    return {
      serverId: this.serverId,
      epoch: this.epoch,
      version: this.version,
      mode: this.mode,
      ...(this.held && { waiting: this.held.step.seq }),
      steps: this.steps.map((step) => this.masked(step)),
    };
  }

  /** A new flow: guided ones hold each request; a flow held before goes on. */
  begin(mode: AuthTraceMode): void {
    this.mode = mode;
    this.next();
    this.changed();
  }

  /** Lets the held request go; false when none is held. */
  next(): boolean {
    const held = this.held;
    if (!held) return false;
    this.held = undefined;
    held.step.outcome = 'pending';
    held.release();
    this.changed();
    return true;
  }

  clear(): void {
    this.steps = [];
    this.mode = 'quick';
    this.next();
    this.changed();
  }

  /** A step that is no request: the authorization URL, the callback, the outcome. */
  note(kind: AuthStepKind, outcome: AuthStep['outcome'], detail: string, problem?: string): void {
    const step = this.add(kind);
    step.outcome = outcome;
    step.detail = detail;
    if (problem) step.problem = problem;
    this.changed();
  }

  /**
   * The flow failed where the daemon met it (a connection or a call): a request still out is marked
   * unanswered, and the outcome says what is wrong.
   */
  fail(problem: string): void {
    for (const step of this.steps) {
      if (step.outcome !== 'pending') continue;
      step.outcome = 'failed';
      step.problem ??= 'No answer came before the flow ended.';
    }
    this.note('outcome', 'failed', 'The flow stopped.', problem);
  }

  /**
   * A fetch that records the flow's requests. Requests to the MCP server itself pass straight through
   * and are recorded only when refused (the challenge); every other one is an OAuth request: it follows
   * no redirect (a hostile server cannot send the client elsewhere), is bounded in time and, in guided
   * mode, waits for the person.
   */
  fetch(serverUrl: string, base: Fetch = fetch): Fetch {
    return async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      const method = (init?.method ?? 'GET').toUpperCase();
      const body = bodyText(init?.body);
      const kind = classifyRequest(url, method, body, serverUrl);
      if (kind === 'mcp') {
        const response = await base(input, init);
        if (
          response.status === 401 ||
          (response.status === 403 && response.headers.has('www-authenticate'))
        ) {
          this.challenge(method, url, init, response);
        }
        return response;
      }
      const step = this.add(kind);
      const exchange: AuthExchange = { method, url: url.href, requestHeaders: headersOf(init) };
      if (body !== undefined) exchange.requestBody = cut(body);
      step.http = exchange;
      if (this.mode === 'guided') await this.hold(step);
      step.outcome = 'pending';
      this.changed();
      const started = performance.now();
      try {
        const response = await base(input, {
          ...init,
          redirect: 'error',
          signal: init?.signal
            ? AbortSignal.any([init.signal, AbortSignal.timeout(AUTH_REQUEST_TIMEOUT_MS)])
            : AbortSignal.timeout(AUTH_REQUEST_TIMEOUT_MS),
        });
        const text = await peekBody(response);
        step.ms = Math.round(performance.now() - started);
        exchange.status = response.status;
        exchange.responseHeaders = shownHeaders(response.headers);
        if (text !== undefined) exchange.responseBody = text;
        if (response.ok) {
          step.outcome = 'ok';
        } else {
          step.outcome = isFallback(kind, response.status) ? 'fallback' : 'failed';
          const problem = problemOf(kind, response.status, text);
          if (problem) step.problem = problem;
        }
        this.changed();
        return response;
      } catch (error) {
        step.ms = Math.round(performance.now() - started);
        step.outcome = 'failed';
        exchange.error = String((error as Error).message ?? error);
        step.problem = `No answer from ${url.origin}: ${exchange.error}. Check that the address is right and reachable from this machine; redirects are not followed.`;
        this.changed();
        throw error;
      }
    };
  }

  private challenge(method: string, url: URL, init: RequestInit | undefined, response: Response): void {
    const step = this.add('challenge');
    const header = response.headers.get('www-authenticate');
    const { detail, problem } = challengeDetail(response.status, header);
    step.outcome = 'ok';
    step.detail = detail;
    if (problem) step.problem = problem;
    step.http = {
      method,
      url: url.href,
      requestHeaders: headersOf(init),
      status: response.status,
      responseHeaders: shownHeaders(response.headers),
    };
    this.changed();
  }

  private hold(step: AuthStep): Promise<void> {
    // One request is held at a time; one still held (a flow the person left) goes on.
    this.next();
    step.outcome = 'waiting';
    return new Promise<void>((release) => {
      this.held = { step, release };
      this.changed();
    });
  }

  private add(kind: AuthStepKind): AuthStep {
    const step: AuthStep = {
      seq: ++this.seq,
      kind,
      title: TITLES[kind],
      at: new Date().toISOString(),
      outcome: 'pending',
      rule: RULES[kind],
    };
    this.steps.push(step);
    if (this.steps.length > MAX_AUTH_STEPS) this.steps.splice(0, this.steps.length - MAX_AUTH_STEPS);
    return step;
  }

  /** A step as it may leave the daemon: credentials masked, every known secret redacted. */
  private masked(step: AuthStep): AuthStep {
    const secrets = this.secrets();
    const say = (text: string) => redact(text, secrets);
    const copy: AuthStep = { ...step };
    if (step.detail) copy.detail = say(step.detail);
    if (step.problem) copy.problem = say(step.problem);
    const http = step.http;
    if (http) {
      copy.http = {
        ...http,
        url: say(http.url),
        requestHeaders: Object.fromEntries(
          Object.entries(http.requestHeaders).map(([name, value]) => [name, say(maskHeader(name, value))]),
        ),
        ...(http.requestBody !== undefined && { requestBody: say(maskBody(http.requestBody)) }),
        ...(http.responseHeaders && {
          responseHeaders: Object.fromEntries(
            Object.entries(http.responseHeaders).map(([name, value]) => [name, say(value)]),
          ),
        }),
        ...(http.responseBody !== undefined && { responseBody: say(maskBody(http.responseBody)) }),
        ...(http.error !== undefined && { error: say(http.error) }),
      };
    }
    return copy;
  }

  private changed(): void {
    this.version++;
    this.onChange(this.view());
  }
}

function shownHeaders(headers: Headers): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const name of SHOWN_RESPONSE_HEADERS) {
    const value = headers.get(name);
    if (value !== null) shown[name] = value;
  }
  return shown;
}
