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
 * The same for a JSON value: strings are redacted, keys as well as values, and the structure is kept.
 * Copy on write: a value with nothing to redact comes back as it is, and only the objects and arrays on
 * the way to a redacted string are copied, so a large message without secrets costs a walk and no
 * allocation (and nothing at all when the server has no secret).
 */
export function redactJson<T>(value: T, secrets: string[]): T {
  return secrets.length === 0 ? value : redactWalk(value, secrets);
}

function redactWalk<T>(value: T, secrets: string[]): T {
  if (typeof value === 'string') return redact(value, secrets) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const redacted = redactWalk(item, secrets);
      if (redacted !== item) {
        copy ??= value.slice();
        copy[i] = redacted;
      }
    }
    return (copy ?? value) as T;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    for (let i = 0; i < entries.length; i++) {
      const [key, item] = entries[i]!;
      const newKey = redact(key, secrets);
      const newItem = redactWalk(item, secrets);
      if (newKey !== key || newItem !== item) return rebuilt(entries, i, [newKey, newItem], secrets) as T;
    }
    return value;
  }
  return value;
}

/** An object whose entry `at` (and maybe later ones) changed: entries before it kept, the rest redacted. */
function rebuilt(
  entries: Array<[string, unknown]>,
  at: number,
  changed: [string, unknown],
  secrets: string[],
): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  const put = (key: string, item: unknown): void => {
    // Two keys masked alike both stay: the second is "******** (2)".
    let unique = key;
    for (let n = 2; Object.hasOwn(copy, unique); n++) unique = `${key} (${n})`;
    // Defined, not assigned: a key "__proto__" (JSON.parse makes it an own property) stays a key.
    Object.defineProperty(copy, unique, {
      value: item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  };
  for (let i = 0; i < at; i++) put(...entries[i]!);
  put(...changed);
  for (let i = at + 1; i < entries.length; i++) {
    const [key, item] = entries[i]!;
    put(redact(key, secrets), redactWalk(item, secrets));
  }
  return copy;
}
