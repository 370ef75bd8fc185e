import type { ServerRecord } from './servers.ts';

/**
 * MCP tasks at the modern era (2026-07-28) are the `io.modelcontextprotocol/tasks` extension
 * (SEP-2663): its key under `capabilities.extensions`, in a server's and (per request) a client's.
 */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/**
 * Whether a connected server has tasks: the `tasks` capability at 2025-11-25, the tasks extension at
 * the modern era.
 */
export function serverHasTasks(
  server: Pick<ServerRecord, 'era' | 'capabilities'> | null | undefined,
): boolean {
  const capabilities = server?.capabilities;
  if (server?.era !== 'modern') return Boolean(capabilities?.tasks);
  const extensions = capabilities?.extensions as Record<string, unknown> | undefined;
  return Boolean(extensions?.[TASKS_EXTENSION_ID]);
}
