// @vitest-environment node
/**
 * A daemon restarted with a new token, against real daemons: the stored pairing is refused (401), the
 * connection store says unpaired and why, and pairing with the new token brings it back.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useConnectionStore } from '../../extension/app/connection-store';
import type { KeyValueStore } from '../../extension/app/key-value-store';
import type { Platform } from '../../extension/app/platform';
import { startDaemon, type TestDaemon } from '../daemon/helpers';

function memoryPlatform(): Platform & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  const store: KeyValueStore = {
    get: async <T>(key: string) => data.get(key) as T | undefined,
    set: async (key, value) => void data.set(key, JSON.parse(JSON.stringify(value))),
    remove: async (key) => void data.delete(key),
  };
  return {
    kind: 'web',
    store,
    data,
    defaultDaemonUrl: 'http://127.0.0.1:6274',
    hasHostAccess: async () => true,
    requestHostAccess: async () => true,
  };
}

describe('a stored token the daemon no longer accepts', () => {
  const daemons: TestDaemon[] = [];

  beforeEach(() => {
    setActivePinia(createPinia());
  });
  afterEach(async () => {
    await Promise.all(daemons.splice(0).map((d) => d.close()));
  });

  it('shows as unpaired after the daemon restarts with a new token, then pairs with the new one', async () => {
    const first = await startDaemon({ token: 'first-token-0123456789abcdef' });
    daemons.push(first);
    const platform = memoryPlatform();
    const connection = useConnectionStore();
    await connection.load(platform);
    const ok = await connection.pair(first.url, first.token);
    expect(connection.problem).toBeNull();
    expect(ok).toBe(true);
    expect(connection.paired).toBe(true);
    expect(connection.health?.status).toBe('ok');

    const port = Number(new URL(first.url).port);
    await first.close();
    const second = await startDaemon({ port, token: 'second-token-0123456789abcdef' });
    daemons.push(second);
    expect(second.url).toBe(first.url);

    // Health needs no token and answers; the token check refuses.
    await connection.refreshHealth();
    expect(connection.refused).toBe(true);
    expect(connection.paired).toBe(false);
    expect(connection.health).toBeNull();
    expect(connection.problem).toContain(`The daemon at ${first.url} no longer accepts the saved token`);
    // The URL stays for the new pairing.
    expect(connection.pairing?.url).toBe(first.url);

    // A reload finds the same: the stored pairing is refused again.
    setActivePinia(createPinia());
    const reloaded = useConnectionStore();
    await reloaded.load(platform);
    expect(reloaded.refused).toBe(true);
    expect(reloaded.paired).toBe(false);

    expect(await reloaded.pair(second.url, second.token)).toBe(true);
    expect(reloaded.paired).toBe(true);
    expect(reloaded.refused).toBe(false);
    expect(reloaded.problem).toBeNull();
    expect(platform.data.get('pairing')).toEqual({ url: second.url, token: second.token });
  });

  it('turns any call the daemon refuses with 401 into the unpaired state', async () => {
    const daemon = await startDaemon();
    daemons.push(daemon);
    const connection = useConnectionStore();
    await connection.load(memoryPlatform());
    expect(await connection.pair(daemon.url, daemon.token)).toBe(true);
    connection.pairing = { url: daemon.url, token: 'not-the-token' };

    await expect(connection.client!.listServers()).rejects.toMatchObject({ status: 401 });
    expect(connection.refused).toBe(true);
    expect(connection.paired).toBe(false);
  });

  it('keeps a daemon that is down as paired, with the reason', async () => {
    const daemon = await startDaemon();
    daemons.push(daemon);
    const connection = useConnectionStore();
    await connection.load(memoryPlatform());
    expect(await connection.pair(daemon.url, daemon.token)).toBe(true);
    await daemon.close();

    await connection.refreshHealth();
    expect(connection.refused).toBe(false);
    expect(connection.paired).toBe(true);
    expect(connection.health).toBeNull();
    expect(connection.problem).toContain('No daemon answers');
  });
});
