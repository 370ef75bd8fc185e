/**
 * What a server connection needs once it connects: the MCP SDK client, the transports and the code that
 * explains their failures. The SDK and its schemas are the larger part of everything the daemon loads, so
 * they are loaded on the first connection (or while the daemon idles after it starts listening), never
 * before it listens. Import it only through `loadClientRuntime`; type imports are free.
 */
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';

export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
export {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
export { describeExit, explainConnectError, failureText, stderrSuffix } from './connect-error.ts';
export { createTransport } from './transports/create-transport.ts';
export { LoggingTransport } from './transports/logging-transport.ts';
export { StdioTransport } from './transports/stdio-transport.ts';

/** Accepts any result object as the server sent it: the inspector shows, it does not judge. */
export const ANY_RESULT = ResultSchema.passthrough();
