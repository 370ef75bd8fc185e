/**
 * A recorded session served as an MCP server, on the SDK's low-level Server: `initialize` is answered
 * with the recorded server info, capabilities and instructions; every other request with its recorded
 * answer (see matcher.ts), or a JSON-RPC error saying it was not recorded. `ping` is answered by the SDK.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { SessionHeader } from '../../shared/session-file.ts';
import type { Matcher } from './matcher.ts';

/** An error the SDK sends as it is: the code, message and data given. */
function jsonRpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined && { data }) });
}

export function replayServer(header: SessionHeader, matcher: Matcher): Server {
  const recorded = header.server;
  const info = recorded.serverInfo ?? { name: recorded.name ?? 'recorded-session', version: '0.0.0' };
  const server = new Server(info, {
    capabilities: (recorded.capabilities ?? {}) as ServerCapabilities,
    ...(recorded.instructions && { instructions: recorded.instructions }),
  });
  server.fallbackRequestHandler = async (request) => {
    const lookup = matcher.lookup(request.method, request.params);
    if (!lookup.found) throw jsonRpcError(lookup.code, lookup.message);
    const { exchange } = lookup;
    if (exchange.error) throw jsonRpcError(exchange.error.code, exchange.error.message, exchange.error.data);
    return exchange.result ?? {};
  };
  return server;
}
