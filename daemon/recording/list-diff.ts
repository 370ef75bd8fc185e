/**
 * What changed between a recording's listings (tools, resources, prompts) and a live server's: items
 * added, removed, and changed with the fields that differ (`description`,
 * `inputSchema.properties.count.type`, `arguments[topic].required`…). Pure.
 */
import type { Exchange } from '../../shared/session-file.ts';
import { canonical } from './matcher.ts';

type Item = Record<string, unknown>;

export const KINDS = [
  { kind: 'tools', method: 'tools/list', key: 'tools', id: 'name', label: 'tool' },
  { kind: 'resources', method: 'resources/list', key: 'resources', id: 'uri', label: 'resource' },
  { kind: 'prompts', method: 'prompts/list', key: 'prompts', id: 'name', label: 'prompt' },
] as const;

export type Kind = (typeof KINDS)[number]['kind'];
export type Listings = Partial<Record<Kind, Item[]>>;

export interface Change {
  /** The tool's or prompt's name, the resource's URI. */
  id: string;
  /** The fields that differ, as paths into the item. */
  fields: string[];
}

export interface KindDiff {
  added: string[];
  removed: string[];
  changed: Change[];
}

export type ListDiff = Partial<Record<Kind, KindDiff>>;

/** A recorded listing diff cannot compare: not a list, or an entry without its name (or URI). */
export class ListingProblem extends Error {}

const isItem = (value: unknown): value is Item =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The last complete listing of each kind in a recording (a listing starts with a request without cursor). */
export function recordedListings(recorded: Exchange[]): Listings {
  const listings: Listings = {};
  for (const { kind, method, key, id, label } of KINDS) {
    let items: Item[] | undefined;
    for (const exchange of recorded) {
      if (exchange.method !== method || !exchange.result) continue;
      if (!exchange.params?.cursor || !items) items = [];
      const page: unknown = exchange.result[key];
      if (page === undefined) continue;
      if (!Array.isArray(page))
        throw new ListingProblem(`its ${method} answer has a "${key}" that is no list`);
      const bad = page.findIndex((item) => !isItem(item) || typeof item[id] !== 'string');
      if (bad >= 0) {
        throw new ListingProblem(
          `its ${method} answer lists ${JSON.stringify(page[bad])?.slice(0, 80) ?? 'nothing'} (entry ${bad}), not a ${label} with a "${id}"`,
        );
      }
      items.push(...(page as Item[]));
    }
    if (items) listings[kind] = items;
  }
  return listings;
}

/** Compares each kind the recording listed with the live listing of it. */
export function diffListings(recorded: Listings, live: Listings): ListDiff {
  const diff: ListDiff = {};
  for (const { kind, id } of KINDS) {
    const before = recorded[kind];
    if (before) diff[kind] = diffItems(before, live[kind] ?? [], id);
  }
  return diff;
}

export function hasDifferences(diff: ListDiff): boolean {
  return Object.values(diff).some(
    (kind) => kind.added.length + kind.removed.length + kind.changed.length > 0,
  );
}

/** One line per difference, or that there is none. */
export function describeDiff(diff: ListDiff): string {
  const lines: string[] = [];
  for (const { kind, label } of KINDS) {
    const changes = diff[kind];
    if (!changes) continue;
    for (const id of changes.added) lines.push(`+ ${label} ${id}: added`);
    for (const id of changes.removed) lines.push(`- ${label} ${id}: removed`);
    for (const change of changes.changed)
      lines.push(`~ ${label} ${change.id}: ${change.fields.join(', ')} changed`);
  }
  const compared = KINDS.filter(({ kind }) => diff[kind]).map(({ label }) => `${label}s`);
  if (!lines.length) return `no differences in ${compared.join(', ')}`;
  const count = `${lines.length} difference${lines.length === 1 ? '' : 's'}`;
  return `${lines.join('\n')}\n${count} in ${compared.join(', ')}`;
}

function diffItems(before: Item[], after: Item[], idKey: string): KindDiff {
  // A live server may list anything: what is no object is left out of the comparison.
  const byId = (items: Item[]): Map<string, Item> =>
    new Map(items.filter(isItem).map((item) => [String(item[idKey]), item]));
  const old = byId(before);
  const now = byId(after);
  const changed: Change[] = [];
  for (const [id, item] of now) {
    const previous = old.get(id);
    if (!previous) continue;
    const fields = pathsThatDiffer(previous, item, '');
    if (fields.length) changed.push({ id, fields });
  }
  return {
    added: [...now.keys()].filter((id) => !old.has(id)),
    removed: [...old.keys()].filter((id) => !now.has(id)),
    changed,
  };
}

const isObject = (value: unknown): value is Item =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A list whose entries all have a distinct name (prompt arguments, icons by src…) is compared by name. */
function byName(list: unknown[]): Map<string, unknown> | undefined {
  const named = new Map<string, unknown>();
  for (const entry of list) {
    const name = isObject(entry) ? entry.name : undefined;
    if (typeof name !== 'string' || named.has(name)) return undefined;
    named.set(name, entry);
  }
  return named;
}

/** The paths under `path` where `a` and `b` differ: into objects and named lists, whole otherwise. */
function pathsThatDiffer(a: unknown, b: unknown, path: string): string[] {
  if (canonical({ v: a }) === canonical({ v: b })) return [];
  const at = (key: string): string => (path ? `${path}.${key}` : key);
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((key) => pathsThatDiffer(a[key], b[key], at(key)));
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const old = byName(a);
    const now = byName(b);
    if (old && now && path) {
      const names = [...new Set([...old.keys(), ...now.keys()])];
      return names.flatMap((name) => pathsThatDiffer(old.get(name), now.get(name), `${path}[${name}]`));
    }
  }
  return [path || '(whole item)'];
}
