/**
 * The toolbar popup after the daemon restarts with a new token: it shows "not paired" with one button to
 * pair again, never a green daemon line or servers it cannot reach, and the options page it opens pairs
 * with the new token, after which the popup is live again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { byTestId } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { PopupPage } from './support/pages/popup.ts';
import { USER_FLOW } from './support/user-flow.ts';

describe('the popup when the daemon no longer accepts the saved token', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;

  beforeAll(async () => {
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    const panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    await panel.close();
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('shows the daemon while the token is good', async () => {
    const popup = await PopupPage.open(ext.browser, ext.pageUrl('popup.html'));
    expect(await popup.daemonStatus()).toContain(daemon.url);
    await popup.close();
  });

  it('shows "not paired" with one button to pair again after a restart with a new token', async () => {
    const port = Number(new URL(daemon.url).port);
    await daemon.close();
    daemon = await startDaemonForExtension({ port, token: 'a-new-token-after-restart-0123456789' });

    const popup = await PopupPage.open(ext.browser, ext.pageUrl('popup.html'));
    const status = await popup.page.waitForFunction(
      () => {
        const text = document.querySelector('[data-testid="popup-status"]')?.textContent ?? '';
        return /Not paired/.test(text) ? text : false;
      },
      { timeout: 15_000 },
    );
    expect(await status.jsonValue()).toContain('Not paired with a daemon');
    expect(await popup.page.$(byTestId('popup-daemon'))).toBeNull();
    expect(await popup.page.$(byTestId('popup-server'))).toBeNull();
    // It says why: the daemon is there but refuses the token the extension saved.
    const why = await popup.page.$eval(byTestId('popup-refused'), (el) => el.textContent ?? '');
    expect(why).toContain(`The daemon at ${daemon.url} no longer accepts the saved token`);
    expect(await popup.page.$(byTestId('popup-pair-hint'))).toBeNull();
    await popup.screenshot('popup-token-refused');

    // One click opens the options page, where the new token pairs again.
    const opened = ext.browser.waitForTarget((target) => target.url().includes('options.html'), {
      timeout: 15_000,
    });
    await popup.page.locator(byTestId('popup-options')).click();
    expect((await opened).url()).toContain(ext.pageUrl('options.html'));
    await popup.close();
    const options = await PanelPage.open(ext.browser, ext.pageUrl('options.html'));
    await options.pairing.pair(daemon.url, daemon.token);
    expect(await options.pairing.ok()).toContain('Paired with daemon');

    const again = await PopupPage.open(ext.browser, ext.pageUrl('popup.html'));
    expect(await again.daemonStatus()).toContain(daemon.url);
    await again.close();
  });
});
