// @vitest-environment node
/**
 * How the log view's rows end, against a real daemon: a cancelled tool call, and an `initialize` that
 * fails because the server exits or answers an error. The entries come over the daemon's live channel
 * into the logs store, as in the panel.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useConnectionStore } from '../../extension/app/connection-store';
import { useLiveStore } from '../../extension/app/live-store';
import type { LogRow } from '../../extension/logs/log-pairing';
import { useLogsStore } from '../../extension/logs/logs-store';
import { everythingStdio, fixtureStdio, startDaemon, type TestDaemon } from '../daemon/helpers';

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startDaemon();
});
afterAll(async () => {
  await daemon?.close();
});

beforeEach(() => {
  setActivePinia(createPinia());
  useConnectionStore().pairing = { url: daemon.url, token: daemon.token };
  // The log listens from the start, as in the panel.
  useLogsStore();
  const live = useLiveStore();
  live.start(0);
  return () => live.stop();
});

function rowsOf(serverId: string): LogRow[] {
  const logs = useLogsStore();
  void logs.revision;
  return logs.model.rows.filter((row) => row.serverId === serverId);
}

/** Waits until the store's rows of `serverId` pass `check` (the live channel delivers in batches). */
async function waitForRows(serverId: string, check: (rows: LogRow[]) => boolean): Promise<LogRow[]> {
  for (;;) {
    const rows = rowsOf(serverId);
    if (check(rows)) return rows;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function waitForLive(): Promise<void> {
  const live = useLiveStore();
  while (live.state !== 'open') await new Promise((resolve) => setTimeout(resolve, 20));
}

const initializeOf = (rows: LogRow[]) => rows.find((row) => row.method === 'initialize');

describe('log rows of calls that get no answer', () => {
  it('ends a cancelled tool call as cancelled, not pending', async () => {
    await waitForLive();
    await daemon.api('PUT', '/api/mcp/servers/slow', { name: 'slow', config: everythingStdio() });
    await daemon.api('POST', '/api/mcp/servers/slow/connect');
    const run = daemon.api('POST', '/api/mcp/tools/execute', {
      serverId: 'slow',
      toolName: 'trigger-long-running-operation',
      parameters: { duration: 30, steps: 3 },
    });
    const call = (rows: LogRow[]) => rows.find((row) => row.method === 'tools/call');
    await waitForRows('slow', (rows) => call(rows)?.status === 'pending');
    const { body } = await daemon.api('GET', '/api/mcp/tools/active');
    await daemon.api('POST', '/api/mcp/tools/cancel', { executionId: body.activeExecution.id });
    expect((await run).status).toBe(200);
    const rows = await waitForRows('slow', (all) => call(all)?.status !== 'pending');
    expect(call(rows)?.status).toBe('cancelled');
    expect(rows.map((row) => row.method)).toContain('notifications/cancelled');
  });

  it('ends the initialize of a server that exits during the handshake as failed', async () => {
    await waitForLive();
    // Era legacy: the server's first request is initialize, not the server/discover probe.
    const config = { ...fixtureStdio('failing-initialize-server.ts'), era: 'legacy' as const };
    config.args = [...(config.args ?? []), 'exit'];
    await daemon.api('PUT', '/api/mcp/servers/exits', { name: 'exits', config });
    const connect = await daemon.api('POST', '/api/mcp/servers/exits/connect');
    expect(connect.status).toBeGreaterThanOrEqual(400);
    const rows = await waitForRows('exits', (all) => initializeOf(all)?.status === 'failed');
    // The daemon logged the request and no answer: the row ends by the server's status alone.
    expect(initializeOf(rows)?.response).toBeUndefined();
  });

  it('ends the initialize a server answers with an error as failed', async () => {
    await waitForLive();
    // Era legacy: the server's first request is initialize, not the server/discover probe.
    const config = { ...fixtureStdio('failing-initialize-server.ts'), era: 'legacy' as const };
    config.args = [...(config.args ?? []), 'error'];
    await daemon.api('PUT', '/api/mcp/servers/refuses', { name: 'refuses', config });
    await daemon.api('POST', '/api/mcp/servers/refuses/connect');
    const rows = await waitForRows('refuses', (all) => initializeOf(all)?.response !== undefined);
    expect(initializeOf(rows)).toMatchObject({
      status: 'failed',
      response: { message: { error: { message: 'refusing to start' } } },
    });
  });
});
