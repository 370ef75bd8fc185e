import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension } from './support/daemon.ts';
import { byTestId, PanelPage, waitForText } from './support/pages.ts';

const SHOTS = '/tmp/shots-client';

// The client side of MCP in the panel, with server-everything: what the server says of itself, ping and
// log level, the roots offered to it, completions while typing a prompt argument, and a sampling request
// answered by hand. Each test goes on where the one before it stopped.
describe('client features in the panel', () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let panel: PanelPage;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.pair(daemon.url, daemon.token);
    await panel.waitUntilPaired();
    await panel.addStdioServer('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await panel.connect('everything');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('shows the server, its instructions and capabilities, pings it and sets its log level', async () => {
    await panel.openTab('server');
    await waitForText(panel.page, byTestId('server-info-version'), 'mcp-servers/everything');
    expect(await panel.page.$eval(byTestId('server-info-protocol'), (el) => el.textContent?.trim())).toMatch(
      /^\d{4}-\d{2}-\d{2}$/,
    );
    const instructions = await panel.page.$eval(
      byTestId('server-info-instructions'),
      (el) => el.textContent ?? '',
    );
    expect(instructions.length).toBeGreaterThan(20);
    await panel.page.waitForSelector(byTestId('server-capability-logging'));

    await panel.page.locator(byTestId('server-ping')).click();
    await waitForText(panel.page, byTestId('server-ping-result'), 'answered in');

    await panel.page.select(byTestId('server-logging-level'), 'debug');
    await panel.page.waitForFunction(
      (selector) => (document.querySelector(selector) as HTMLSelectElement | null)?.value === 'debug',
      {},
      byTestId('server-logging-level'),
    );
    const record = await (
      await fetch(`${daemon!.url}/api/mcp/servers/everything`, {
        headers: { 'X-Inspector-Token': daemon!.token },
      })
    ).json();
    expect(record.loggingLevel).toBe('debug');
  });

  it('offers the roots edited in the Server view to the server', async () => {
    await panel.page.locator(byTestId('root-add')).click();
    await panel.page.locator(byTestId('root-uri-0')).fill('https://not-a-folder');
    await waitForText(panel.page, byTestId('root-0'), 'use a file:// URI');
    expect(await panel.page.$eval(byTestId('roots-save'), (el) => (el as HTMLButtonElement).disabled)).toBe(
      true,
    );
    await panel.page.locator(byTestId('root-uri-0')).fill('file:///tmp/inspector-demo');
    await panel.page.locator(byTestId('root-name-0')).fill('Demo project');
    await panel.page.locator(byTestId('roots-save')).click();
    await panel.page.waitForSelector(byTestId('roots-saved'));
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/server-view.png` });

    await panel.openTab('tools');
    await panel.selectTool('get-roots-list');
    await panel.run();
    const text = await panel.resultWith('file:///tmp/inspector-demo');
    expect(text).toContain('Demo project');
  });

  it('suggests prompt argument values from completion/complete, with the other arguments as context', async () => {
    await panel.openTab('prompts');
    await panel.selectPrompt('completable-prompt');
    await panel.fillPromptArgument('department', 'S');
    const options = (selector: string) =>
      panel.page.$$eval(`${selector} option`, (els) => els.map((el) => (el as HTMLOptionElement).value));
    await panel.page.waitForFunction(
      (selector) => document.querySelectorAll(`${selector} option`).length === 2,
      {},
      byTestId('prompt-arg-department-suggestions'),
    );
    expect(await options(byTestId('prompt-arg-department-suggestions'))).toEqual(['Sales', 'Support']);
    expect(await panel.page.$eval(byTestId('prompt-arg-department'), (el) => el.getAttribute('list'))).toBe(
      await panel.page.$eval(byTestId('prompt-arg-department-suggestions'), (el) => el.id),
    );

    await panel.fillPromptArgument('department', 'Sales');
    await panel.fillPromptArgument('name', 'E');
    await panel.page.waitForFunction(
      (selector) => document.querySelectorAll(`${selector} option`).length === 1,
      {},
      byTestId('prompt-arg-name-suggestions'),
    );
    expect(await options(byTestId('prompt-arg-name-suggestions'))).toEqual(['Eve']);
  });

  it('shows a sampling request and sends the reply written by hand', async () => {
    await panel.openTab('tools');
    await panel.selectTool('trigger-sampling-request');
    await panel.fill('prompt', 'a haiku about green tests');
    await panel.run();
    const dialog = await panel.page.waitForSelector(`${byTestId('sampling-dialog')}[open]`);
    expect(await dialog!.evaluate((el) => (el as HTMLElement).innerText)).toContain(
      'a haiku about green tests',
    );
    await panel.page.locator(byTestId('sampling-text')).fill('Green bars at dawn');
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/sampling-dialog.png` });
    await panel.page.locator(byTestId('sampling-send')).click();
    await panel.page.waitForSelector(byTestId('sampling-dialog'), { hidden: true });
    const result = await panel.resultWith('Green bars at dawn');
    expect(result).toContain('inspector-user');
  });
});
