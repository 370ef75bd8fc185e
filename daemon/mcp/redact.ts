import { OAUTH_SECRET_FIELDS } from '../../shared/oauth.ts';
import type { ServerConfig } from '../../shared/servers.ts';

/** Shorter values are masked on the wire but not replaced in free text, where "1" or "on" would be everywhere. */
const MIN_REDACTED_LENGTH = 4;

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The strings of a server's config that must never show in an error, a log line or the log stream:
 * every env and header value (a credential's name is no guide: `DATABASE_URL` holds a password), the
 * credential of a `Scheme credential` header on its own, and a URL's userinfo and query values.
 */
export function secretsOf(config: ServerConfig): string[] {
  const secrets: string[] = [];
  const named = config.transport === 'stdio' ? config.env : config.headers;
  for (const value of Object.values(named ?? {})) {
    secrets.push(value);
    // "Bearer abc…": the credential alone may appear elsewhere too.
    const scheme = /^\w+ (\S+)$/.exec(value);
    if (scheme?.[1]) secrets.push(scheme[1]);
  }
  if (config.transport !== 'stdio') {
    for (const field of OAUTH_SECRET_FIELDS) {
      const value = config.auth?.[field];
      if (value) secrets.push(value);
    }
    try {
      const url = new URL(config.url);
      for (const value of [url.username, url.password, ...url.searchParams.values()]) {
        secrets.push(value, decoded(value));
      }
      // A short user name alone is too common a word to replace everywhere; as userinfo it is not.
      if (url.username) secrets.push(`${url.username}:`, `${url.username}@`, `${decoded(url.username)}:`);
    } catch {
      // an unparsable URL carries nothing to hide
    }
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...new Set(secrets)]
    .filter((secret) => secret.length >= MIN_REDACTED_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/** Replaces every secret in a text bound for an error or a log line. */
export function redact(text: string, secrets: string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret)) result = result.split(secret).join('********');
  }
  return result;
}

/**
 * The same for a JSON value: strings are redacted, the structure is kept. Copy on write: a value with
 * nothing to redact comes back as it is, and only the objects and arrays on the way to a redacted string
 * are copied, so a large message without secrets costs a walk and no allocation.
 */
export function redactJson<T>(value: T, secrets: string[]): T {
  if (typeof value === 'string') return redact(value, secrets) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const redacted = redactJson(item, secrets);
      if (redacted !== item) {
        copy ??= value.slice();
        copy[i] = redacted;
      }
    }
    return (copy ?? value) as T;
  }
  if (value && typeof value === 'object') {
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const redacted = redactJson(item, secrets);
      if (redacted !== item) {
        copy ??= { ...(value as Record<string, unknown>) };
        // Defined, not assigned: a key "__proto__" (JSON.parse makes it an own property) stays a key.
        Object.defineProperty(copy, key, {
          value: redacted,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return (copy ?? value) as T;
  }
  return value;
}
