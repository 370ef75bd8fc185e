/**
 * OAuth for remote servers (issue 12): one provider per server with `auth` settings, the flows waiting
 * for a person (bound to the callback by `state`), and what a failure of the flow means in the daemon's
 * words. The SDK runs the protocol; every byte of the servers' answers reaches the person only through
 * the messages written here, redacted of every secret the flow has seen.
 */
import type * as Client from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { ServerAuthInfo } from '../../shared/oauth.ts';
import type { RemoteServerConfig, ServerConfig } from '../../shared/servers.ts';
import {
  AuthorizationFailedError,
  AuthorizationRequiredError,
  DaemonError,
  type UpstreamError,
} from '../errors.ts';
import { redact } from '../mcp/redact.ts';
import { GrantStore } from './grant-store.ts';
import { DaemonOAuthProvider } from './provider.ts';

type Sdk = typeof Client;
let sdk: Sdk | undefined;
async function loadSdk(): Promise<Sdk> {
  sdk ??= await import('@modelcontextprotocol/client');
  return sdk;
}

/** How long a person has to finish signing in before the callback's `state` is refused. */
export const PENDING_FLOW_MS = 10 * 60_000;
/** The longest an answer of an authorization server may take. */
const AUTH_REQUEST_TIMEOUT_MS = 30_000;

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
  /** An OAuth failure in the daemon's words; undefined when the failure is not OAuth's. */
  explain(serverId: string, error: unknown): UpstreamError | undefined;
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

/** A fetch for the authorization server: no redirects followed (a hostile server cannot send us elsewhere), bounded in time. */
const authFetch: typeof fetch = (input, init) =>
  fetch(input, {
    ...init,
    redirect: 'error',
    signal: init?.signal ?? AbortSignal.timeout(AUTH_REQUEST_TIMEOUT_MS),
  });

export class OAuthManager implements ConnectionOAuth {
  readonly store: GrantStore;
  private readonly providers = new Map<string, DaemonOAuthProvider>();
  private readonly pending = new Map<string, PendingFlow>();
  private readonly secretsByServer = new Map<string, Set<string>>();
  private readonly sinks = new Map<string, string[]>();
  private baseUrl?: string;

  constructor(
    dataDir: string,
    private readonly onChange: (serverId: string) => void = () => {},
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
        onAuthorizationUrl: (from, url, state, verifier) => this.awaitCallback(from, state, verifier),
        onSecret: (value) => this.addSecret(serverId, value),
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
    const info: ServerAuthInfo = { state: 'authorized', refreshable: Boolean(tokens.refresh_token) };
    if (typeof tokens.expires_in === 'number' && grant?.obtainedAt) {
      info.expiresAt = new Date(grant.obtainedAt + tokens.expires_in * 1000).toISOString();
    }
    if (typeof tokens.scope === 'string' && tokens.scope)
      info.scopes = tokens.scope.split(' ').filter(Boolean);
    if (tokens.issuer) info.issuer = tokens.issuer;
    return info;
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
      return new AuthorizationFailedError(say(`The OAuth flow failed: ${error.message}`), 'AUTH_FLOW_FAILED');
    }
    return undefined;
  }

  /** A fresh authorization for a server: its authorization URL, or none when no person is needed. */
  async start(serverId: string, config: ServerConfig): Promise<{ authorizationUrl?: string }> {
    const provider = this.providerFor(serverId, config);
    if (!provider) {
      throw new DaemonError('invalid_request', `Server "${serverId}" has no OAuth settings (config.auth)`);
    }
    const { auth } = await loadSdk();
    provider.authorizationUrl = undefined;
    await provider.invalidateCredentials('discovery');
    try {
      const result = await auth(provider, {
        serverUrl: provider.serverUrl,
        fetchFn: authFetch,
        forceReauthorization: true,
      });
      this.onChange(serverId);
      const url = provider.authorizationUrl as URL | undefined;
      return result === 'REDIRECT' && url ? { authorizationUrl: url.href } : {};
    } catch (error) {
      provider.flowRunning = true;
      throw this.explain(serverId, error) ?? error;
    }
  }

  /** The callback of the person's browser: redeems the code of the flow its `state` names. */
  async callback(params: URLSearchParams): Promise<CallbackOutcome> {
    const state = params.get('state');
    const flow = state ? this.pending.get(state) : undefined;
    if (!state || !flow || flow.expiresAt < Date.now()) {
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
    const error = params.get('error');
    if (error && !params.get('code')) {
      provider.authorizationUrl = undefined;
      this.onChange(serverId);
      const description = params.get('error_description');
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
    provider.useVerifier(flow.verifier);
    try {
      await auth(provider, {
        serverUrl: provider.serverUrl,
        authorizationCode: code,
        iss: params.get('iss') ?? undefined,
        fetchFn: authFetch,
      });
    } catch (failure) {
      provider.authorizationUrl = undefined;
      provider.flowRunning = true;
      this.onChange(serverId);
      const explained = this.explain(serverId, failure);
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

  private awaitCallback(provider: DaemonOAuthProvider, state: string, verifier: string): void {
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
    this.onChange(provider.serverId);
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

/** What a grant is bound to: the server URL and the client settings. Scopes may change freely. */
function bindingOf(config: ServerConfig): string | undefined {
  if (config.transport === 'stdio' || config.transport === 'websocket' || !config.auth) return undefined;
  const { grant = 'authorization_code', clientId, clientMetadataUrl } = config.auth;
  let url: string;
  try {
    url = serverUrlOf(config);
  } catch {
    url = config.url;
  }
  return JSON.stringify([url, grant, clientId ?? null, clientMetadataUrl ?? null]);
}
