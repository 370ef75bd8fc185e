import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export type MessageLogger = (direction: 'send' | 'receive', message: JSONRPCMessage) => void;

/** Wraps any transport so every JSON-RPC message, both ways, reaches the log bus exactly as it travelled. */
export class LoggingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The protocol version the client negotiated during initialize. */
  protocolVersion?: string;

  constructor(
    readonly inner: Transport,
    private readonly log: MessageLogger,
  ) {
    inner.onmessage = (message) => {
      this.log('receive', message);
      // The SDK handles notifications a microtask later but responses at once, and a response drops its
      // request's progress handler: a final progress read in the same chunk as the result would be lost
      // (typescript-sdk#2580). Handing responses over a microtask later keeps the server's order.
      if ('id' in message && !('method' in message)) queueMicrotask(() => this.onmessage?.(message));
      else this.onmessage?.(message);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.log('send', message);
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.inner.setProtocolVersion?.(version);
  }
}
