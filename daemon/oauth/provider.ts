/**
 * The daemon's OAuthClientProvider for one remote server: SDK v2's `auth()` runs discovery, registration,
 * PKCE S256, the `resource` parameter, the token requests and refresh; this says who the client is and
 * keeps what the flow needs. Tokens and the registration go to the grant store (0600 files); the PKCE
 * verifier, the `state` and the discovery state of a flow in progress live in memory only.
 */
import { createHash, randomBytes } from 'node:crypto';
import type {
  AddClientAuthentication,
  DpopSession,
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthSettings } from '../../shared/oauth.ts';
import { CLIENT_INFO } from '../mcp/server-connection.ts';
import type { GrantStore } from './grant-store.ts';

export interface ProviderHooks {
  /** The redirect URI: the daemon's loopback callback (RFC 8252), known once it listens. */
  callbackUrl(): string;
  /** The SDK wants the person at the browser: `state` binds the callback to this flow. */
  onAuthorizationUrl(provider: DaemonOAuthProvider, url: URL, state: string, verifier: string): void;
  /** A value that must never show in an error or a log line (a token, a secret, a code, a verifier). */
  onSecret(value: string): void;
  /** The fetch of the flow's own requests (the token exchange at the IdP): the auth debugger's. */
  fetch(): typeof fetch;
}

/** The JWT bearer grant (RFC 7523 §2.1). */
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export class DaemonOAuthProvider implements OAuthClientProvider {
  /** The authorization URL of the flow waiting for the person, if any. */
  authorizationUrl?: URL;
  /** Set while the SDK runs an auth flow for this server: a failure then is the flow's. */
  flowRunning = false;
  private verifier?: string;
  /** Set while a callback's code is redeemed: only then is the flow's discovery state reused. */
  private redeeming = false;
  /** The verifiers of flows started lately, by their S256 challenge: two flows at once keep theirs apart. */
  private readonly verifiers = new Map<string, string>();
  private dpopSession?: Promise<DpopSession>;
  private pendingState?: string;
  private discovery?: OAuthDiscoveryState;
  readonly clientMetadataUrl?: string;
  readonly prepareTokenRequest?: (scope?: string) => URLSearchParams | Promise<URLSearchParams>;
  /** The authorization server and resource of the flow (as discovered): a token exchange names them. */
  private authorizationServer?: string;
  private resource?: string;
  /** The scopes the server's latest `insufficient_scope` challenge named (step-up, SEP-2350). */
  private challengedScopes: string[] = [];
  readonly addClientAuthentication?: AddClientAuthentication;

  constructor(
    readonly serverId: string,
    readonly serverUrl: string,
    readonly settings: OAuthSettings,
    /** The settings the grant is bound to: a grant made under others is not used. */
    readonly binding: string,
    private readonly store: GrantStore,
    private readonly hooks: ProviderHooks,
  ) {
    if (!settings.clientId && settings.clientMetadataUrl) this.clientMetadataUrl = settings.clientMetadataUrl;
    for (const secret of [
      settings.clientSecret,
      settings.assertion,
      settings.idpClientSecret,
      settings.idToken,
    ]) {
      if (secret) hooks.onSecret(secret);
    }
    const { clientId, privateKey } = settings;
    if (privateKey && clientId) {
      hooks.onSecret(privateKey);
      // private_key_jwt (RFC 7523): a JWT signed with the key, for the token endpoint it is sent to.
      this.addClientAuthentication = async (headers, params, url, metadata) => {
        const { createPrivateKeyJwtAuth } = await import('@modelcontextprotocol/client');
        const sign = createPrivateKeyJwtAuth({
          issuer: clientId,
          subject: clientId,
          privateKey,
          alg: settings.signingAlgorithm ?? 'RS256',
        });
        await sign(headers, params, url, metadata);
      };
    }
    if (settings.grant === 'client_credentials') {
      this.prepareTokenRequest = (scope) => withScope({ grant_type: 'client_credentials' }, scope);
    } else if (settings.grant === 'jwt_bearer' || settings.grant === 'token_exchange') {
      this.prepareTokenRequest = async (scope) =>
        withScope({ grant_type: JWT_BEARER, assertion: await this.assertion(scope) }, scope);
    }
  }

  /** Every grant but the authorization code: no person, no browser, no redirect. */
  get headless(): boolean {
    return (this.settings.grant ?? 'authorization_code') !== 'authorization_code';
  }

  /**
   * The JWT of a JWT bearer grant: the configured one, or for `token_exchange` an identity assertion
   * grant (ID-JAG) the IdP issues for the person's ID token, this authorization server and this
   * resource (RFC 8693, SEP-990), asked for afresh on every token request (it lives minutes).
   */
  private async assertion(scope: string | undefined): Promise<string> {
    const { settings } = this;
    if (settings.grant === 'jwt_bearer') return settings.assertion ?? '';
    const { idToken, idpClientId, idpUrl, idpTokenEndpoint } = settings;
    if (!this.authorizationServer || !this.resource) {
      throw new Error(
        "The server's protected-resource metadata named no resource: an identity assertion grant needs one (RFC 9728)",
      );
    }
    if (!idToken || !idpClientId || !(idpUrl ?? idpTokenEndpoint)) {
      throw new Error('token_exchange needs auth.idToken, auth.idpClientId and auth.idpUrl');
    }
    const { requestJwtAuthorizationGrant, discoverAndRequestJwtAuthGrant } =
      await import('@modelcontextprotocol/client');
    const request = {
      audience: this.authorizationServer,
      resource: this.resource,
      idToken,
      clientId: idpClientId,
      ...(settings.idpClientSecret && { clientSecret: settings.idpClientSecret }),
      ...(scope && { scope }),
      fetchFn: this.hooks.fetch(),
    };
    const grant = idpTokenEndpoint
      ? await requestJwtAuthorizationGrant({ ...request, tokenEndpoint: idpTokenEndpoint })
      : await discoverAndRequestJwtAuthGrant({ ...request, idpUrl: idpUrl as string });
    this.hooks.onSecret(grant.jwtAuthGrant);
    return grant.jwtAuthGrant;
  }

  /** Called by the SDK after discovery: the issuer a token exchange names as the audience. */
  saveAuthorizationServerUrl(url: string): void {
    this.authorizationServer = url;
  }

  /** Called by the SDK after discovery: the resource a token exchange names. */
  saveResourceUrl(url: string): void {
    this.resource = url;
  }

  get redirectUrl(): string | undefined {
    return this.headless ? undefined : this.hooks.callbackUrl();
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.settings.scopes?.join(' ');
    return {
      client_name: CLIENT_INFO.name,
      software_id: CLIENT_INFO.name,
      software_version: CLIENT_INFO.version,
      redirect_uris: this.headless ? [] : [this.hooks.callbackUrl()],
      grant_types: grantTypesOf(this.settings),
      response_types: this.headless ? [] : ['code'],
      token_endpoint_auth_method: this.settings.privateKey
        ? 'private_key_jwt'
        : this.settings.clientSecret
          ? 'client_secret_basic'
          : 'none',
      ...(scope && { scope }),
    };
  }

  /** The DPoP key of this server's grant (RFC 9449), made on first use: the same for every request. */
  dpop(): Promise<DpopSession> | undefined {
    if (!this.settings.dpop) return undefined;
    this.dpopSession ??= import('@modelcontextprotocol/client').then(({ DpopSession }) =>
      DpopSession.create(),
    );
    return this.dpopSession;
  }

  state(): string {
    this.pendingState = randomBytes(24).toString('base64url');
    return this.pendingState;
  }

  async clientInformation(
    context?: OAuthClientInformationContext,
  ): Promise<StoredOAuthClientInformation | undefined> {
    this.flowRunning = true;
    const { clientId, clientSecret } = this.settings;
    if (clientId) {
      const grant = await this.store.load(this.serverId);
      let issuer =
        grant.boundTo === this.binding && grant.client?.client_id === clientId
          ? grant.client.issuer
          : undefined;
      if (issuer === undefined && context) {
        // The configured client is bound to the first authorization server it is used with (SEP-2352),
        // and the stamp kept: a server that later names another issuer does not get it. The SDK would
        // stamp it the same way, after warning on the console that the provider had not.
        issuer = context.issuer;
        await this.storeClient({ client_id: clientId, issuer });
      }
      return {
        client_id: clientId,
        ...(clientSecret && { client_secret: clientSecret }),
        ...(issuer !== undefined && { issuer }),
      };
    }
    const grant = await this.store.load(this.serverId);
    if (grant.boundTo !== this.binding) return undefined;
    const client = grant.client as StoredOAuthClientInformation | undefined;
    // A client registered for fewer scopes than the server now asks for is refused the others by the
    // authorization server (RFC 7591 §2): the step-up registers again, for the larger scope.
    const registered = (client as { scope?: unknown } | undefined)?.scope;
    if (typeof registered === 'string') {
      const allowed = registered.split(' ');
      if (!this.challengedScopes.every((scope) => allowed.includes(scope))) return undefined;
    }
    return client;
  }

  /** The server answered 403 `insufficient_scope` naming these scopes: the step-up asks for them. */
  noteScopeChallenge(scope: string): void {
    this.challengedScopes = scope.split(' ').filter(Boolean);
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    const secret = (client as { client_secret?: unknown }).client_secret;
    if (typeof secret === 'string') this.hooks.onSecret(secret);
    // Registered for the challenge (or found to cover it): the callback redeems with this client, even
    // when the authorization server allowed it fewer scopes than asked.
    this.challengedScopes = [];
    await this.storeClient(
      this.settings.clientId ? { client_id: client.client_id, issuer: client.issuer } : client,
    );
  }

  /** Keeps the client in the grant, bound to the settings (a configured client: its id and stamp only). */
  private async storeClient(client: StoredOAuthClientInformation): Promise<void> {
    await this.store.update(this.serverId, (grant) => ({
      ...(grant.boundTo === this.binding ? grant : {}),
      client,
      boundTo: this.binding,
    }));
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    const grant = await this.store.load(this.serverId);
    if (grant.boundTo !== this.binding || !grant.tokens) return undefined;
    this.hooks.onSecret(grant.tokens.access_token);
    if (grant.tokens.refresh_token) this.hooks.onSecret(grant.tokens.refresh_token);
    return grant.tokens as StoredOAuthTokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    this.hooks.onSecret(tokens.access_token);
    if (tokens.refresh_token) this.hooks.onSecret(tokens.refresh_token);
    const previous = await this.store.load(this.serverId);
    // A refresh answer without a refresh token keeps the one it was refreshed with (RFC 6749 §6).
    const refresh =
      tokens.refresh_token ??
      (previous.boundTo === this.binding ? previous.tokens?.refresh_token : undefined);
    await this.store.update(this.serverId, (grant) => ({
      ...(grant.boundTo === this.binding ? grant : {}),
      tokens: { ...tokens, ...(refresh && { refresh_token: refresh }) },
      obtainedAt: Date.now(),
      boundTo: this.binding,
    }));
    this.authorizationUrl = undefined;
    this.flowRunning = false;
  }

  redirectToAuthorization(url: URL): void {
    // The person's browser is sent there: https, or http on this machine only (the MCP spec's rule for
    // authorization server endpoints), never another scheme a hostile metadata document may name.
    const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
      throw new Error(
        `The authorization endpoint ${url.href.split(/[?#]/)[0]?.slice(0, 200)} is neither https nor on this machine: the browser is not sent there`,
      );
    }
    this.flowRunning = false;
    this.authorizationUrl = url;
    const state = url.searchParams.get('state') ?? this.pendingState;
    const verifier = this.verifiers.get(url.searchParams.get('code_challenge') ?? '') ?? this.verifier;
    if (state && verifier) this.hooks.onAuthorizationUrl(this, url, state, verifier);
  }

  saveCodeVerifier(verifier: string): void {
    this.hooks.onSecret(verifier);
    this.verifier = verifier;
    this.verifiers.set(createHash('sha256').update(verifier).digest('base64url'), verifier);
    // Only the latest few flows can still come back.
    if (this.verifiers.size > 8) this.verifiers.delete(this.verifiers.keys().next().value as string);
  }

  /** The callback of a flow is redeemed with that flow's verifier. */
  useVerifier(verifier: string): void {
    this.verifier = verifier;
    this.redeeming = true;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No authorization is in progress for this server');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  /**
   * The discovery of the flow whose code is being redeemed (the code is bound to the authorization
   * server that issued it); any other flow discovers afresh, so a server that moved to another
   * authorization server is followed there.
   */
  discoveryState(): OAuthDiscoveryState | undefined {
    this.flowRunning = true;
    if (!this.redeeming) return undefined;
    this.redeeming = false;
    return this.discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined;
    if (scope === 'discovery' || scope === 'all') this.discovery = undefined;
    if (scope === 'tokens' || scope === 'client' || scope === 'all') {
      await this.store.update(this.serverId, (grant) => {
        const next = { ...grant };
        if (scope !== 'client') delete next.tokens;
        if (scope !== 'tokens') delete next.client;
        return next;
      });
    }
  }
}

/** A token request's parameters, with the scope when one is asked. */
function withScope(fields: Record<string, string>, scope: string | undefined): URLSearchParams {
  const params = new URLSearchParams(fields);
  if (scope) params.set('scope', scope);
  return params;
}

/** The grant types a registration asks for. */
function grantTypesOf(settings: OAuthSettings): string[] {
  switch (settings.grant) {
    case 'client_credentials':
      return ['client_credentials'];
    case 'jwt_bearer':
    case 'token_exchange':
      return [JWT_BEARER];
    default:
      return ['authorization_code', 'refresh_token'];
  }
}
