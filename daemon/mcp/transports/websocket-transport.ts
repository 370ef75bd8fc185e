import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type WebSocket from 'ws';
import { type UnreadableEvent, unreadableEvent } from './event-check.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from './message-limit.ts';
import { isJsonRpcShaped, MessageTooLargeError } from './stdio-transport.ts';

const WEBSOCKET = { what: 'WebSocket message', stream: 'WebSocket' };

/** The WebSocket subprotocol MCP servers answer on. */
const SUBPROTOCOL = 'mcp';

/**
 * MCP over a WebSocket (one JSON-RPC message per text frame, subprotocol `mcp`). SDK v2 no longer ships
 * a client WebSocket transport, so the daemon keeps its own. The server's headers go with the upgrade
 * request, as they go with every request of the HTTP transports.
 */
export class WebSocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private socket?: WebSocket;

  constructor(
    private readonly url: URL,
    private readonly headers: Record<string, string> = {},
    /** The largest message the server may send (its frames together); past it the connection is reset. */
    private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
    private readonly onMessageTooLarge?: (error: MessageTooLargeError) => void,
    /**
     * A message that is no JSON, or no JSON-RPC message: the call it answers fails at once (the one its
     * id names, else every call waiting, as none can be told), where it waited for its time-out.
     */
    private readonly onUnreadable?: (event: UnreadableEvent) => void,
  ) {}

  async start(): Promise<void> {
    if (this.socket) throw new Error('The WebSocket transport was already started');
    // Loaded when a WebSocket server connects, as the live channel loads it when a client does.
    const { WebSocket } = await import('ws');
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, SUBPROTOCOL, {
        headers: this.headers,
        maxPayload: this.maxMessageBytes,
      });
      this.socket = socket;
      let open = false;
      socket.on('open', () => {
        open = true;
        resolve();
      });
      socket.on('unexpected-response', (_request, response) => {
        const error = new Error(`Unexpected server response: HTTP ${response.statusCode}`);
        (error as Error & { code?: number }).code = response.statusCode;
        response.resume();
        socket.terminate();
        reject(error);
      });
      socket.on('error', (error: Error & { code?: string }) => {
        if (!open) reject(error);
        if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
          // ws refused a message past maxPayload by the length its frames give, before reading it, and
          // closes the connection (1009): it is reset as an HTTP server's is, the call failing with why.
          const tooLarge = new MessageTooLargeError(undefined, this.maxMessageBytes);
          this.onMessageTooLarge?.(tooLarge);
          this.onerror?.(tooLarge);
          return;
        }
        this.onerror?.(error);
      });
      socket.on('close', () => {
        if (open) this.onclose?.();
      });
      socket.on('message', (data) => {
        const text = Array.isArray(data)
          ? Buffer.concat(data).toString('utf8')
          : Buffer.from(data as ArrayBuffer).toString('utf8');
        let message: unknown;
        try {
          message = JSON.parse(text);
        } catch (error) {
          this.unreadable(unreadableEvent(text, { problem: (error as Error).message }, 'pending', WEBSOCKET));
          return;
        }
        // Checked as a STDIO line is, not against the SDK's schemas: a request that breaks them is still
        // a request, which LoggingTransport answers with an error saying what is wrong, where the
        // schemas' refusal left it unanswered and the server waiting for ever.
        if (!isJsonRpcShaped(message)) {
          this.unreadable(unreadableEvent(text, { parsed: message }, 'pending', WEBSOCKET));
          return;
        }
        this.onmessage?.(message);
      });
    });
  }

  private unreadable(event: UnreadableEvent): void {
    if (this.onUnreadable) this.onUnreadable(event);
    else this.onerror?.(event.error);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.readyState !== socket.OPEN) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve, reject) => {
      socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.readyState === socket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close();
      // A server that never answers the close frame is not waited for.
      setTimeout(() => {
        socket.terminate();
        resolve();
      }, 1000).unref();
    });
  }
}
