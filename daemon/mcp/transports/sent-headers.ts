import { AsyncLocalStorage } from 'node:async_hooks';
import type { FetchLike, Transport } from '@modelcontextprotocol/client';

/**
 * The MCP headers an HTTP transport really sent with a message. The SDK's HTTP transports derive them
 * as they POST (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` from the message, `Mcp-Param-*` from
 * the call's options, `Mcp-Session-Id` from the connection), so they are read off the POST itself: the
 * transport is given a `fetch` that reports the headers of the first POST made while sending a message
 * to whoever is waiting for them (LoggingTransport).
 */
export type HeadersListener = (headers: Record<string, string>) => void;

const sending = new AsyncLocalStorage<{ listener?: HeadersListener }>();
/** Transports made with a recording fetch: their sends are logged once the POST goes out. */
const recording = new WeakSet<Transport>();

/** Headers of the MCP protocol: every other header is the config's or a credential, never logged. */
const MCP_HEADER = /^mcp-/;

/** The MCP headers of a POST, names in lower case, less those the server's config sets itself. */
export function mcpHeaders(
  init: RequestInit | undefined,
  configured: ReadonlySet<string>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    if (MCP_HEADER.test(name) && !configured.has(name)) headers[name] = value;
  });
  return headers;
}

/** A `fetch` for an SDK HTTP transport that reports each sent message's MCP headers (see above). */
export function recordingFetch(
  configHeaders: Record<string, string> | undefined,
  base: FetchLike = fetch,
): FetchLike {
  const configured = new Set(Object.keys(configHeaders ?? {}).map((name) => name.toLowerCase()));
  return (url, init) => {
    const slot = sending.getStore();
    if (slot?.listener && init?.method === 'POST') {
      const listener = slot.listener;
      // The first POST is the message's; an OAuth retry or a token request made meanwhile is not.
      slot.listener = undefined;
      listener(mcpHeaders(init, configured));
    }
    return base(url, init);
  };
}

/** Marks a transport as one whose `fetch` is `recordingFetch`. */
export function markRecording<T extends Transport>(transport: T): T {
  recording.add(transport);
  return transport;
}

export function isRecording(transport: Transport): boolean {
  return recording.has(transport);
}

/**
 * Sends a message through a recording transport; `listener` hears the headers of its POST, at most once,
 * just before the POST goes out. A send that makes no POST (a resumed stream) never calls it.
 */
export function sendRecording<T>(send: () => Promise<T>, listener: HeadersListener): Promise<T> {
  return sending.run({ listener }, send);
}
