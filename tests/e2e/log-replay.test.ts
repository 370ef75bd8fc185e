import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdio, type TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

const BIG = 2_000_000;

// A panel that opens on a daemon whose log holds large results gets them cut to their envelope in the
// live channel's replay, so it shows the log at once; a row loads its message whole on request, from this
// run of the daemon only.
describe('the Logs view opened on a log of large messages', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let dataDir: string;
  let panel: PanelPage;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'inspector-e2e-log-replay-'));
    [ext, daemon] = await Promise.all([launchWithTestExtension(), startDaemonForExtension({ dataDir })]);
    const api = daemon.api.bind(daemon);
    expect(
      (await api('PUT', '/api/mcp/servers/output', { config: fixtureStdio('output-server.ts') })).status,
    ).toBe(201);
    for (const bytes of [BIG, BIG, 100]) {
      const called = await api('POST', '/api/mcp/tools/execute', {
        serverId: 'output',
        toolName: 'sized-result',
        parameters: { bytes },
      });
      expect(called.status).toBe(200);
    }
    panel = await PanelPage.openPaired(ext.browser, ext.pageUrl('devtools-panel.html'), daemon);
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('notes the size of the results it did not load, and loads one whole on request', async () => {
    await panel.openTab('logs');
    await panel.logs.filterByMethod('tools/call');
    const rows = await panel.logs.rows();
    expect(rows.map((row) => row.status)).toEqual(['ok', 'ok', 'ok']);
    const [first, second, small] = rows.map((row) => row.index);
    expect(await panel.logs.cutNotes()).toEqual({
      [first!]: 'about 1.9 MiB, not loaded',
      [second!]: 'about 1.9 MiB, not loaded',
    });

    const detail = await panel.logs.expandRow(first!);
    expect(detail).toMatch(
      /This message is about 1\.9 MiB: too big to send when the log was replayed, so only this part/,
    );
    expect(detail).toContain('"bytes": 2000000');
    await panel.screenshot('log-replay-cut');

    const loaded = await panel.logs.loadWhole(first!, 'keyboard');
    // The button goes with the message loaded: the keyboard goes to its row, not to the page.
    expect(
      await panel.page.evaluate(() =>
        document.activeElement?.closest('[role="row"]')?.getAttribute('data-index'),
      ),
    ).toBe(String(first));
    expect(loaded).toMatch(/Showing the first 50,000 of 2,000,0\d\d characters/);
    expect(loaded).toContain('abcdefghijklmnopqrstuvwxyz0123456789');
    expect(await panel.logs.cutNotes()).toEqual({ [second!]: 'about 1.9 MiB, not loaded' });

    expect(await panel.logs.expandRow(small!)).toContain('|end of 100 bytes');
  });

  it('says so when the daemon restarted since and no longer has the message', async () => {
    const { token } = daemon!;
    const port = Number(new URL(daemon!.url).port);
    await daemon!.close();
    daemon = undefined;
    expect(await panel.waitForLive(false)).toMatch(/^(offline|reconnecting…)$/);
    daemon = await startDaemonForExtension({ port, dataDir, token });
    expect(await panel.waitForLive()).toBe('live');

    await panel.openTab('logs');
    const second = (await panel.logs.rows())[1]!.index;
    await panel.logs.expandRow(second);
    const failed = await panel.logs.loadWhole(second);
    expect(failed).toMatch(/The daemon restarted since entry \d+ was logged, and its log started again/);
    expect(await panel.logs.cutNotes()).toEqual({ [second]: 'about 1.9 MiB, not loaded' });
    await panel.screenshot('log-replay-gone');
  });
});
