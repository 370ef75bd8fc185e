import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureStdio, registerAndConnect, type TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

/** What the views say of a cancelled read or get (extension/ui/mcp-error.ts). */
const CANCELLED = 'Cancelled before the server answered; the server was told to stop.';

// Cancel in the panel's Resources and Prompts views, clicked, against the slow fixture server (its
// `slow://wait` and prompt `wait` answer only when cancelled).
describe('cancelling a resource read and a prompt in the panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let panel: PanelPage;

  beforeAll(async () => {
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    expect((await registerAndConnect(daemon, 'slow', fixtureStdio('slow-server.ts'))).status).toBe(200);
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  /** Waits until the fixture says `what` was cancelled (the notification reaches it a moment later). */
  async function untilCancelledAtServer(what: string): Promise<void> {
    await vi.waitFor(
      async () => {
        const { body } = await daemon.api('POST', '/api/mcp/servers/slow/tools/cancellations/call', {});
        expect(JSON.parse(body.result.content[0].text)).toContain(what);
      },
      { timeout: 10_000, interval: 50 },
    );
  }

  it('stops a resource read that does not answer', async () => {
    panel = await PanelPage.openPaired(ext.browser, ext.pageUrl('devtools-panel.html'), daemon);
    await panel.servers.select('slow');
    await panel.openTab('resources');
    await panel.page.locator(byTestId('resource-slow://wait')).click();
    await panel.page.waitForSelector(byTestId('resource-cancel'));
    await panel.screenshot('resources-reading');
    await panel.page.locator(byTestId('resource-cancel')).click();
    expect(await waitForText(panel.page, byTestId('resource-cancelled'), 'Cancelled')).toBe(CANCELLED);
    expect(await panel.page.$(byTestId('resource-error'))).toBeNull();
    expect(await panel.page.$(byTestId('resource-cancel'))).toBeNull();
    await untilCancelledAtServer('resources/read slow://wait');
    await panel.screenshot('resources-cancelled');
    // The next read answers.
    await panel.resources.select('slow://now');
  });

  it('stops a prompt get that does not answer', async () => {
    await panel.openTab('prompts');
    await panel.prompts.select('wait');
    await panel.page.locator(byTestId('prompt-get')).click();
    await panel.page.locator(byTestId('prompt-cancel')).click();
    expect(await waitForText(panel.page, byTestId('prompt-cancelled'), 'Cancelled')).toBe(CANCELLED);
    expect(await panel.page.$(byTestId('prompt-error'))).toBeNull();
    await untilCancelledAtServer('prompts/get wait');
    await panel.screenshot('prompts-cancelled');
  });
});
