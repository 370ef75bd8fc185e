import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerConfig } from '../../../shared/servers.ts';
import { StdioTransport } from './stdio-transport.ts';

export function createTransport(config: ServerConfig, onStderrLine: (line: string) => void): Transport {
  switch (config.transport) {
    case 'stdio':
      return new StdioTransport(config, onStderrLine);
    case 'sse':
      return new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} } });
    case 'http':
      return new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers ?? {} },
      });
    case 'websocket':
      return new WebSocketClientTransport(new URL(config.url));
  }
}
