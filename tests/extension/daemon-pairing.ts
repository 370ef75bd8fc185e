/**
 * What a store test needs to reach a real daemon as the panel does: a platform whose storage is a map in
 * memory, and the connection store paired through it with a daemon the test started.
 */
import { useConnectionStore } from '../../extension/app/connection-store';
import type { KeyValueStore } from '../../extension/app/key-value-store';
import type { Platform } from '../../extension/app/platform';
import type { TestDaemon } from '../daemon/helpers';

/** The web page's platform, with its storage in memory and every daemon address allowed. */
export function memoryPlatform(defaultDaemonUrl: string): Platform {
  const data = new Map<string, unknown>();
  const store: KeyValueStore = {
    get: async <T>(key: string) => data.get(key) as T | undefined,
    set: async (key, value) => void data.set(key, JSON.parse(JSON.stringify(value))),
    remove: async (key) => void data.delete(key),
  };
  return {
    kind: 'web',
    store,
    defaultDaemonUrl,
    hasHostAccess: async () => true,
    requestHostAccess: async () => true,
  };
}

/** Pairs the active Pinia's connection store with `daemon`; fails with the pairing problem if it cannot. */
export async function pairWith(daemon: TestDaemon): Promise<void> {
  const connection = useConnectionStore();
  await connection.load(memoryPlatform(daemon.url));
  if (!(await connection.pair(daemon.url, daemon.token))) {
    throw new Error(`could not pair with ${daemon.url}: ${connection.problem}`);
  }
}
