/** How the resource viewer shows each item of a `resources/read` result's `contents`. */

export type ContentKind = 'text' | 'markdown' | 'json' | 'image' | 'audio' | 'binary' | 'unknown';

export interface ResourceItem {
  uri?: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: unknown;
  [key: string]: unknown;
}

/** `text/markdown; charset=utf-8` → `text/markdown`. */
export function baseMimeType(mimeType: unknown): string {
  return typeof mimeType === 'string' ? (mimeType.split(';')[0] ?? '').trim().toLowerCase() : '';
}

const MARKDOWN = new Set(['text/markdown', 'text/x-markdown']);

function isJsonMime(mime: string): boolean {
  return mime === 'application/json' || mime === 'text/json' || mime.endsWith('+json');
}

/** The text as pretty-printed JSON, or undefined when it does not parse. */
export function prettyJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}

/**
 * Text items by MIME type (Markdown, JSON, else plain; text without a type that is a JSON object or array
 * is shown as JSON); blobs as image, audio or other binary.
 */
export function contentKind(item: ResourceItem): ContentKind {
  const mime = baseMimeType(item.mimeType);
  if (typeof item.text === 'string') {
    if (MARKDOWN.has(mime)) return 'markdown';
    const looksJson = isJsonMime(mime) || (!mime && /^\s*[[{]/.test(item.text));
    return looksJson && prettyJson(item.text) !== undefined ? 'json' : 'text';
  }
  if (typeof item.blob === 'string') {
    if (mime.startsWith('image/')) return 'image';
    if (mime.startsWith('audio/')) return 'audio';
    return 'binary';
  }
  return 'unknown';
}

/** The number of bytes a base64 string decodes to. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

export function formatSize(bytes: number): string {
  const exact = `${bytes.toLocaleString('en-US')} bytes`;
  if (bytes < 1024) return exact;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB (${exact})`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB (${exact})`;
}

export function base64ToBytes(data: string): Uint8Array<ArrayBuffer> {
  const binary = atob(data.replace(/\s/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A blob's content as text when its MIME type is textual (and it is valid UTF-8), else undefined. */
export function blobText(item: ResourceItem): string | undefined {
  const mime = baseMimeType(item.mimeType);
  if (typeof item.blob !== 'string' || !(mime.startsWith('text/') || isJsonMime(mime))) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(item.blob));
  } catch {
    return undefined;
  }
}

/** The last path segment of a URI as a file name (`file:///a/report.pdf?x=1` → `report.pdf`). */
export function fileNameFromUri(uri: string | undefined): string {
  const path = (uri ?? '').replace(/[?#].*$/, '').replace(/\/+$/, '');
  const segment = path.slice(path.lastIndexOf('/') + 1).replace(/^[a-z][a-z0-9+.-]*:/i, '');
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // A malformed escape: keep the segment as written.
  }
  // Characters file systems refuse, and control characters, become `_`.
  name = [...name]
    .map((char) => (char < ' ' || '\\/:*?"<>|'.includes(char) ? '_' : char))
    .join('')
    .trim();
  return name || 'resource';
}

/** `HH:MM:SS` in local time. */
export function clockTime(timestamp: number): string {
  const date = new Date(timestamp);
  return [date.getHours(), date.getMinutes(), date.getSeconds()]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');
}
