/**
 * Client features that the 2026-07-28 revision deprecates. The daemon still declares and answers them;
 * the panel marks them where it shows them for a server on the modern era.
 */
const DEPRECATED_IN_MODERN_ERA: ReadonlySet<string> = new Set(['sampling']);

/** The mark shown beside a deprecated feature. */
export const MODERN_DEPRECATION = 'deprecated in 2026-07-28';

/** Whether the client capability `name` is deprecated on a modern (2026-07-28) connection. */
export function deprecatedInModernEra(name: string): boolean {
  return DEPRECATED_IN_MODERN_ERA.has(name);
}
