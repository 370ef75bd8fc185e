import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { HANDSHAKE_MAX_BYTES, type ProtocolEra, type ServerHandshake } from '../../shared/servers.ts';
import { redact, redactJson } from './redact.ts';

type HandshakeMethod = ServerHandshake['method'];

/** The request that settles each era: the server record shows its result. */
const METHOD_OF_ERA: Record<ProtocolEra, HandshakeMethod> = {
  modern: 'server/discover',
  legacy: 'initialize',
};

const METHOD_NOT_FOUND = -32601;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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
  /** The era probe's error answer, when the server gave one (auto then falls back to initialize). */
  private probeError?: { code: unknown; message: unknown };

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
    // "Method not found" is how a legacy server says it has no server/discover: nothing to tell.
    const error = 'error' in message ? (message.error as { code?: unknown; message?: unknown }) : undefined;
    if (error && method === 'server/discover' && error.code !== METHOD_NOT_FOUND) {
      this.probeError = { code: error.code, message: error.message };
    }
  };

  /**
   * What the server answered the era probe, when that was an error: said beside a handshake that then
   * failed, since a server that refuses `server/discover` may refuse everything (and say why there).
   */
  probeAnswer(secrets: string[]): string | undefined {
    const error = this.probeError;
    if (!error) return undefined;
    const text = typeof error.message === 'string' ? error.message.slice(0, 300) : '';
    const said = redact(`error ${String(error.code)}${text ? `: ${text}` : ''}`, secrets);
    return `It answered the era probe (server/discover) with ${said}.`;
  }

  /**
   * The capabilities the server declared in the request that settled `era`, as it declared them, secrets
   * masked, when their JSON is within the limit: the SDK's parse drops the keys it does not know (an
   * extension's, a later revision's), which a tester needs to see too.
   */
  capabilities(era: ProtocolEra | undefined, secrets: string[]): Record<string, unknown> | undefined {
    const result = era ? this.results.get(METHOD_OF_ERA[era]) : undefined;
    const declared = isObject(result) ? result.capabilities : undefined;
    if (!isObject(declared)) return undefined;
    const redacted = redactJson(declared, secrets);
    return Buffer.byteLength(JSON.stringify(redacted)) <= HANDSHAKE_MAX_BYTES ? redacted : undefined;
  }

  /** The result of the request that settled `era`, secrets masked, kept whole only up to the limit. */
  handshake(era: ProtocolEra | undefined, secrets: string[]): ServerHandshake | undefined {
    if (!era) return undefined;
    const method = METHOD_OF_ERA[era];
    const result = this.results.get(method);
    if (!isObject(result)) return undefined;
    const redacted = redactJson(result, secrets);
    const bytes = Buffer.byteLength(JSON.stringify(redacted));
    return { method, bytes, ...(bytes <= HANDSHAKE_MAX_BYTES && { result: redacted }) };
  }
}
