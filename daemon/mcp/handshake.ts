import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { HANDSHAKE_MAX_BYTES, type ProtocolEra, type ServerHandshake } from '../../shared/servers.ts';
import { redactJson } from './redact.ts';

type HandshakeMethod = ServerHandshake['method'];

/** The request that settles each era: the server record shows its result. */
const METHOD_OF_ERA: Record<ProtocolEra, HandshakeMethod> = {
  modern: 'server/discover',
  legacy: 'initialize',
};

function isHandshakeMethod(method: string): method is HandshakeMethod {
  return method === 'server/discover' || method === 'initialize';
}

/**
 * Keeps the raw results of the handshake requests as they pass the logging transport: the SDK keeps
 * only what it parsed (and no `initialize` result at all). Era auto may send both requests, a probe
 * that fails and the `initialize` after it, so each method's last result is kept and the negotiated
 * era picks one. One capture per connection attempt.
 */
export class HandshakeCapture {
  private readonly pending = new Map<string | number, HandshakeMethod>();
  private readonly results = new Map<HandshakeMethod, unknown>();

  readonly observe = (direction: 'send' | 'receive', message: JSONRPCMessage): void => {
    if (direction === 'send') {
      if ('method' in message && 'id' in message && isHandshakeMethod(message.method)) {
        this.pending.set(message.id, message.method);
      }
      return;
    }
    if (!('id' in message) || 'method' in message || message.id === undefined) return;
    const method = this.pending.get(message.id);
    if (!method) return;
    this.pending.delete(message.id);
    if ('result' in message) this.results.set(method, message.result);
  };

  /** The result of the request that settled `era`, secrets masked, kept whole only up to the limit. */
  handshake(era: ProtocolEra | undefined, secrets: string[]): ServerHandshake | undefined {
    if (!era) return undefined;
    const method = METHOD_OF_ERA[era];
    const result = this.results.get(method);
    if (typeof result !== 'object' || result === null || Array.isArray(result)) return undefined;
    const redacted = redactJson(result as Record<string, unknown>, secrets);
    const bytes = Buffer.byteLength(JSON.stringify(redacted));
    return { method, bytes, ...(bytes <= HANDSHAKE_MAX_BYTES && { result: redacted }) };
  }
}
