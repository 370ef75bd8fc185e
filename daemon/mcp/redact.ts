import type { ServerConfig } from '../../shared/servers.ts';

/** Names that say their value is a credential. */
const SECRET_NAME = /key|token|secret|pass|auth|cred|session|cookie|private|signature|bearer|pat$/i;
/** A value that looks generated (letters and digits, no spaces) is treated as a credential whatever its name. */
const LOOKS_GENERATED = /^(?=.*[A-Za-z])(?=.*\d)\S{12,}$/;

function isSecret(name: string, value: string): boolean {
  return (SECRET_NAME.test(name) && value.length >= 4) || LOOKS_GENERATED.test(value);
}

/**
 * The strings of a server's config that must never show in an error, a log line or the log stream:
 * credential-like env and header values, and URL credentials and query values. (On the wire every env
 * and header value is masked; in free text only these are replaced, so `production` or `true` stay
 * readable.)
 */
export function secretsOf(config: ServerConfig): string[] {
  const secrets: string[] = [];
  const named = config.transport === 'stdio' ? config.env : config.headers;
  for (const [name, value] of Object.entries(named ?? {})) {
    if (isSecret(name, value)) secrets.push(value);
    // "Bearer abc…": the credential alone may appear elsewhere too.
    const scheme = /^\w+ (\S{4,})$/.exec(value);
    if (scheme?.[1] && isSecret(name, value)) secrets.push(scheme[1]);
  }
  if (config.transport !== 'stdio') {
    try {
      const url = new URL(config.url);
      for (const value of [url.username, url.password, ...url.searchParams.values()]) {
        if (value.length >= 4) secrets.push(value);
      }
    } catch {
      // an unparsable URL carries nothing to hide
    }
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...new Set(secrets)].sort((a, b) => b.length - a.length);
}

/** Replaces every secret in a text bound for an error or a log line. */
export function redact(text: string, secrets: string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret)) result = result.split(secret).join('********');
  }
  return result;
}

/** The same for a JSON value: strings are redacted in place, the structure is kept. */
export function redactJson<T>(value: T, secrets: string[]): T {
  if (typeof value === 'string') return redact(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item) => redactJson(item, secrets)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactJson(item, secrets)]),
    ) as T;
  }
  return value;
}
