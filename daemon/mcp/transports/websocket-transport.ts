import { type JSONRPCMessage, parseJSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import type WebSocket from 'ws';

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
  ) {}

  async start(): Promise<void> {
    if (this.socket) throw new Error('The WebSocket transport was already started');
    // Loaded when a WebSocket server connects, as the live channel loads it when a client does.
    const { WebSocket } = await import('ws');
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, SUBPROTOCOL, { headers: this.headers });
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
      socket.on('error', (error) => {
        if (!open) reject(error);
        this.onerror?.(error);
      });
      socket.on('close', () => {
        if (open) this.onclose?.();
      });
      socket.on('message', (data) => {
        let message: JSONRPCMessage;
        try {
          const text = Array.isArray(data)
            ? Buffer.concat(data).toString('utf8')
            : Buffer.from(data as ArrayBuffer).toString('utf8');
          message = parseJSONRPCMessage(JSON.parse(text));
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        this.onmessage?.(message);
      });
    });
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
