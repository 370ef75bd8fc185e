import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { PopupPage } from './support/pages/popup.ts';
import { USER_FLOW } from './support/user-flow.ts';

// The toolbar popup, opened as a tab (headless Chromium has no toolbar), after the panel paired and added
// server-everything: each test starts where the one before it stopped.
describe('the toolbar popup of the built extension', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let popup: PopupPage;
  const message = 'hello from the e2e popup test';

  beforeAll(async () => {
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('shows the daemon it is paired with and the servers added in the panel', async () => {
    const panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    await panel.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await panel.close();

    popup = await PopupPage.open(ext.browser, ext.pageUrl('popup.html'));
    const { version } = (await daemon.api('GET', '/api/mcp/health')).body;
    expect(await popup.daemonStatus()).toBe(`● daemon ${version} at ${daemon.url}`);
    // The only server is picked by itself; listing its tools connects it.
    await popup.selectServer('everything');
    await popup.waitForServerOption('everything (connected)');
    expect(await popup.serverOptions()).toEqual(['everything (connected)']);
  });

  it('runs echo from its form and shows the result', async () => {
    await popup.selectTool('echo');
    await popup.fill('message', message);
    await popup.run();
    expect(await popup.resultWith(`Echo: ${message}`)).toContain(`Echo: ${message}`);
    expect(await popup.runState()).toBe('completed');
    await popup.screenshot('popup-result');
    await popup.screenshot('popup-result-dark', { theme: 'dark' });
  });

  it('runs nothing while the JSON view cannot be read, then sends what it shows', async () => {
    const page = popup.page;
    await page.locator(byTestId('mode-json')).click();
    const raw = byTestId('raw-json');
    await page.locator(raw).fill('{"message": "typed in JSON" ,,');
    await page.focus(raw);
    await page.keyboard.down('Control');
    await page.keyboard.press('Enter');
    await page.keyboard.up('Control');
    expect(await waitForText(page, byTestId('popup-unreadable'), 'cannot be read')).toBe(
      'The JSON of the parameters cannot be read: fix it first.',
    );
    expect(await page.$eval(byTestId('popup-run'), (button) => button.getAttribute('aria-disabled'))).toBe(
      'true',
    );
    // It looks held back by its colours, not by fading the whole of it: a focus ring around it keeps
    // its full contrast.
    expect(
      await page.$eval(byTestId('popup-run'), (button) => {
        const style = getComputedStyle(button);
        return { opacity: style.opacity, background: style.backgroundColor !== 'rgb(26, 115, 232)' };
      }),
    ).toEqual({ opacity: '1', background: true });
    // Pressing Run sends nothing either: it takes the keyboard to the box that cannot be read.
    await page.locator(byTestId('popup-run')).click();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('raw-json');
    // The result of the run before is still the one shown: nothing was sent.
    expect(await popup.runState()).toBe('completed');
    expect(await page.$eval(byTestId('mode-form'), (button) => (button as HTMLButtonElement).disabled)).toBe(
      true,
    );
    await popup.screenshot('popup-unreadable-json');

    await page.locator(raw).fill('{"message": "typed in JSON"}');
    await popup.run();
    expect(await popup.resultWith('Echo: typed in JSON')).toContain('Echo: typed in JSON');
    await page.locator(byTestId('mode-form')).click();
  });

  it('answers the elicitation of trigger-elicitation-request in the popup', async () => {
    await popup.selectTool('trigger-elicitation-request');
    await popup.run();
    expect(await popup.elicitation.message()).toBe('Please provide inputs for the following fields:');
    expect(await popup.runState()).toBe('elicitation');
    // `name` is required: Accept stays disabled until it is filled.
    expect(await popup.elicitation.acceptEnabled()).toBe(false);
    await popup.elicitation.fill('name', 'Grace Hopper');
    await popup.elicitation.waitForAcceptEnabled();
    await popup.screenshot('popup-elicitation');
    await popup.elicitation.press('accept');

    const result = await popup.resultWith('User provided the requested information');
    expect(result).toContain('- Name: Grace Hopper');
    expect(await popup.runState()).toBe('completed');
  });

  it('shows the question again when the popup is opened after closing over it, and finishes the call', async () => {
    await popup.selectTool('trigger-elicitation-request');
    await popup.run();
    expect(await popup.elicitation.message()).toBe('Please provide inputs for the following fields:');
    // The popup closes (a click elsewhere), with the call waiting in the daemon.
    await popup.close();

    popup = await PopupPage.open(ext.browser, ext.pageUrl('popup.html'));
    expect(await popup.elicitation.message()).toBe('Please provide inputs for the following fields:');
    expect(await popup.runState()).toBe('elicitation');
    await popup.screenshot('popup-elicitation-after-reopen');
    await popup.elicitation.fill('name', 'Ada Lovelace');
    await popup.elicitation.waitForAcceptEnabled();
    await popup.elicitation.press('accept');
    expect(await popup.resultWith('- Name: Ada Lovelace')).toContain(
      'User provided the requested information',
    );
    expect(await popup.runState()).toBe('completed');
  });

  it('moves on from the tool box with Tab, past its open list', async () => {
    const { page } = popup;
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
    await page.focus(byTestId('popup-tool'));
    await page.waitForSelector(byTestId('popup-tool-options'));
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('mode-form');
  });

  it('gives the keyboard back to Run once a call it cancelled has ended', async () => {
    const { page } = popup;
    await popup.selectTool('trigger-long-running-operation');
    await popup.fill('duration', '30');
    await page.focus(byTestId('popup-run'));
    await page.keyboard.press('Enter');
    await page.waitForSelector(byTestId('run-cancel'));
    await page.focus(byTestId('run-cancel'));
    await page.keyboard.press('Enter');
    await waitForText(page, byTestId('run-status'), 'Cancelled');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('popup-run');
  });

  it('says a call started before it opened is running in the daemon, and cancels it', async () => {
    await popup.selectTool('trigger-long-running-operation');
    await popup.fill('duration', '30');
    await popup.run();
    await popup.page.waitForSelector(byTestId('run-cancel'));
    await popup.close();

    popup = await PopupPage.open(ext.browser, ext.pageUrl('popup.html'));
    const note = await waitForText(popup.page, byTestId('popup-elsewhere'), 'is running in the daemon');
    expect(note).toContain('“trigger-long-running-operation” on everything is running in the daemon');
    await popup.screenshot('popup-elsewhere');
    await popup.page.locator(byTestId('popup-elsewhere-cancel')).click();
    await popup.page.waitForSelector(byTestId('popup-elsewhere'), { hidden: true });
    expect((await daemon.api('GET', '/api/mcp/tools/active')).body.activeExecution).toBeNull();
  });

  it('says where a saved request no longer fits its tool, and sends it as saved', async () => {
    // Saved for echo when its argument had another name.
    await popup.page.evaluate(async () => {
      const when = '2026-01-01T00:00:00.000Z';
      const { chrome } = globalThis as unknown as {
        chrome: { storage: { local: { set(items: Record<string, unknown>): Promise<void> } } };
      };
      await chrome.storage.local.set({
        'savedRequests:everything': [
          {
            id: 'renamed-argument',
            title: 'Old echo',
            description: '',
            toolName: 'echo',
            parameters: { text: 'hello' },
            favorite: false,
            createdAt: when,
            updatedAt: when,
          },
        ],
      });
    });
    await popup.close();
    popup = await PopupPage.open(ext.browser, ext.pageUrl('popup.html'));
    const { page } = popup;
    await page.waitForSelector(byTestId('popup-saved'));
    // Picked by keyboard: typed into the saved requests' search box, loaded with Enter.
    await page.locator(byTestId('popup-saved')).click();
    await page.keyboard.type('old echo');
    await page.waitForSelector(`${byTestId('popup-saved-options')} [role="option"]`);
    await popup.screenshot('popup-saved-search');
    await page.keyboard.press('Enter');
    await page.waitForSelector(byTestId('saved-misfits'));
    const misfits = await page.$$eval(`${byTestId('saved-misfits')} li`, (items) =>
      items.map((item) => item.textContent?.trim()),
    );
    expect(misfits).toEqual(['message: Required', 'text: not in the inputSchema (sent as saved)']);
    await page.locator(byTestId('mode-json')).click();
    expect(
      JSON.parse(await page.$eval(byTestId('raw-json'), (el) => (el as HTMLTextAreaElement).value)),
    ).toEqual({
      text: 'hello',
    });
    await popup.screenshot('popup-saved-misfits');
    await page.locator(byTestId('mode-form')).click();
  });

  it('opens the full inspector in a new tab', async () => {
    const page = await popup.openFullInspector();
    expect(page.url()).toBe(ext.pageUrl('devtools-panel.html'));
    const panel = new PanelPage(page);
    expect(await panel.pairing.waitUntilPaired()).toContain('daemon');
    await panel.servers.waitFor('everything');
    await panel.close();
  });

  it('says the daemon is gone once a run finds it gone, and runs again after Retry', async () => {
    const { port } = new URL(daemon.url);
    const { token } = daemon;
    await daemon.close();
    await popup.selectTool('echo');
    await popup.run();
    expect(await waitForText(popup.page, byTestId('popup-problem'), 'No daemon answers')).toContain(
      daemon.url,
    );
    expect(await popup.page.$(byTestId('popup-daemon'))).toBeNull();
    await popup.screenshot('popup-daemon-gone');

    // Back on the same port with the same token: Retry finds it.
    daemon = await startDaemonForExtension({ token, port: Number(port) });
    await popup.page.locator(byTestId('popup-retry')).click();
    expect(await popup.daemonStatus()).toContain(daemon.url);
  });
});
