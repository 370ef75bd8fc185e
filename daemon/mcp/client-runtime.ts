/**
 * What a server connection needs once it connects: the MCP SDK client, the transports and the code that
 * explains their failures. The SDK and its schemas are the larger part of everything the daemon loads, so
 * they are loaded on the first connection (or while the daemon idles after it starts listening), never
 * before it listens. Import it only through `loadClientRuntime`; type imports are free.
 */
import type { StandardSchemaV1 } from '@modelcontextprotocol/client';

export {
  Client,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SseError,
} from '@modelcontextprotocol/client';
export { describeExit, explainConnectError, failureText, stderrSuffix } from './connect-error.ts';
export { createTransport } from './transports/create-transport.ts';
export { LoggingTransport } from './transports/logging-transport.ts';
export { excerpt, remoteAnswerOf } from './transports/remote-answer.ts';
export { StdioTransport } from './transports/stdio-transport.ts';

type AnyResult = Record<string, unknown>;

/**
 * Accepts any result object as the server sent it: the inspector shows, it does not judge. A Standard
 * Schema of its own, so no schema library walks a large result only to hand it back unchanged.
 */
export const ANY_RESULT: StandardSchemaV1<AnyResult, AnyResult> = {
  '~standard': {
    version: 1,
    vendor: 'inspector-daemon',
    validate: (value) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { value: value as AnyResult }
        : { issues: [{ message: 'The result is not an object' }] },
  },
};
