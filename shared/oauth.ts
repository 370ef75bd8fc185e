/** OAuth 2.1 for remote MCP servers: a server's auth settings, and what its record says of the grant. */

/**
 * How the daemon authorizes with an HTTP or SSE server that asks for OAuth. With no client id the
 * daemon offers the client metadata document URL when one is given and the authorization server takes
 * it (CIMD), and registers itself dynamically otherwise.
 */
export interface OAuthSettings {
  /**
   * `authorization_code` (default): a person signs in in the browser; `client_credentials`: no person;
   * `jwt_bearer`: a JWT the workload holds is the grant (RFC 7523, workload identity federation);
   * `token_exchange`: the person's ID token from the enterprise IdP is exchanged there for an identity
   * assertion grant (RFC 8693, ID-JAG), which the daemon presents as a JWT bearer grant (SEP-990).
   */
  grant?: OAuthGrant;
  /** A client registered beforehand; without it the daemon registers (or uses the CIMD URL). */
  clientId?: string;
  /** The pre-registered client's secret: masked in every answer and log like a header value. */
  clientSecret?: string;
  /**
   * A PEM private key (PKCS#8) to authenticate the client with a signed JWT (`private_key_jwt`,
   * RFC 7523) instead of a secret: a secret too, masked everywhere.
   */
  privateKey?: string;
  /** The JWS algorithm of `privateKey` (RS256 when not given): RS256, ES256, PS256, EdDSA… */
  signingAlgorithm?: string;
  /** An https URL of this client's metadata document (SEP-991), used as its client id where supported. */
  clientMetadataUrl?: string;
  /** The scopes to ask for; without them, those of the server's challenge or its metadata. */
  scopes?: string[];
  /**
   * Sender-constrained tokens (DPoP, RFC 9449): the token request and every request to the server
   * carry a proof signed with a key the daemon makes; the key lives in memory, so after a restart the
   * person signs in again.
   */
  dpop?: boolean;
  /**
   * `jwt_bearer`: the JWT presented as the grant (RFC 7523 §2.1), e.g. the workload identity token the
   * platform the daemon runs on gives it, issued for the authorization server. A secret, masked everywhere.
   */
  assertion?: string;
  /** `token_exchange`: the enterprise IdP's issuer URL; its token endpoint is discovered (RFC 8414, OpenID). */
  idpUrl?: string;
  /** `token_exchange`: the IdP's token endpoint, when it is not to be discovered from `idpUrl`. */
  idpTokenEndpoint?: string;
  /** `token_exchange`: the client id the daemon has at the IdP. */
  idpClientId?: string;
  /** `token_exchange`: that client's secret at the IdP, when it is confidential; masked everywhere. */
  idpClientSecret?: string;
  /**
   * `token_exchange`: the person's OpenID Connect ID token from the IdP, the subject of the exchange. A
   * secret, masked everywhere; when it expires, put a fresh one.
   */
  idToken?: string;
}

/** The grants the daemon can run for a remote server. */
export type OAuthGrant = 'authorization_code' | 'client_credentials' | 'jwt_bearer' | 'token_exchange';

/** The `auth` fields that hold a secret: masked in every answer, redacted from every error and log line. */
export const OAUTH_SECRET_FIELDS = [
  'clientSecret',
  'privateKey',
  'assertion',
  'idpClientSecret',
  'idToken',
] as const;

/** A field of OAUTH_SECRET_FIELDS. */
export type OAuthSecretField = (typeof OAUTH_SECRET_FIELDS)[number];

/**
 * Whether a masked secret sent back keeps the stored one, the server's origin being unchanged (which the
 * caller checks): only for the same client, and what goes to the IdP only for the same IdP and client
 * there. The daemon applies it to a PUT; the panel's editor warns before a save would drop a secret.
 */
export function keepsStoredSecret(
  field: OAuthSecretField,
  incoming: OAuthSettings,
  stored: OAuthSettings,
): boolean {
  if (stored.clientId !== incoming.clientId) return false;
  if (field !== 'idpClientSecret' && field !== 'idToken') return true;
  return (
    stored.idpUrl === incoming.idpUrl &&
    stored.idpTokenEndpoint === incoming.idpTokenEndpoint &&
    stored.idpClientId === incoming.idpClientId
  );
}

/** What a server record says of its OAuth state. Tokens themselves never leave the daemon. */
export interface ServerAuthInfo {
  /** `authorized`: tokens are stored; `required`: the person must open `authorizationUrl`. */
  state: 'authorized' | 'required' | 'none';
  /** Where the person signs in; the redirect comes back to the daemon's `/oauth/callback`. */
  authorizationUrl?: string;
  /** When the access token expires (ISO 8601), as the authorization server said. */
  expiresAt?: string;
  /** The scopes granted, as the authorization server said. */
  scopes?: string[];
  /** The authorization server that issued the tokens. */
  issuer?: string;
  /** Whether a refresh token is kept, so the daemon renews the access token by itself. */
  refreshable?: boolean;
}

const nonEmpty = { type: 'string', minLength: 1, maxLength: 2048 } as const;
/** A compact JWS, or the mask an answer carried (a PUT that sends it back keeps the stored one). */
const jwt = {
  type: 'string',
  pattern: '^([A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*|\\*{8})$',
  maxLength: 16384,
} as const;
const httpUrl = { type: 'string', pattern: '^https?://[^/?#]+', maxLength: 2048 } as const;

/** The `auth` field of a remote server's config. */
export const oauthSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    grant: { enum: ['authorization_code', 'client_credentials', 'jwt_bearer', 'token_exchange'] },
    clientId: nonEmpty,
    clientSecret: nonEmpty,
    // A PEM key, or the mask an answer carried (a PUT that sends it back keeps the stored key).
    privateKey: {
      type: 'string',
      pattern: '^(-----BEGIN [A-Z ]*PRIVATE KEY-----|\\*{8}$)',
      maxLength: 16384,
    },
    signingAlgorithm: { type: 'string', pattern: '^[A-Za-z0-9]{2,16}$' },
    clientMetadataUrl: { type: 'string', pattern: '^https://[^/]+/.+', maxLength: 2048 },
    dpop: { type: 'boolean' },
    assertion: jwt,
    idpUrl: httpUrl,
    idpTokenEndpoint: httpUrl,
    idpClientId: nonEmpty,
    idpClientSecret: nonEmpty,
    idToken: jwt,
    scopes: {
      type: 'array',
      maxItems: 64,
      items: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,256}$' },
    },
  },
} as const;

/** A setting a grant needs and lacks, named by its `auth` field. */
export interface OAuthSettingsProblem {
  field: keyof OAuthSettings;
  message: string;
}

/**
 * What the settings lack for their grant to run: the daemon's check of a PUT and the panel's editor both
 * ask here. `name` says how a message names another field (`auth.privateKey` by default; a form's label).
 */
export function oauthSettingsProblems(
  auth: OAuthSettings,
  name: (field: keyof OAuthSettings) => string = (field) => `auth.${field}`,
): OAuthSettingsProblem[] {
  const problems: OAuthSettingsProblem[] = [];
  const need = (field: keyof OAuthSettings, message: string) => {
    if (!auth[field]) problems.push({ field, message });
  };
  if (auth.grant === 'client_credentials') {
    need('clientId', 'is required for client_credentials');
    if (!auth.clientSecret && !auth.privateKey) {
      problems.push({
        field: 'clientSecret',
        message: `is required for client_credentials (or ${name('privateKey')} for private_key_jwt)`,
      });
    }
  }
  if (auth.grant === 'jwt_bearer') need('assertion', 'is required for jwt_bearer: the JWT to present');
  if (auth.grant === 'token_exchange') {
    need('clientId', 'is required for token_exchange: the identity assertion grant names it');
    need('idToken', "is required for token_exchange: the person's ID token from the IdP");
    need('idpClientId', "is required for token_exchange: the daemon's client id at the IdP");
    if (!auth.idpUrl && !auth.idpTokenEndpoint) {
      problems.push({
        field: 'idpUrl',
        message: `is required for token_exchange (or ${name('idpTokenEndpoint')})`,
      });
    }
  }
  if ((auth.clientSecret || auth.privateKey) && !auth.clientId) {
    problems.push({
      field: 'clientId',
      message: `is required with ${name('clientSecret')} or ${name('privateKey')}`,
    });
  }
  return problems;
}

/** How a sign-in runs: straight through, or pausing before every request to the authorization side. */
export type AuthTraceMode = 'quick' | 'guided';

/** `POST /servers/:id/auth/start`: `guided` answers at once and waits for `…/auth/trace/next` before each request. */
export interface AuthStartRequest {
  mode?: AuthTraceMode;
}

export const authStartRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { mode: { enum: ['quick', 'guided'] } },
} as const;

/**
 * What a step of the OAuth flow was:
 * - `challenge`: the MCP server refused a request (401, or 403 asking for more scope);
 * - `resource-metadata` / `server-metadata`: discovery (RFC 9728; RFC 8414 and OpenID discovery);
 * - `registration`: dynamic client registration (RFC 7591);
 * - `authorization`: the URL the person opens; `callback`: the browser's way back to the daemon;
 * - `token`, `refresh`, `client-credentials`, `jwt-bearer`: token requests at the authorization server;
 * - `token-exchange`: the exchange of an ID token for an identity assertion grant at the enterprise IdP;
 * - `other`: any other request of the flow;
 * - `outcome`: how the flow ended.
 */
export type AuthStepKind =
  | 'challenge'
  | 'resource-metadata'
  | 'server-metadata'
  | 'registration'
  | 'authorization'
  | 'callback'
  | 'token'
  | 'refresh'
  | 'client-credentials'
  | 'token-exchange'
  | 'jwt-bearer'
  | 'other'
  | 'outcome';

/** One HTTP exchange of the flow, with every secret masked and bodies cut at 16 KiB. */
export interface AuthExchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  /** Why no answer came (the network, a time-out, a refused redirect). */
  error?: string;
}

export interface AuthStep {
  seq: number;
  kind: AuthStepKind;
  title: string;
  /** ISO 8601 time the step began. */
  at: string;
  /** How long the exchange took, in milliseconds. */
  ms?: number;
  /**
   * `waiting`: a guided flow holds the request until the person goes on; `pending`: sent, no answer yet;
   * `fallback`: a miss the client answers by trying the next place; `failed`: the flow stops here.
   */
  outcome: 'ok' | 'fallback' | 'failed' | 'pending' | 'waiting';
  /** The rule of the specifications this step follows or checks. */
  rule: string;
  /** What the step found, in words. */
  detail?: string;
  /** On failure: what is wrong and how to fix it. */
  problem?: string;
  http?: AuthExchange;
}

/** `GET /servers/:id/auth/trace`: the steps of the server's sign-ins, the last 200. */
export interface AuthTrace {
  serverId: string;
  /** The record's id in this daemon run, and its version: of two views with one epoch, the higher version is newer. */
  epoch: string;
  version: number;
  mode: AuthTraceMode;
  /** The step a guided flow holds until `POST /servers/:id/auth/trace/next`. */
  waiting?: number;
  steps: AuthStep[];
}
