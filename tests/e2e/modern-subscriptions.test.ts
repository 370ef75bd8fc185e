import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import { FIXTURES, ROOT, type TestDaemon, TSX_LOADER } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

const COUNTER = 'fixture://counter';

/** The modern fixture (tests/fixtures/modern-server.ts) through tsx, as a user types it into the editor. */
const MODERN_FIXTURE_COMMAND = {
  command: process.execPath,
  args: [...TSX_LOADER, join(FIXTURES, 'modern-server.ts')],
  cwd: ROOT,
};

// The Resources view's Subscribe works the same with a 2026-07-28 server: the daemon listens on a
// `subscriptions/listen` stream instead of sending `resources/subscribe`, and the panel cannot tell.
describe('subscribing to a resource of a 2026-07-28 server in the DevTools panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let panel: PanelPage;

  beforeAll(async () => {
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  /** The methods the daemon sent to the server, in order. */
  const sentMethods = (): string[] =>
    daemon.daemon.bus
      .last(10_000)
      .filter((e): e is RpcMessageEntry => e.serverId === 'modern' && e.direction === 'send')
      .map((e) => (e.message as { method?: string }).method ?? '(answer)');

  /** Changes the counter through the fixture's `touch` tool, in the Tools tab, and comes back. */
  async function touch(count: number): Promise<void> {
    await panel.openTab('tools');
    await panel.tools.select('touch');
    await panel.tools.run();
    await panel.tools.resultWith(`touched ${COUNTER}: count ${count}`);
    await panel.openTab('resources');
    await panel.resources.waitForTitle(COUNTER);
  }

  it('counts the updates the listen stream brings and reads the resource again', async () => {
    panel = await PanelPage.openPaired(ext.browser, ext.pageUrl('devtools-panel.html'), daemon);
    expect(await panel.waitForLive()).toBe('live');
    const { command, args, cwd } = MODERN_FIXTURE_COMMAND;
    await panel.servers.addStdio('modern', command, args, cwd);
    await panel.servers.connect('modern');

    await panel.openTab('resources');
    await panel.resources.select(COUNTER);
    await panel.resources.content('resource-text', 'count: 0');
    await panel.resources.subscribe();
    await panel.resources.updatesNote('Subscribed: no updates yet');
    expect(sentMethods()).toContain('subscriptions/listen');
    expect(sentMethods()).not.toContain('resources/subscribe');

    await touch(1);
    expect(await panel.resources.waitForUpdates(0)).toBe(1);
    await panel.resources.content('resource-text', 'count: 1');
    await panel.screenshot('resources-subscribed-modern');
  });

  it('cancels the listen stream at Unsubscribe', async () => {
    await panel.resources.unsubscribe();
    expect(sentMethods()).toContain('notifications/cancelled');
    expect(sentMethods()).not.toContain('resources/unsubscribe');
    await panel.screenshot('resources-unsubscribed-modern');
  });
});
