import {
  keepsStoredSecret,
  OAUTH_SECRET_FIELDS,
  type OAuthGrant,
  type OAuthSettings,
  oauthSettingsProblems,
  oauthSettingsSchema,
} from '../../shared/oauth';
import {
  MASKED_SECRET,
  type RemoteServerConfig,
  type ServerConfig,
  type ServerEra,
} from '../../shared/servers';

export type TransportChoice = 'stdio' | 'sse' | 'http' | 'websocket';

/** The editor's text fields; lists are one entry per line so pasting from a terminal just works. */
export interface ServerDraft {
  id: string;
  name: string;
  transport: TransportChoice;
  command: string;
  args: string;
  env: string;
  cwd: string;
  url: string;
  headers: string;
  /** The MCP era to speak: `auto` (the default, not stored), `legacy` or `modern`. */
  era: ServerEra;
  /** OAuth, for an HTTP or SSE server (the daemon refuses it on the others). */
  auth: AuthDraft;
}

/** An `auth` setting the editor has a field for (the grant is the choice that picks them). */
export type AuthField = Exclude<keyof OAuthSettings, 'grant'>;
type AuthTextField = Exclude<AuthField, 'scopes' | 'dpop'>;

/** The editor's OAuth section: text as typed, scopes space-separated. */
export type AuthDraft = {
  /** Off: the config has no `auth`, and the daemon never signs in to the server. */
  enabled: boolean;
  grant: OAuthGrant;
  scopes: string;
  dpop: boolean;
} & Record<AuthTextField, string>;

export const OAUTH_GRANTS: readonly OAuthGrant[] = [
  'authorization_code',
  'client_credentials',
  'jwt_bearer',
  'token_exchange',
];

/** How the daemon's client is known to the authorization server, under every grant. */
const CLIENT_FIELDS = ['clientId', 'clientSecret', 'privateKey', 'signingAlgorithm'] as const;
/** What every grant ends with: the scopes asked for and sender-constrained tokens. */
const TOKEN_FIELDS = ['scopes', 'dpop'] as const;

/**
 * The settings each grant uses, in the editor's order; a field of another grant is not sent. A client
 * metadata URL stands in for a client id, so it is offered only where the client id may be left out.
 */
export const GRANT_FIELDS: Record<OAuthGrant, readonly AuthField[]> = {
  authorization_code: [...CLIENT_FIELDS, 'clientMetadataUrl', ...TOKEN_FIELDS],
  client_credentials: [...CLIENT_FIELDS, ...TOKEN_FIELDS],
  jwt_bearer: ['assertion', ...CLIENT_FIELDS, 'clientMetadataUrl', ...TOKEN_FIELDS],
  token_exchange: [
    'idpUrl',
    'idpTokenEndpoint',
    'idpClientId',
    'idpClientSecret',
    'idToken',
    ...CLIENT_FIELDS,
    ...TOKEN_FIELDS,
  ],
};

/** Each setting's label in the editor, which its problems are named by too. */
export const AUTH_LABELS: Record<keyof OAuthSettings, string> = {
  grant: 'Grant',
  clientId: 'Client id',
  clientSecret: 'Client secret',
  privateKey: 'Private key',
  signingAlgorithm: 'Signing algorithm',
  clientMetadataUrl: 'Client metadata URL',
  scopes: 'Scopes',
  dpop: 'DPoP',
  assertion: 'Assertion',
  idpUrl: 'IdP issuer URL',
  idpTokenEndpoint: 'IdP token endpoint',
  idpClientId: 'IdP client id',
  idpClientSecret: 'IdP client secret',
  idToken: 'ID token',
};

/** What a value that does not match the daemon's pattern for the setting should look like. */
const AUTH_FORMATS: Partial<Record<AuthTextField, string>> = {
  privateKey: 'a PEM key starting with -----BEGIN PRIVATE KEY-----',
  signingAlgorithm: 'a JWS algorithm name such as RS256, ES256, PS256 or EdDSA',
  clientMetadataUrl: 'an https:// URL with a path, such as https://example.com/client.json',
  assertion: 'a JWT (three base64url parts separated by ".")',
  idpUrl: 'an http:// or https:// URL',
  idpTokenEndpoint: 'an http:// or https:// URL',
  idToken: 'a JWT (three base64url parts separated by ".")',
};

const AUTH_TEXT_FIELDS: readonly AuthTextField[] = [
  'clientId',
  'clientSecret',
  'privateKey',
  'signingAlgorithm',
  'clientMetadataUrl',
  'assertion',
  'idpUrl',
  'idpTokenEndpoint',
  'idpClientId',
  'idpClientSecret',
  'idToken',
];

export function emptyAuthDraft(): AuthDraft {
  const text = Object.fromEntries(AUTH_TEXT_FIELDS.map((field) => [field, ''])) as Record<
    AuthTextField,
    string
  >;
  return { ...text, enabled: false, grant: 'authorization_code', scopes: '', dpop: false };
}

/** The editor's section for stored settings; their secrets come masked and stay so unless retyped. */
export function authDraftFromSettings(auth: OAuthSettings | undefined): AuthDraft {
  const draft = emptyAuthDraft();
  if (!auth) return draft;
  for (const field of AUTH_TEXT_FIELDS) draft[field] = auth[field] ?? '';
  return {
    ...draft,
    enabled: true,
    grant: auth.grant ?? 'authorization_code',
    scopes: (auth.scopes ?? []).join(' '),
    dpop: auth.dpop === true,
  };
}

/**
 * The `auth` to send: only the settings the grant uses, each checked against the daemon's own pattern
 * and the grant's needs, so the problems show before a round trip. A masked secret goes back as it
 * came, which the daemon reads as "keep the stored one".
 */
export function settingsFromAuthDraft(draft: AuthDraft): { auth: OAuthSettings; problems: string[] } {
  const auth: OAuthSettings = draft.grant === 'authorization_code' ? {} : { grant: draft.grant };
  const problems: string[] = [];
  for (const field of GRANT_FIELDS[draft.grant]) {
    if (field === 'dpop') {
      if (draft.dpop) auth.dpop = true;
    } else if (field === 'scopes') {
      const scopes = draft.scopes.split(/\s+/).filter(Boolean);
      const scope = new RegExp(oauthSettingsSchema.properties.scopes.items.pattern);
      const bad = scopes.filter((s) => !scope.test(s));
      for (const s of bad) problems.push(`Scopes: "${s}" is not a scope (printable ASCII, without " or \\)`);
      if (scopes.length) auth.scopes = scopes;
    } else {
      const value = draft[field].trim();
      // The algorithm is the key's: with the key gone (its field is hidden then), it is not sent.
      if (!value || (field === 'signingAlgorithm' && !draft.privateKey.trim())) continue;
      const { pattern } = oauthSettingsSchema.properties[field] as { pattern?: string };
      if (pattern && !new RegExp(pattern).test(value)) {
        problems.push(`${AUTH_LABELS[field]} must be ${AUTH_FORMATS[field] ?? 'valid'}`);
      }
      auth[field] = value;
    }
  }
  const label = (field: keyof OAuthSettings) => AUTH_LABELS[field];
  for (const { field, message } of oauthSettingsProblems(auth, label)) {
    problems.push(`${label(field)} ${message}`);
  }
  return { auth, problems };
}

export function emptyDraft(): ServerDraft {
  return {
    id: '',
    name: '',
    transport: 'stdio',
    command: '',
    args: '',
    env: '',
    cwd: '',
    url: '',
    headers: '',
    era: 'auto',
    auth: emptyAuthDraft(),
  };
}

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** `KEY=value` (env) or `Name: value` (headers) lines into a map; a line without the separator is a problem. */
export function parsePairs(
  text: string,
  separator: '=' | ':',
): { values: Record<string, string>; problems: string[] } {
  const values: Record<string, string> = {};
  const problems: string[] = [];
  for (const line of lines(text)) {
    const at = line.indexOf(separator);
    if (at <= 0) problems.push(`"${line}" has no "${separator}"`);
    else values[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { values, problems };
}

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * Masked secrets a save would lose: the daemon keeps a stored secret for the mask only while the server's
 * origin and the client (and the IdP, for what goes there) are unchanged (keepsStoredSecret), and drops
 * it otherwise. Said before the save, so the person types it again rather than finds it gone.
 */
function droppedSecrets(config: RemoteServerConfig, stored: ServerConfig | undefined): string[] {
  const auth = config.auth ?? {};
  const storedAuth =
    stored && stored.transport !== 'stdio' && originOf(stored.url) === originOf(config.url)
      ? stored.auth
      : undefined;
  return OAUTH_SECRET_FIELDS.filter(
    (field) => auth[field] === MASKED_SECRET && !(storedAuth && keepsStoredSecret(field, auth, storedAuth)),
  ).map((field) => {
    const idp = field === 'idpClientSecret' || field === 'idToken' ? ', client id and IdP' : ' and client id';
    return `${AUTH_LABELS[field]}: type it again: the stored one is kept only with the same server address${idp}`;
  });
}

export function draftFromConfig(id: string, name: string, config: ServerConfig): ServerDraft {
  const draft = { ...emptyDraft(), id, name, era: config.era ?? 'auto' };
  if (config.transport === 'stdio') {
    return {
      ...draft,
      transport: 'stdio',
      command: config.command,
      args: (config.args ?? []).join('\n'),
      env: Object.entries(config.env ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join('\n'),
      cwd: config.cwd ?? '',
    };
  }
  return {
    ...draft,
    transport: config.transport,
    url: config.url,
    headers: Object.entries(config.headers ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
    auth: authDraftFromSettings(config.auth),
  };
}

/** The config to PUT, or the problems that stop it; `stored` is the config being edited, as the daemon sent it. */
export function configFromDraft(
  draft: ServerDraft,
  stored?: ServerConfig,
): { config?: ServerConfig; problems: string[] } {
  const problems: string[] = [];
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(draft.id)) {
    problems.push('Id: letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
  if (draft.transport === 'stdio') {
    if (!draft.command.trim()) problems.push('Command is required');
    const env = parsePairs(draft.env, '=');
    problems.push(...env.problems.map((p) => `Environment: ${p}`));
    const config: ServerConfig = { transport: 'stdio', command: draft.command.trim() };
    const args = lines(draft.args);
    if (args.length) config.args = args;
    if (Object.keys(env.values).length) config.env = env.values;
    if (draft.cwd.trim()) config.cwd = draft.cwd.trim();
    if (draft.era !== 'auto') config.era = draft.era;
    return problems.length ? { problems } : { config, problems };
  }
  if (draft.transport === 'websocket') {
    if (!/^wss?:\/\/\S+$/.test(draft.url.trim())) problems.push('URL must start with ws:// or wss://');
  } else if (!/^https?:\/\/\S+$/.test(draft.url.trim())) {
    problems.push('URL must start with http:// or https://');
  }
  const headers = parsePairs(draft.headers, ':');
  problems.push(...headers.problems.map((p) => `Headers: ${p}`));
  const config: RemoteServerConfig = { transport: draft.transport, url: draft.url.trim() };
  if (Object.keys(headers.values).length) config.headers = headers.values;
  if (draft.era !== 'auto') config.era = draft.era;
  if (draft.transport !== 'websocket' && draft.auth.enabled) {
    const { auth, problems: found } = settingsFromAuthDraft(draft.auth);
    config.auth = auth;
    problems.push(...found, ...droppedSecrets(config, stored));
  }
  return problems.length ? { problems } : { config, problems };
}

/** Accepts `{ "mcpServers": {...} }` or the inner map alone, as users paste either. */
export function parseMcpServersJson(text: string): {
  mcpServers?: Record<string, unknown>;
  problem?: string;
} {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return { problem: 'Expected a JSON object' };
  const map = 'mcpServers' in parsed ? (parsed as { mcpServers: unknown }).mcpServers : parsed;
  if (!map || typeof map !== 'object' || Array.isArray(map) || !Object.keys(map).length) {
    return { problem: 'Expected { "mcpServers": { "<id>": { "command" … } } } with at least one server' };
  }
  return { mcpServers: map as Record<string, unknown> };
}
