/**
 * What of a server's config is secret, and how it is masked on the wire. Every value of `env` and
 * `headers` is a secret; so are a URL's userinfo and its credential-like query parameters. Responses
 * and events carry the mask; a PUT that sends the mask back keeps the stored value, but only for the
 * same origin, so an edited URL never receives a credential meant for another host.
 */
import { keepsStoredSecret, OAUTH_SECRET_FIELDS } from '../../shared/oauth.ts';
import { MASKED_SECRET, type ServerConfig } from '../../shared/servers.ts';

/** Names that say their value is a credential (query parameters, and free-text redaction by name). */
export const SECRET_NAME =
  /key|token|secret|pass|auth|cred|session|cookie|private|signature|sig$|bearer|pat$|code/i;

const maskValues = (values: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.keys(values).map((key) => [key, MASKED_SECRET]));

/** The URL with its userinfo and credential-like query values masked; unchanged when it has none. */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let changed = false;
  if (parsed.username) {
    parsed.username = MASKED_SECRET;
    changed = true;
  }
  if (parsed.password) {
    parsed.password = MASKED_SECRET;
    changed = true;
  }
  for (const [name] of [...parsed.searchParams]) {
    if (SECRET_NAME.test(name)) {
      parsed.searchParams.set(name, MASKED_SECRET);
      changed = true;
    }
  }
  return changed ? parsed.toString() : url;
}

export function maskConfig(config: ServerConfig): ServerConfig {
  if (config.transport === 'stdio') return config.env ? { ...config, env: maskValues(config.env) } : config;
  const url = maskUrl(config.url);
  let masked = url === config.url ? config : { ...config, url };
  if (config.auth && OAUTH_SECRET_FIELDS.some((field) => config.auth?.[field])) {
    const auth = { ...config.auth };
    for (const field of OAUTH_SECRET_FIELDS) if (auth[field]) auth[field] = MASKED_SECRET;
    masked = { ...masked, auth };
  }
  return config.headers ? { ...masked, headers: maskValues(config.headers) } : masked;
}

function originOf(url: string | undefined): string | undefined {
  try {
    return url === undefined ? undefined : new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Masked parts of an incoming URL take the stored ones (same origin only); without them they are removed. */
function unmaskUrl(incoming: string, stored: string | undefined): string {
  if (!incoming.includes(MASKED_SECRET) && !incoming.includes(encodeURIComponent(MASKED_SECRET))) {
    return incoming;
  }
  let url: URL;
  try {
    url = new URL(incoming);
  } catch {
    return incoming;
  }
  const previous = stored !== undefined && originOf(stored) === url.origin ? new URL(stored) : undefined;
  const isMask = (value: string): boolean => value === MASKED_SECRET || value === '%2A%2A%2A%2A%2A%2A%2A%2A';
  if (isMask(url.username)) url.username = previous?.username ?? '';
  if (isMask(url.password)) url.password = previous?.password ?? '';
  for (const [name, value] of [...url.searchParams]) {
    if (value !== MASKED_SECRET) continue;
    const kept = previous?.searchParams.get(name);
    if (kept !== null && kept !== undefined) url.searchParams.set(name, kept);
    else url.searchParams.delete(name);
  }
  return url.toString();
}

/**
 * A PUT may send masked values back: those keep what was stored under the same key. For a remote
 * server that is so only while the URL's origin is unchanged; pointed elsewhere, a masked header is
 * dropped rather than sent to the new host.
 */
export function unmaskConfig(incoming: ServerConfig, stored: ServerConfig | undefined): ServerConfig {
  const keep = (values: Record<string, string> | undefined, previous: Record<string, string> | undefined) =>
    values &&
    Object.fromEntries(
      Object.entries(values).flatMap(([key, value]): Array<[string, string]> => {
        if (value !== MASKED_SECRET) return [[key, value]];
        const kept = previous?.[key];
        return kept === undefined ? [] : [[key, kept]];
      }),
    );
  if (incoming.transport === 'stdio') {
    const previous = stored?.transport === 'stdio' ? stored.env : undefined;
    const env = keep(incoming.env, previous);
    return env ? { ...incoming, env } : incoming;
  }
  const storedUrl = stored && stored.transport !== 'stdio' ? stored.url : undefined;
  const sameOrigin = storedUrl !== undefined && originOf(storedUrl) === originOf(incoming.url);
  const previous = sameOrigin && stored && stored.transport !== 'stdio' ? stored.headers : undefined;
  const headers = keep(incoming.headers, previous);
  const url = unmaskUrl(incoming.url, storedUrl);
  const unmasked = headers ? { ...incoming, url, headers } : { ...incoming, url };
  if (!incoming.auth || !OAUTH_SECRET_FIELDS.some((field) => incoming.auth?.[field] === MASKED_SECRET)) {
    return unmasked;
  }
  // The stored secrets, for the same origin and client only (and those sent to the IdP, for the same
  // IdP and client there); otherwise they are dropped.
  const storedAuth = sameOrigin && stored && stored.transport !== 'stdio' ? stored.auth : undefined;
  const auth = { ...incoming.auth };
  for (const key of OAUTH_SECRET_FIELDS) {
    if (auth[key] !== MASKED_SECRET) continue;
    const kept =
      storedAuth && keepsStoredSecret(key, incoming.auth, storedAuth) ? storedAuth[key] : undefined;
    if (kept) auth[key] = kept;
    else delete auth[key];
  }
  return { ...unmasked, auth };
}
