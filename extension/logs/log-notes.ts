/**
 * What a log row says besides its method, status and latency: the round of a multi-round call, a list
 * result's cache hint, what a JSON-RPC error code means, the MCP headers a request went out with. All
 * of it is read from messages a server sent, so nothing here is trusted: a value of the wrong type is
 * simply not shown.
 */
import type { RpcLogEntry } from '../../shared/logs.ts';

export interface ErrorMeaning {
  name: string;
  /** One sentence, for a tooltip and the expanded row. */
  detail: string;
}

/**
 * JSON-RPC's codes and MCP's, through the 2026-07-28 revision (the SDK's ProtocolErrorCode, the SEP-2243
 * header mismatch code and the request time-out the daemon reports).
 */
const ERROR_MEANINGS: ReadonlyMap<number, ErrorMeaning> = new Map([
  [-32700, { name: 'Parse error', detail: 'The message was not valid JSON.' }],
  [-32600, { name: 'Invalid request', detail: 'The message is not a valid JSON-RPC request.' }],
  [-32601, { name: 'Method not found', detail: 'The receiver does not offer this method.' }],
  [
    -32602,
    {
      name: 'Invalid params',
      detail: 'The parameters are wrong; at 2026-07-28 also an unknown resource URI.',
    },
  ],
  [-32603, { name: 'Internal error', detail: 'The receiver failed while handling the request.' }],
  [-32001, { name: 'Request timed out', detail: 'No answer came in time; the client gave up waiting.' }],
  [
    -32002,
    {
      name: 'Resource not found',
      detail: 'No resource has this URI (before 2026-07-28, which answers -32602 instead).',
    },
  ],
  [
    -32020,
    {
      name: 'Header mismatch',
      detail:
        'An MCP HTTP header (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) is missing, malformed or disagrees with the body (2026-07-28).',
    },
  ],
  [
    -32021,
    {
      name: 'Missing required client capability',
      detail: 'The request needs a capability the client did not declare (2026-07-28).',
    },
  ],
  [
    -32022,
    {
      name: 'Unsupported protocol version',
      detail: "The server does not support the request's protocol version (2026-07-28).",
    },
  ],
  [
    -32042,
    {
      name: 'URL elicitation required',
      detail: 'The user must first complete an interaction at a URL the server gives (URL elicitation).',
    },
  ],
]);

/** What a JSON-RPC error code means; codes -32000 to -32099 not listed are the server's own. */
export function errorMeaning(code: number): ErrorMeaning | undefined {
  const known = ERROR_MEANINGS.get(code);
  if (known) return known;
  if (Number.isInteger(code) && code <= -32000 && code >= -32099) {
    return { name: 'Server error', detail: 'A code the server defines itself.' };
  }
  return undefined;
}

/** The code of an error response, if the message is one. */
export function errorCodeOf(message: RpcLogEntry['message']): number | undefined {
  const error = typeof message === 'object' ? message.error : undefined;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? code : undefined;
}

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 120) return `${Number(seconds.toFixed(1))} s`;
  const minutes = seconds / 60;
  return minutes < 120 ? `${Number(minutes.toFixed(1))} min` : `${Number((minutes / 60).toFixed(1))} h`;
}

/**
 * A 2026-07-28 cacheable result's hint (`ttlMs`, `cacheScope`), e.g. "ttl 60 s · scope public"; empty
 * when the result has neither.
 */
export function cacheHintText(message: RpcLogEntry['message'] | undefined): string {
  const result = typeof message === 'object' ? message.result : undefined;
  if (typeof result !== 'object' || result === null) return '';
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  const parts: string[] = [];
  if (typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs >= 0)
    parts.push(`ttl ${duration(ttlMs)}`);
  if (typeof cacheScope === 'string' && cacheScope.length <= 40) parts.push(`scope ${cacheScope}`);
  return parts.join(' · ');
}

/** What a request is called in a round's label: its method and the tool, prompt or resource it names. */
export function callLabel(message: RpcLogEntry['message']): string {
  if (typeof message !== 'object') return '';
  const method = typeof message.method === 'string' ? message.method : '';
  const params = message.params as { name?: unknown; uri?: unknown } | undefined;
  const target =
    typeof params?.name === 'string' ? params.name : typeof params?.uri === 'string' ? params.uri : '';
  return target ? `${method} ${target}` : method;
}

/** The MCP headers a request went out with, one `name: value` a line; empty when it carried none. */
export function headerLines(headers: Record<string, unknown> | undefined): string {
  if (!headers) return '';
  return Object.entries(headers)
    .filter((pair): pair is [string, string] => typeof pair[1] === 'string')
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}

/** About how big a message is that the replay sent cut (shared/logs.ts `cut`), e.g. `about 1.9 MiB`. */
export function aboutSize(weight: number): string {
  const mib = 1024 * 1024;
  return weight >= mib ? `about ${(weight / mib).toFixed(1)} MiB` : `about ${Math.ceil(weight / 1024)} KiB`;
}
