import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type TestDaemon } from '../daemon/helpers.ts';
import { launchBrowser } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonWithWebPage } from './support/daemon.ts';
import { PanelPage } from './support/pages.ts';
import type { Browser } from 'puppeteer';

// The daemon in production mode serves the built web page from its own origin; the flow of the panel
// test runs there, with localStorage in place of the extension's storage.
describe('the web page served by the daemon', () => {
  let browser: Browser;
  let daemon: TestDaemon;
  let web: PanelPage;
  const message = 'hello from the e2e web test';

  beforeAll(async () => {
    daemon = await startDaemonWithWebPage();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await daemon?.close();
  });

  it('offers its own origin for pairing, explains a refused token and an absent daemon, then pairs', async () => {
    web = await PanelPage.open(browser, `${daemon.url}/`);
    expect(await web.page.title()).toBe('MCP Inspector');
    expect(await web.page.$eval('[data-testid="pair-url"]', (el) => (el as HTMLInputElement).value)).toBe(
      daemon.url,
    );
    await web.screenshot('web-pairing');

    await web.pair(daemon.url, 'not-the-token');
    expect(await web.pairingProblem('refused the token')).toContain('refused the token');

    const nobody = `http://127.0.0.1:${await freePort()}`;
    await web.pair(nobody, daemon.token);
    expect(await web.pairingProblem('No daemon answers')).toContain(nobody);
    await web.screenshot('web-pairing-no-daemon');

    await web.pair(daemon.url, daemon.token);
    expect(await web.waitUntilPaired()).toContain('daemon');
  });

  it('adds server-everything over STDIO, connects and runs echo', async () => {
    await web.addStdioServer('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await web.connect('everything');
    await web.selectTool('echo');
    await web.fill('message', message);
    await web.run();
    expect(await web.resultWith(`Echo: ${message}`)).toContain(`Echo: ${message}`);
    await web.screenshot('web-tools-echo');
  });

  it('answers an elicitation and shows the completed result', async () => {
    await web.selectTool('trigger-elicitation-request');
    await web.run();
    expect(await web.elicitation()).toBe('Please provide inputs for the following fields:');
    await web.answerElicitation({ name: 'Grace Hopper' });
    expect(await web.resultWith('- Name: Grace Hopper')).toContain('User provided the requested information');
  });

  it('keeps a saved request in localStorage across a reload and loads it back', async () => {
    await web.selectTool('echo');
    await web.saveRequest('Web greeting');
    await web.screenshot('web-saved-requests');

    await web.reload();
    expect(await web.waitUntilPaired()).toContain('daemon');
    expect(await web.savedTitles()).toEqual(['Web greeting']);
    const stored = await web.page.evaluate(() => Object.keys(localStorage));
    expect(stored.some((key) => key.includes('savedRequests:everything'))).toBe(true);

    await web.selectTool('get-structured-content');
    await web.loadSaved('Web greeting');
    await web.page.waitForFunction(
      () => document.querySelector('[data-testid="tool-title"]')?.textContent === 'echo',
    );
    expect(await web.fieldValue('message')).toBe(message);
  });
});
