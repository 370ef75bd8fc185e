import {
  type FetchLike,
  type OAuthClientProvider,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import type { RemoteServerConfig, ServerConfig } from '../../../shared/servers.ts';
import { eventCheckingFetch, type UnreadableEvent } from './event-check.ts';
import { HeldMessages } from './held-messages.ts';
import { answerReadingFetch } from './remote-answer.ts';
import { markRecording, recordingFetch } from './sent-headers.ts';
import { sizeLimitedFetch } from './size-limited-fetch.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, StdioTransport, type StdioTransportOptions } from './stdio-transport.ts';
import { WebSocketTransport } from './websocket-transport.ts';

/**
 * The URL and headers a remote server is reached with. `fetch` refuses a URL with userinfo, so
 * `https://user:pass@host/mcp` becomes the bare URL plus Basic credentials, unless the config sets
 * its own Authorization header.
 */
export function remoteEndpoint(config: RemoteServerConfig): { url: URL; headers: Record<string, string> } {
  const url = new URL(config.url);
  const headers = { ...config.headers };
  if (url.username || url.password) {
    const hasAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
    if (!hasAuthorization) {
      const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      headers.Authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    url.username = '';
    url.password = '';
  }
  return { url, headers };
}

/** How the Streamable HTTP transport resumes a stream (the SDK's defaults), which event-check.ts counts on. */
const RECONNECTION = {
  initialReconnectionDelay: 1000,
  maxReconnectionDelay: 30_000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

/** What a connection hears from its transport besides messages. */
export interface TransportOptions extends StdioTransportOptions {
  /** An HTTP or SSE server's event that is no JSON-RPC message, and the calls it fails (event-check.ts). */
  onUnreadableEvent?: (event: UnreadableEvent) => void;
}

/** The SDK transport for a config; throws (a URL that cannot be parsed) rather than returning half a transport. */
export function createTransport(
  config: ServerConfig,
  stdio: TransportOptions = {},
  /** OAuth for an HTTP or SSE server with `auth` settings (daemon/oauth). */
  authProvider?: OAuthClientProvider,
  /** What an HTTP or SSE transport fetches with, when not the global fetch (the auth debugger's). */
  baseFetch?: FetchLike,
): Transport {
  if (config.transport === 'stdio') return new StdioTransport(config, stdio);
  const { url, headers } = remoteEndpoint(config);
  // The log shows the MCP headers each message's POST carried (sent-headers.ts); every message is held
  // to the size limit (size-limited-fetch.ts); a JSON answer that does not parse says so (remote-answer.ts),
  // and so does an event that is no JSON-RPC message (event-check.ts, after the limit: it holds an event).
  // A JSON-RPC message the SDK's strict parse refuses in either is held, and handed on as it came
  // (held-messages.ts): LoggingTransport answers it, as it does a STDIO line.
  const limit = stdio.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const held = new HeldMessages();
  const limited = sizeLimitedFetch(recordingFetch(headers, baseFetch), limit, (error) =>
    stdio.onMessageTooLarge?.(error),
  );
  const unreadable = (event: UnreadableEvent) => stdio.onUnreadableEvent?.(event);
  // A Streamable HTTP POST that carries a request and whose answer holds no response to it, where none
  // can come later, fails that request (posted-requests.ts): a JSON body in answerReadingFetch, an event
  // stream that ended in eventCheckingFetch, which also sees the transport's resumptions of a stream.
  const fetch = answerReadingFetch(
    config.transport === 'websocket'
      ? limited
      : eventCheckingFetch(limited, config.transport, unreadable, held, RECONNECTION.maxRetries),
    url,
    held,
    config.transport === 'http'
      ? (requests, error) => unreadable({ error, fails: [...requests.keys()], logged: true })
      : undefined,
  );
  switch (config.transport) {
    case 'sse':
      return held.install(
        markRecording(new SSEClientTransport(url, { requestInit: { headers }, authProvider, fetch })),
      );
    case 'http':
      return held.install(
        markRecording(
          new StreamableHTTPClientTransport(url, {
            requestInit: { headers },
            authProvider,
            fetch,
            reconnectionOptions: RECONNECTION,
          }),
        ),
      );
    case 'websocket':
      return new WebSocketTransport(
        url,
        headers,
        limit,
        (error) => stdio.onMessageTooLarge?.(error),
        (event) => stdio.onUnreadableEvent?.(event),
      );
  }
}
