/**
 * What a command prints on stdout: JSON for scripts (the default when stdout is not a terminal), or
 * readable text for a person (the default on a terminal); `--json` and `--pretty` choose.
 */
import type { JsonObject } from '../../shared/api.ts';
import { usageError } from './failure.ts';
import { terminalSafe } from './terminal-safe.ts';

export type OutputMode = 'json' | 'pretty';

export function outputMode(
  values: { json?: unknown; pretty?: unknown },
  terminal = process.stdout.isTTY === true,
): OutputMode {
  if (values.json && values.pretty) throw usageError('give --json or --pretty, not both');
  if (values.json) return 'json';
  if (values.pretty) return 'pretty';
  return terminal ? 'pretty' : 'json';
}

/** Prints `value` as JSON, or as the readable text `readable` makes of it (control characters escaped). */
export function print<T>(mode: OutputMode, value: T, readable: (value: T) => string): void {
  process.stdout.write(
    mode === 'json' ? `${JSON.stringify(value, null, 2)}\n` : `${terminalSafe(readable(value))}\n`,
  );
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const firstLine = (value: unknown): string => str(value).split('\n')[0]?.trim() ?? '';
const objects = (value: unknown): JsonObject[] =>
  Array.isArray(value) ? value.filter((v): v is JsonObject => typeof v === 'object' && v !== null) : [];

/** Rows of columns, each column as wide as its widest cell; the last column is not padded. */
function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '),
    )
    .join('\n');
}

const orNone = (text: string, what: string): string => text || `(no ${what})`;

export function readableTools(tools: JsonObject[]): string {
  return orNone(table(tools.map((t) => [str(t.name), firstLine(t.description)])), 'tools');
}

export function readableResources(resources: JsonObject[]): string {
  return orNone(
    table(resources.map((r) => [str(r.uri), str(r.name), str(r.mimeType) && `(${str(r.mimeType)})`])),
    'resources',
  );
}

export function readablePrompts(prompts: JsonObject[]): string {
  return orNone(
    table(
      prompts.map((p) => {
        const args = objects(p.arguments).map((a) => `${str(a.name)}${a.required ? '' : '?'}`);
        return [`${str(p.name)}(${args.join(', ')})`, firstLine(p.description)];
      }),
    ),
    'prompts',
  );
}

/** One content block of a tool result, a prompt message or a resource: text as it is, the rest named. */
function readableContent(block: JsonObject): string {
  switch (block.type) {
    case 'text':
      return str(block.text);
    case 'image':
    case 'audio':
      return `[${block.type} ${str(block.mimeType)}, ${Math.floor((str(block.data).length * 3) / 4)} bytes]`;
    case 'resource_link':
      return `[link ${str(block.uri)}${block.name ? ` ${str(block.name)}` : ''}]`;
    case 'resource': {
      const resource = (block.resource ?? {}) as JsonObject;
      return `[resource ${str(resource.uri)}]\n${readableResourceContent(resource)}`;
    }
    default:
      return JSON.stringify(block, null, 2);
  }
}

function readableResourceContent(content: JsonObject): string {
  if (typeof content.text === 'string') return content.text;
  return `[blob ${str(content.mimeType)}, ${Math.floor((str(content.blob).length * 3) / 4)} bytes]`;
}

export function readableToolResult(result: JsonObject): string {
  const parts = objects(result.content).map(readableContent);
  if (result.structuredContent !== undefined) {
    parts.push(`structuredContent:\n${JSON.stringify(result.structuredContent, null, 2)}`);
  }
  const text = parts.join('\n') || '(no content)';
  return result.isError === true ? `Error (isError):\n${text}` : text;
}

export function readableResource(result: JsonObject): string {
  return objects(result.contents)
    .map((c) => `${str(c.uri)}${c.mimeType ? ` (${str(c.mimeType)})` : ''}\n${readableResourceContent(c)}`)
    .join('\n\n');
}

export function readablePrompt(result: JsonObject): string {
  const head = str(result.description) ? [str(result.description), ''] : [];
  const messages = objects(result.messages).map(
    (m) => `${str(m.role)}: ${readableContent((m.content ?? {}) as JsonObject)}`,
  );
  return [...head, ...messages].join('\n');
}
