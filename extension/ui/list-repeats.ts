/**
 * Names a server lists more than once. MCP calls a tool or prompt by its name, a resource by its URI and
 * a template by its URI template, so a list must not repeat one; a hostile or broken server may. Every
 * item is shown and selected by its position, and a repeated one says so (RepeatBadge.vue).
 */

/** How many times each key is listed, for the keys listed more than once only. */
export function repeatedKeys<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    const key = keyOf(item);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [key, count] of counts) if (count < 2) counts.delete(key);
  return counts;
}

/** The position in `items` of the item at `index` if it is still called `key`, else the first so called. */
export function positionOf<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  key: string | null,
  index: number | null,
): number | null {
  if (key === null) return null;
  const held = index === null ? undefined : items[index];
  if (held !== undefined && keyOf(held) === key) return index;
  const first = items.findIndex((item) => keyOf(item) === key);
  return first < 0 ? null : first;
}

/**
 * Where something kept per item (a form's values) is kept: under the item's key, and for a key listed
 * more than once (whose items may differ, as two tools of one name may have different schemas) under
 * its position as well, so each listed item keeps its own.
 */
export function keptKey(key: string, position: number | null, repeats: ReadonlyMap<string, number>): string {
  return position !== null && repeats.has(key) ? `${position}\u0000${key}` : key;
}
