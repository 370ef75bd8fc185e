/**
 * A random id. `crypto.randomUUID` exists only in secure contexts; the web page opened over plain HTTP
 * from another host (a daemon started with --host) is not one, but getRandomValues works everywhere.
 */
export function newId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join(
    '',
  );
}
