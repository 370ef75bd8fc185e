/**
 * OAuth for remote servers (issue 12): one provider per server with `auth` settings, the flows waiting
 * for a person (bound to the callback by `state`), and what a failure of the flow means in the daemon's
 * words. The SDK runs the protocol; every byte of the servers' answers reaches the person only through
 * the messages written here, redacted of every secret the flow has seen.
 */
import type * as Client from '@modelcontextprotocol/client';
import type { FetchLike, OAuthClientProvider } from '@modelcontextprotocol/client';
import type { AuthTrace, AuthTraceMode, ServerAuthInfo } from '../../shared/oauth.ts';
import type { RemoteServerConfig, ServerConfig } from '../../shared/servers.ts';
import {
  AuthorizationFailedError,
  AuthorizationRequiredError,
  DaemonError,
  type UpstreamError,
} from '../errors.ts';
import { redact } from '../mcp/redact.ts';
import { describeComplaint } from '../mcp/result-problem.ts';
import { ServerAuthTrace } from './auth-trace.ts';
import { GrantStore, type StoredTokens } from './grant-store.ts';
import { DaemonOAuthProvider } from './provider.ts';
import { sseStepUpFetch } from './sse-step-up.ts';

type Sdk = typeof Client;
let sdk: Sdk | undefined;
async function loadSdk(): Promise<Sdk> {
  sdk ??= await import('@modelcontextprotocol/client');
  return sdk;
}

/** How long a person has to finish signing in before the callback's `state` is refused. */
export const PENDING_FLOW_MS = 10 * 60_000;
interface PendingFlow {
  serverId: string;
  provider: DaemonOAuthProvider;
  verifier: string;
  expiresAt: number;
}

/** What the callback route tells the person, and the server it was for. */
export interface CallbackOutcome {
  ok: boolean;
  title: string;
  detail: string;
  serverId?: string;
}

/** What a server connection asks of OAuth (ConnectionDeps.oauth). */
export interface ConnectionOAuth {
  /** A connection attempt begins: a failure from here on is this attempt's. */
  beginAttempt(serverId: string): void;
  /** The provider for a remote server with `auth` settings; undefined for any other. */
  providerFor(serverId: string, config: ServerConfig): OAuthClientProvider | undefined;
  /**
   * The fetch of the transport of a server with `auth` settings (undefined for any other): its OAuth
   * requests and the server's refusals reach the auth debugger.
   */
  fetchFor(serverId: string, config: ServerConfig): typeof fetch | undefined;
  /** An OAuth failure in the daemon's words; undefined when the failure is not OAuth's. */
  explain(serverId: string, error: unknown): UpstreamError | undefined;
  /** The same for a failed connection or call, which also ends the auth debugger's record of the flow. */
  failed(serverId: string, error: unknown): UpstreamError | undefined;
  /** What the server record says of the grant. */
  info(serverId: string, config: ServerConfig): ServerAuthInfo | undefined;
  /** Every secret of the server's flows so far: redacted from every error and log line. */
  secrets(serverId: string): string[];
  /**
   * A connection's own list of secrets to redact: every secret the server's flows see from now on is
   * added to it (longest first), so its errors and log entries are redacted of them too.
   */
  shareSecrets(serverId: string, sink: string[]): void;
}

export class OAuthManager implements ConnectionOAuth {
  readonly store: GrantStore;
  private readonly providers = new Map<string, DaemonOAuthProvider>();
  private readonly pending = new Map<string, PendingFlow>();
  private readonly secretsByServer = new Map<string, Set<string>>();
  private readonly sinks = new Map<string, string[]>();
  private readonly traces = new Map<string, ServerAuthTrace>();
  private baseUrl?: string;

  constructor(
    dataDir: string,
    private readonly onChange: (serverId: string) => void = () => {},
    /** A server's auth debugger record changed (a step began, ended or waits). */
    private readonly onTrace: (trace: AuthTrace) => void = () => {},
  ) {
    this.store = new GrantStore(dataDir);
  }

  /** The daemon's own URL once it listens: the callback is `<baseUrl>/oauth/callback`. */
  setBaseUrl(url: string): void {
    this.baseUrl = url.replace(/\/$/, '');
  }

  callbackUrl(): string {
    if (!this.baseUrl) throw new Error('The daemon is not listening yet');
    return `${this.baseUrl}/oauth/callback`;
  }

  /** A connection attempt begins: a failure from here on is this attempt's. */
  beginAttempt(serverId: string): void {
    const provider = this.providers.get(serverId);
    if (provider) provider.flowRunning = false;
  }

  providerFor(serverId: string, config: ServerConfig): DaemonOAuthProvider | undefined {
    if (config.transport !== 'http' && config.transport !== 'sse') return undefined;
    if (!config.auth) return undefined;
    // The SDK's error classes, for `explain`: the connection that asks has loaded the SDK already.
    void loadSdk();
    const binding = bindingOf(config) ?? '';
    const existing = this.providers.get(serverId);
    if (existing?.binding === binding) return existing;
    const provider = new DaemonOAuthProvider(
      serverId,
      serverUrlOf(config),
      config.auth,
      binding,
      this.store,
      {
        callbackUrl: () => this.callbackUrl(),
        onAuthorizationUrl: (from, url, state, verifier) => this.awaitCallback(from, url, state, verifier),
        onSecret: (value) => this.addSecret(serverId, value),
        fetch: () => this.trace(serverId).fetch(serverUrlOf(config)) as typeof fetch,
      },
    );
    this.providers.set(serverId, provider);
    // Load the grant now, so the record can say what it holds before the first connection.
    void this.store.load(serverId).then(
      () => this.onChange(serverId),
      () => {},
    );
    return provider;
  }

  /** Reads a kept grant before the first connection, so the server's record says what it holds. */
  async preload(serverId: string, config: ServerConfig | undefined): Promise<void> {
    if (config?.transport !== 'http' && config?.transport !== 'sse') return;
    if (config.auth) await this.store.load(serverId);
  }

  /** The auth debugger's record of a server's flows. */
  trace(serverId: string): ServerAuthTrace {
    let trace = this.traces.get(serverId);
    if (!trace) {
      trace = new ServerAuthTrace(serverId, () => this.secrets(serverId), this.onTrace);
      this.traces.set(serverId, trace);
    }
    return trace;
  }

  fetchFor(serverId: string, config: ServerConfig): typeof fetch | undefined {
    if (config.transport !== 'http' && config.transport !== 'sse') return undefined;
    if (!config.auth) return undefined;
    const traced = this.trace(serverId).fetch(serverUrlOf(config)) as typeof fetch;
    const noting: typeof fetch = async (input, init) => {
      const response = await traced(input, init);
      // A step-up (SEP-2350) follows: the provider must know the scope a registration has to cover.
      if (response.status === 403) {
        const { extractWWWAuthenticateParams } = await loadSdk();
        const { error, scope } = extractWWWAuthenticateParams(response);
        if (error === 'insufficient_scope' && scope) this.providers.get(serverId)?.noteScopeChallenge(scope);
      }
      return response;
    };
    if (config.transport === 'http') return noting;
    // The SDK's SSE transport does not step up by itself: the daemon does it for its messages.
    let stepping: FetchLike | undefined;
    return async (input, init) => {
      stepping ??= sseStepUpFetch(
        await loadSdk(),
        () => this.providers.get(serverId),
        serverUrlOf(config),
        noting,
      );
      return stepping(input as string | URL, init);
    };
  }

  shareSecrets(serverId: string, sink: string[]): void {
    this.sinks.set(serverId, sink);
    for (const value of this.secretsByServer.get(serverId) ?? []) addSorted(sink, value);
  }

  secrets(serverId: string): string[] {
    return [...(this.secretsByServer.get(serverId) ?? [])].sort((a, b) => b.length - a.length);
  }

  info(serverId: string, config: ServerConfig): ServerAuthInfo | undefined {
    if (config.transport === 'stdio' || config.transport === 'websocket' || !config.auth) return undefined;
    const provider = this.providers.get(serverId);
    const grant = this.store.peek(serverId);
    const binding = bindingOf(config);
    const tokens = grant && grant.boundTo === binding ? grant.tokens : undefined;
    if (provider?.authorizationUrl) {
      return { state: 'required', authorizationUrl: provider.authorizationUrl.href };
    }
    if (!tokens) return { state: 'none' };
    return authorizedInfo(tokens, grant?.obtainedAt);
  }

  explain(serverId: string, error: unknown): UpstreamError | undefined {
    const provider = this.providers.get(serverId);
    if (!provider || !sdk) return undefined;
    const secrets = this.secrets(serverId);
    const say = (text: string) => redact(text, secrets);
    const { UnauthorizedError, OAuthError, IssuerMismatchError, AuthorizationServerMismatchError } = sdk;
    const { InsecureTokenEndpointError, InsufficientScopeError, SdkError, SdkErrorCode } = sdk;
    if (provider.authorizationUrl && error instanceof UnauthorizedError) {
      return new AuthorizationRequiredError(
        'The server asks you to sign in: open the authorization URL in a browser; the connection proceeds once you have.',
        provider.authorizationUrl.href,
      );
    }
    if (error instanceof IssuerMismatchError) {
      return new AuthorizationFailedError(
        say(
          error.kind === 'metadata'
            ? `The authorization server's metadata names another issuer (${String(error.received)}) than the one it was fetched for (${String(error.expected)}): it is not used.`
            : error.received === undefined
              ? `The authorization answer carried no iss although ${String(error.expected)} says it sends one (RFC 9207): the code was not redeemed.`
              : `The authorization answer came from another issuer (${error.received}) than the one asked (${String(error.expected)}): the code was not redeemed.`,
        ),
        'ISSUER_MISMATCH',
      );
    }
    if (error instanceof AuthorizationServerMismatchError) {
      return new AuthorizationFailedError(
        say(
          `The authorization server changed during the flow (from ${error.recordedIssuer} to ${error.currentIssuer}): sign in again.`,
        ),
        'ISSUER_MISMATCH',
      );
    }
    if (error instanceof InsecureTokenEndpointError) {
      return new AuthorizationFailedError(
        say(
          `The token endpoint ${error.tokenEndpoint} is neither https nor loopback: no credential is sent to it.`,
        ),
        'INSECURE_ENDPOINT',
      );
    }
    if (error instanceof InsufficientScopeError) {
      return new AuthorizationFailedError(
        say(
          `The server needs more scope${error.requiredScope ? ` (${error.requiredScope})` : ''} than the grant holds.`,
        ),
        'INSUFFICIENT_SCOPE',
      );
    }
    if (
      error instanceof SdkError &&
      error.code === SdkErrorCode.ClientHttpForbidden &&
      error.message.includes('insufficient_scope')
    ) {
      return new AuthorizationFailedError(
        'The server still answers insufficient_scope after the grant was stepped up to the scope it names: the call is refused, and signing in again would not change that.',
        'INSUFFICIENT_SCOPE',
      );
    }
    if (error instanceof OAuthError) {
      return new AuthorizationFailedError(
        say(`The authorization server refused: ${error.code}${error.message ? `: ${error.message}` : ''}`),
        error.code,
      );
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.ClientHttpAuthentication) {
      return new AuthorizationFailedError(
        'The server refused the token even after it was renewed: forget the grant and sign in again.',
        'TOKEN_REFUSED',
      );
    }
    if (error instanceof UnauthorizedError) {
      return new AuthorizationFailedError(
        say(`The server refused the request: ${error.message}`),
        'UNAUTHORIZED',
      );
    }
    if (provider.flowRunning && error instanceof Error) {
      provider.flowRunning = false;
      // A document that breaks OAuth's schema (metadata, a registration) comes as the SDK's list of issues.
      return new AuthorizationFailedError(
        say(`The OAuth flow failed: ${describeComplaint(error.message)}`),
        'AUTH_FLOW_FAILED',
      );
    }
    return undefined;
  }

  failed(serverId: string, error: unknown): UpstreamError | undefined {
    const explained = this.explain(serverId, error);
    if (explained instanceof AuthorizationFailedError) this.trace(serverId).fail(explained.message);
    return explained;
  }

  /**
   * A fresh authorization for a server: its authorization URL, or none when no person is needed. The
   * auth debugger records it; in guided mode each of its requests waits for `trace(id).next()`.
   */
  async start(
    serverId: string,
    config: ServerConfig,
    mode: AuthTraceMode = 'quick',
  ): Promise<{ authorizationUrl?: string }> {
    const provider = this.providerFor(serverId, config);
    if (!provider) {
      throw new DaemonError('invalid_request', `Server "${serverId}" has no OAuth settings (config.auth)`);
    }
    const { auth } = await loadSdk();
    const trace = this.trace(serverId);
    trace.begin(mode);
    provider.authorizationUrl = undefined;
    await provider.invalidateCredentials('discovery');
    try {
      const result = await auth(provider, {
        serverUrl: provider.serverUrl,
        fetchFn: trace.fetch(provider.serverUrl),
        forceReauthorization: true,
      });
      this.onChange(serverId);
      const url = provider.authorizationUrl as URL | undefined;
      if (result === 'REDIRECT' && url) return { authorizationUrl: url.href };
      this.noteSignedIn(serverId);
      return {};
    } catch (error) {
      provider.flowRunning = true;
      const explained = this.explain(serverId, error) ?? error;
      trace.note('outcome', 'failed', 'The flow stopped.', (explained as Error).message);
      throw explained;
    }
  }

  /** The callback of the person's browser: redeems the code of the flow its `state` names. */
  async callback(params: URLSearchParams): Promise<CallbackOutcome> {
    const state = params.get('state');
    const flow = state ? this.pending.get(state) : undefined;
    if (!state || !flow || flow.expiresAt < Date.now()) {
      if (flow)
        this.trace(flow.serverId).note(
          'callback',
          'failed',
          'A callback came for a flow older than 10 minutes.',
          'Start the sign-in again.',
        );
      if (state) this.pending.delete(state);
      return {
        ok: false,
        title: 'Unknown or expired sign-in',
        detail:
          'This answer does not belong to a sign-in the inspector is waiting for (its state is unknown, used or older than 10 minutes). Start the sign-in again from the inspector.',
      };
    }
    this.pending.delete(state);
    const { serverId, provider } = flow;
    const { auth } = await loadSdk();
    const trace = this.trace(serverId);
    const error = params.get('error');
    if (error && !params.get('code')) {
      provider.authorizationUrl = undefined;
      this.onChange(serverId);
      const description = params.get('error_description');
      trace.note(
        'callback',
        'failed',
        `The authorization server answered error=${error.slice(0, 64)}${description ? `: ${description.slice(0, 500)}` : ''}.`,
        callbackProblem(error),
      );
      return {
        ok: false,
        serverId,
        title: 'Sign-in refused',
        detail: redact(
          `The authorization server answered ${error}${description ? `: ${description}` : ''}. Start the sign-in again from the inspector.`,
          this.secrets(serverId),
        ).slice(0, 1000),
      };
    }
    const code = params.get('code') ?? '';
    this.addSecret(serverId, code);
    const iss = params.get('iss');
    trace.note(
      'callback',
      code ? 'ok' : 'failed',
      `state matches the flow this daemon started; ${code ? 'a code came back' : 'no code came back'}; ${iss ? `iss ${iss.slice(0, 300)}` : 'no iss (checked against the metadata: required when it says authorization_response_iss_parameter_supported)'}.`,
      code ? undefined : 'The authorization server sent neither a code nor an error: sign in again.',
    );
    provider.useVerifier(flow.verifier);
    try {
      await auth(provider, {
        serverUrl: provider.serverUrl,
        authorizationCode: code,
        iss: iss ?? undefined,
        fetchFn: trace.fetch(provider.serverUrl),
      });
    } catch (failure) {
      provider.authorizationUrl = undefined;
      provider.flowRunning = true;
      this.onChange(serverId);
      const explained = this.explain(serverId, failure);
      trace.note(
        'outcome',
        'failed',
        'The code was not redeemed.',
        explained?.message ?? redact(String(failure), this.secrets(serverId)),
      );
      return {
        ok: false,
        serverId,
        title: 'Sign-in failed',
        detail: explained?.message ?? redact(String(failure), this.secrets(serverId)),
      };
    }
    // The person signed in: other sign-ins this server was waiting for are no longer wanted.
    for (const [key, other] of this.pending) if (other.serverId === serverId) this.pending.delete(key);
    this.onChange(serverId);
    this.noteSignedIn(serverId);
    return { ok: true, serverId, title: 'Signed in', detail: 'The inspector holds a grant for this server.' };
  }

  /** Forgets the grant and any flow in progress for a server. */
  async forget(serverId: string): Promise<void> {
    const provider = this.providers.get(serverId);
    if (provider) {
      provider.authorizationUrl = undefined;
      await provider.invalidateCredentials('all');
    }
    for (const [state, flow] of this.pending) if (flow.serverId === serverId) this.pending.delete(state);
    this.providers.delete(serverId);
    await this.store.forget(serverId);
    this.onChange(serverId);
  }

  /** A server removed, or its URL or OAuth settings changed: the grant made for the old ones goes. */
  async dropIfChanged(serverId: string, config: ServerConfig | undefined): Promise<void> {
    const provider = this.providers.get(serverId);
    const grant = await this.store.load(serverId);
    const binding = config ? bindingOf(config) : undefined;
    if (
      !binding ||
      (grant.boundTo !== undefined && grant.boundTo !== binding) ||
      (provider && provider.binding !== binding)
    ) {
      if (grant.boundTo !== undefined || provider) await this.forget(serverId);
    }
  }

  private awaitCallback(provider: DaemonOAuthProvider, url: URL, state: string, verifier: string): void {
    const now = Date.now();
    for (const [key, flow] of this.pending) if (flow.expiresAt < now) this.pending.delete(key);
    // A few flows of one server may wait at once (two calls that both needed a sign-in); not more.
    const ofServer = [...this.pending].filter(([, flow]) => flow.serverId === provider.serverId);
    for (const [key] of ofServer.slice(0, Math.max(0, ofServer.length - 7))) this.pending.delete(key);
    this.pending.set(state, {
      serverId: provider.serverId,
      provider,
      verifier,
      expiresAt: now + PENDING_FLOW_MS,
    });
    const { detail, problem } = authorizationDetail(url);
    this.trace(provider.serverId).note('authorization', problem ? 'failed' : 'ok', detail, problem);
    this.onChange(provider.serverId);
  }

  /** The flow's last step: what the grant now holds. */
  private noteSignedIn(serverId: string): void {
    const grant = this.store.peek(serverId);
    const info = grant?.tokens && authorizedInfo(grant.tokens, grant.obtainedAt);
    const parts = [
      info?.expiresAt ? `valid until ${info.expiresAt}` : 'no expiry given',
      info?.scopes?.length ? `scopes ${info.scopes.join(' ')}` : 'no scopes named',
      info?.refreshable ? 'refreshable' : 'no refresh token',
    ];
    this.trace(serverId).note('outcome', 'ok', `Authorized: ${parts.join('; ')}.`);
  }

  private addSecret(serverId: string, value: string): void {
    if (value.length < 4) return;
    let set = this.secretsByServer.get(serverId);
    if (!set) this.secretsByServer.set(serverId, (set = new Set()));
    set.add(value);
    const sink = this.sinks.get(serverId);
    if (sink) addSorted(sink, value);
  }
}

/** Adds a secret to a redaction list kept longest first (a secret inside another is replaced whole). */
function addSorted(list: string[], value: string): void {
  if (list.includes(value)) return;
  list.push(value);
  list.sort((a, b) => b.length - a.length);
}

/** The URL the server is reached at (without userinfo), as the resource the grant is for. */
function serverUrlOf(config: RemoteServerConfig): string {
  const url = new URL(config.url);
  url.username = '';
  url.password = '';
  return url.href;
}

/** What a grant is bound to: the server URL, the client settings and the IdP. Scopes may change freely. */
function bindingOf(config: ServerConfig): string | undefined {
  if (config.transport === 'stdio' || config.transport === 'websocket' || !config.auth) return undefined;
  const { grant = 'authorization_code', clientId, clientMetadataUrl } = config.auth;
  let url: string;
  try {
    url = serverUrlOf(config);
  } catch {
    url = config.url;
  }
  const parts: unknown[] = [url, grant, clientId ?? null, clientMetadataUrl ?? null];
  // The identity behind an exchanged grant is the IdP's: another IdP (or client there) is another grant.
  if (grant === 'token_exchange') {
    const { idpUrl, idpTokenEndpoint, idpClientId } = config.auth;
    parts.push(idpUrl ?? null, idpTokenEndpoint ?? null, idpClientId ?? null);
  }
  return JSON.stringify(parts);
}

/** What an authorization URL asks for, and what is missing from it. */
function authorizationDetail(url: URL): { detail: string; problem?: string } {
  const q = url.searchParams;
  const said = (name: string) => q.get(name) ?? '(none)';
  const detail = `${url.origin}${url.pathname}: response_type ${said('response_type')}, code_challenge_method ${said('code_challenge_method')}, resource ${said('resource')}, scope ${said('scope')}, redirect_uri ${said('redirect_uri')}. Open it to sign in.`;
  const missing = [
    q.get('code_challenge_method') !== 'S256' && 'PKCE with S256',
    !q.get('state') && 'state',
    !q.get('resource') && 'the resource parameter',
  ].filter(Boolean);
  return missing.length
    ? { detail, problem: `The URL lacks ${missing.join(', ')}: the flow is not safe to finish.` }
    : { detail };
}

/** What an error of the authorization endpoint (RFC 6749 §4.1.2.1) asks the person to do. */
function callbackProblem(error: string): string {
  switch (error) {
    case 'access_denied':
      return 'access_denied: the sign-in was refused (by the person or a policy). Sign in again and approve the request.';
    case 'invalid_scope':
      return "invalid_scope: the scopes asked are not offered. Set auth.scopes to scopes the authorization server's metadata lists.";
    case 'invalid_request':
      return 'invalid_request: the authorization server did not take the request (a redirect URI it does not know, a missing parameter). Check the client registration.';
    case 'unauthorized_client':
      return 'unauthorized_client: this client may not use the authorization-code grant. Check the client registration.';
    default:
      return `${error.slice(0, 64)}: see the authorization server's description above.`;
  }
}

/** What the record says of stored tokens. */
function authorizedInfo(tokens: StoredTokens, obtainedAt: number | undefined): ServerAuthInfo {
  const info: ServerAuthInfo = { state: 'authorized', refreshable: Boolean(tokens.refresh_token) };
  if (typeof tokens.expires_in === 'number' && obtainedAt) {
    info.expiresAt = new Date(obtainedAt + tokens.expires_in * 1000).toISOString();
  }
  if (typeof tokens.scope === 'string' && tokens.scope) info.scopes = tokens.scope.split(' ').filter(Boolean);
  if (tokens.issuer) info.issuer = tokens.issuer;
  return info;
}
