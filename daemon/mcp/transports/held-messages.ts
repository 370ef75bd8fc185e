import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage, JSONRPCNotification, Transport } from '@modelcontextprotocol/client';

/** Messages held at once, at most: one whose stand-in never reaches the transport is forgotten in time. */
const MAX_HELD = 1024;

/**
 * Messages of an HTTP or SSE server's that the SDK's transports would refuse with their strict parse
 * (an `elicitation/create` whose `params` is null, a response with a member too many) and drop, or take
 * for a broken connection: the daemon takes them as it takes a STDIO server's line, so LoggingTransport
 * logs each as received and answers a malformed request, or fails the call a malformed response names.
 *
 * Each stays in its place in the stream (event-check.ts, remote-answer.ts put a stand-in there, a
 * notification the SDK takes), so it reaches the transport's `onmessage` after what the server sent
 * before it and before what it sent after. The stand-in's method holds a random name: a server cannot
 * send one.
 */
export class HeldMessages {
  private readonly method = `inspector/held/${randomUUID()}`;
  private readonly held = new Map<number, JSONRPCMessage>();
  private next = 0;

  /** The stand-in for `message`, a JSON-RPC message (isJsonRpcShaped) the SDK refuses. */
  hold(message: JSONRPCMessage): JSONRPCNotification {
    if (this.held.size >= MAX_HELD) this.held.delete(this.held.keys().next().value as number);
    const key = this.next++;
    this.held.set(key, message);
    return { jsonrpc: '2.0', method: this.method, params: { key } };
  }

  /** Makes `transport` hand the message held in place of each stand-in to whoever takes its messages. */
  install<T extends Transport>(transport: T): T {
    let handler: Transport['onmessage'];
    const onmessage: Transport['onmessage'] = (message, extra) => {
      const held = this.take(message);
      if (held !== null) handler?.(held ?? message, extra);
    };
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      enumerable: true,
      get: () => (handler ? onmessage : undefined),
      set: (value: Transport['onmessage']) => {
        handler = value;
      },
    });
    return transport;
  }

  /** The held message a stand-in stands for (null once forgotten); undefined for any other message. */
  private take(message: JSONRPCMessage): JSONRPCMessage | null | undefined {
    if (!('method' in message) || message.method !== this.method || 'id' in message) return undefined;
    const key = (message.params as { key?: unknown } | undefined)?.key;
    const held = typeof key === 'number' ? this.held.get(key) : undefined;
    if (held === undefined) return null;
    this.held.delete(key as number);
    return held;
  }
}
