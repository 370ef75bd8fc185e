import type { ServerConfig } from '../../shared/servers.ts';

const MIN_SECRET_LENGTH = 4;

/** The secret strings of a server's config: env and header values, and URL credentials and query values. */
export function secretsOf(config: ServerConfig): string[] {
  const secrets: string[] = [];
  if (config.transport === 'stdio') {
    secrets.push(...Object.values(config.env ?? {}));
  } else {
    secrets.push(...Object.values(config.headers ?? {}));
    try {
      const url = new URL(config.url);
      secrets.push(url.username, url.password, ...url.searchParams.values());
    } catch {
      // an unparsable URL carries nothing to hide
    }
  }
  // Longest first, so a secret that contains another is replaced whole.
  return secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** Replaces every secret of the config in a text bound for an error, a log line or the log stream. */
export function redact(text: string, secrets: string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret)) result = result.split(secret).join('********');
  }
  return result;
}
