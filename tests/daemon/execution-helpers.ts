import { expect, onTestFinished } from 'vitest';
import type { DaemonOptions } from '../../daemon/options.ts';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import { everythingStdio, fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';

/** A daemon with the tools fixture as `fixture` and server-everything as `everything`. */
export async function startWithServers(overrides: Partial<DaemonOptions> = {}): Promise<TestDaemon> {
  const d = await startDaemon(overrides);
  onTestFinished(() => d.close());
  for (const [id, config] of [
    ['fixture', fixtureStdio('tools-server.ts')],
    ['everything', everythingStdio()],
  ] as const) {
    expect((await d.api('PUT', `/api/mcp/servers/${id}`, { config })).status).toBe(201);
  }
  return d;
}

/** JSON-RPC messages the daemon sent to (or received from) the servers, oldest first. */
export const messages = (d: TestDaemon, direction: 'send' | 'receive'): RpcMessageEntry['message'][] =>
  d.daemon.bus.last(1000).flatMap((e) => (e.direction === direction ? [e.message] : []));
