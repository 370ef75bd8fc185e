import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, TSX_LOADER, type TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { byTestId, saveScreenshot, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

/** tests/fixtures/modern-server.ts, which speaks both eras: era auto finds it modern. */
const MODERN_FIXTURE = [...TSX_LOADER, join(FIXTURES, 'modern-server.ts'), 'both'];

// The Server view of a modern and a legacy connection to the same server: the era, the raw handshake
// result opened from its collapsed block, and the client capabilities with sampling marked deprecated
// on the modern one only; Ping, which is a server/discover on the modern one.
describe('the Server view of each era', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let panel: PanelPage;

  beforeAll(async () => {
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    panel = await PanelPage.openPaired(ext.browser, ext.pageUrl('devtools-panel.html'), daemon);
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  /** Adds and connects the fixture with `era`, shows its Server view and opens the handshake. */
  async function showHandshake(id: string, era: string, method: string): Promise<string> {
    await panel.servers.addStdio(id, process.execPath, MODERN_FIXTURE, ROOT, era);
    await panel.servers.connect(id);
    await panel.openTab('server');
    await panel.serverInfo.version('modern-fixture 2.0.0');
    const handshake = byTestId('server-handshake');
    await waitForText(panel.page, `${handshake} summary`, `${method} result`);
    await panel.page.locator(`${handshake} summary`).click();
    return waitForText(panel.page, byTestId('server-handshake-json'), '"capabilities"');
  }

  it('shows the server/discover result of a modern server, and sampling deprecated', async () => {
    const json = await showHandshake('modern', 'auto', 'server/discover');
    expect(JSON.parse(json)).toMatchObject({ supportedVersions: ['2026-07-28'], resultType: 'complete' });
    expect(await panel.serverInfo.era()).toBe('modern (server/discover) · setting: auto');
    const mark = await panel.page.$eval(byTestId('client-capability-sampling-deprecated'), (el) =>
      el.textContent?.trim(),
    );
    expect(mark).toBe('deprecated in 2026-07-28');
    // 2026-07-28 has no ping: the button times a server/discover and says so.
    expect(await panel.serverInfo.ping()).toMatch(
      /^answered in [\d.]+ ms \(server\/discover: 2026-07-28 has no ping\)$/,
    );
    await saveScreenshot(panel.page, 'server-view-modern');
  });

  it('shows the initialize result of a legacy connection, sampling not marked', async () => {
    const json = await showHandshake('legacy', 'legacy', 'initialize');
    expect(JSON.parse(json)).toMatchObject({ protocolVersion: '2025-11-25' });
    expect(await panel.serverInfo.era()).toBe('legacy (initialize) · setting: legacy');
    await panel.page.waitForSelector(byTestId('client-capability-sampling'));
    expect(await panel.page.$(byTestId('client-capability-sampling-deprecated'))).toBeNull();
    expect(await panel.serverInfo.ping()).toMatch(/^answered in [\d.]+ ms$/);
    await saveScreenshot(panel.page, 'server-view-legacy', { theme: 'dark' });
  });
});
