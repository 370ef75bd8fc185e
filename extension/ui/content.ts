import { escapeHidden } from './hidden-text';
import type { InjectionKey } from 'vue';

/**
 * Opens a resource URI in the Resources view (the panel), or in the full inspector (the popup). Views
 * that can do so provide it; a resource link elsewhere is shown as text.
 */
export const OPEN_RESOURCE: InjectionKey<(uri: string) => void> = Symbol('open-resource');

/** How many characters of a text are shown before "Show all": a megabyte of text would stall the view. */
export const TEXT_LIMIT = 50_000;

export type Item = Record<string, unknown>;

export function asItem(value: unknown): Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Item) : {};
}

export function str(item: Item, key: string): string | undefined {
  const value = item[key];
  return typeof value === 'string' ? value : undefined;
}

export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** How long a JSON text may be and still be indented: past it, it is shown on one line, as it came. */
export const PRETTY_LIMIT = TEXT_LIMIT * 20;

/**
 * A server's (or a widget's, or a page's) value as JSON text to show: indented when its JSON is up to
 * PRETTY_LIMIT characters, else on one line; a value JSON cannot write (a cycle, a BigInt from a
 * widget's message) as String gives it. Characters that would hide in its strings (hidden-text.ts) are
 * written as `\u` escapes, which JSON reads as the same characters.
 */
export function prettyWithin(value: unknown): string {
  let compact: string | undefined;
  try {
    compact = JSON.stringify(value);
  } catch {
    return String(value);
  }
  if (compact === undefined) return String(value);
  return escapeHidden(compact.length > PRETTY_LIMIT ? compact : JSON.stringify(value, null, 2));
}

const MIME = /^[a-z]+\/[a-z0-9.+-]+$/i;

/**
 * The MIME type when it is a well-formed one of `kind` (`image`, `audio`; `''` for any), else undefined:
 * what a server sends goes into a data: URL, so nothing but a type/subtype may stand there.
 */
export function mediaMime(mimeType: unknown, kind: string): string | undefined {
  if (typeof mimeType !== 'string') return undefined;
  const base = (mimeType.split(';')[0] ?? '').trim().toLowerCase();
  return MIME.test(base) && (!kind || base.startsWith(`${kind}/`)) ? base : undefined;
}

/** A data: URL of base64 data; only base64 characters are kept, so the URL cannot be anything else. */
export function dataUrl(mimeType: unknown, data: unknown): string {
  const base64 = typeof data === 'string' ? data.replace(/[^A-Za-z0-9+/=]/g, '') : '';
  return `data:${mediaMime(mimeType, '') ?? 'application/octet-stream'};base64,${base64}`;
}
