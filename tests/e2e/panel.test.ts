import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import {
  closedDaemonUrl,
  DEFAULT_DAEMON_URL,
  EVERYTHING_COMMAND,
  startDaemonForExtension,
} from './support/daemon.ts';
import { byTestId, PanelPage } from './support/pages.ts';

// One browser with the built extension and one daemon go through the flow step by step: each test
// starts where the one before it stopped, as a user would.
describe('the DevTools panel of the built extension', () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let panel: PanelPage;
  const message = 'hello from the e2e panel test';

  beforeAll(async () => {
    ext = await launchWithTestExtension();
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('explains a missing daemon and a refused token, then pairs with the right token', async () => {
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    expect(await panel.page.$eval('[data-testid="pair-url"]', (el) => (el as HTMLInputElement).value)).toBe(
      DEFAULT_DAEMON_URL,
    );

    // Not the default address: a daemon of one's own may be running there.
    const nobody = await closedDaemonUrl();
    await panel.pair(nobody, 'any-token');
    expect(await panel.pairingProblem('No daemon answers')).toContain(nobody);
    await panel.screenshot('panel-pairing-no-daemon');

    daemon = await startDaemonForExtension();
    await panel.pair(daemon.url, 'not-the-token');
    expect(await panel.pairingProblem('refused the token')).toContain('refused the token');
    await panel.screenshot('panel-pairing-wrong-token');

    await panel.pair(daemon.url, daemon.token);
    expect(await panel.waitUntilPaired()).toContain('daemon');
    expect(await panel.page.$eval('[data-testid="daemon-url"]', (el) => el.textContent)).toBe(daemon.url);
    await panel.page.waitForSelector('[data-testid="servers-empty"]');
  });

  it('adds server-everything over STDIO and connects to it', async () => {
    await panel.addStdioServer('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    const stored = await daemon!.api('GET', '/api/mcp/servers/everything');
    expect(stored.body.config).toEqual({ transport: 'stdio', ...EVERYTHING_COMMAND });

    await panel.connect('everything');
    expect(await panel.serverStatus('everything')).toBe('connected');
    const tools = await panel.toolNames();
    expect(tools).toEqual(
      expect.arrayContaining(['echo', 'trigger-elicitation-request', 'get-structured-content']),
    );
  });

  it('runs echo through the generated form and shows the echoed text', async () => {
    await panel.selectTool('echo');
    await panel.fill('message', message);
    await panel.run();
    expect(await panel.resultWith(`Echo: ${message}`)).toContain(`Echo: ${message}`);
    await panel.screenshot('panel-tools-echo');
    await panel.screenshot('panel-tools-echo-docked', { height: 400 });
    await panel.screenshot('panel-tools-echo-dark', { theme: 'dark' });
  });

  it('answers the elicitation of trigger-elicitation-request and shows the completed result', async () => {
    await panel.selectTool('trigger-elicitation-request');
    await panel.run();
    expect(await panel.elicitation()).toBe('Please provide inputs for the following fields:');
    // `name` is required: Accept stays disabled until it is filled.
    expect(await panel.elicitationAcceptEnabled()).toBe(false);
    await panel.page
      .locator('[data-testid="elicitation-dialog"] [data-testid="field-name"]')
      .fill('Ada Lovelace');
    await panel.page.waitForSelector(
      '[data-testid="elicitation-dialog"] [data-testid="elicit-accept"]:enabled',
    );
    await panel.screenshot('panel-elicitation');
    await panel.screenshot('panel-elicitation-dark', { theme: 'dark' });
    await panel.screenshot('panel-elicitation-docked', { height: 400 });
    await panel.answerElicitation({ name: 'Ada Lovelace' });

    const result = await panel.resultWith('User provided the requested information');
    expect(result).toContain('- Name: Ada Lovelace');
    expect(await panel.page.$eval('[data-testid="run-status"]', (el) => el.getAttribute('data-state'))).toBe(
      'completed',
    );
  });

  it('validates the structured content of get-structured-content against its output schema', async () => {
    await panel.selectTool('get-structured-content');
    await panel.fill('location', 'Chicago');
    await panel.run();
    const result = await panel.resultWith('Light rain / drizzle');
    expect(result).toContain('Valid against outputSchema');
    await panel.page.waitForSelector('[data-testid="tool-result"] [data-testid="validation-ok"]');
    expect(
      JSON.parse(await panel.page.$eval('[data-testid="structured-content"]', (el) => el.textContent ?? '')),
    ).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
    await panel.screenshot('panel-structured-content');
  });

  it('shows each tool its own last result when switching between tools', async () => {
    await panel.selectTool('echo');
    const echoResult = await panel.resultWith(`Echo: ${message}`);
    expect(echoResult).not.toContain('Light rain');
    await panel.selectTool('get-sum');
    expect(await panel.page.$(byTestId('tool-result'))).toBeNull();
    await panel.selectTool('get-structured-content');
    expect(await panel.resultWith('Light rain / drizzle')).toContain('Valid against outputSchema');
  });

  it('keeps a saved request across a reload and a new tab, and loads it back into the form', async () => {
    await panel.selectTool('echo');
    expect(await panel.fieldValue('message')).toBe(message);
    await panel.saveRequest('Greeting');
    expect(await panel.savedTitles()).toEqual(['Greeting']);
    await panel.screenshot('panel-saved-requests');

    await panel.reload();
    await panel.waitUntilPaired();
    expect(await panel.savedTitles()).toEqual(['Greeting']);

    await panel.close();
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.waitUntilPaired();
    expect(await panel.savedTitles()).toEqual(['Greeting']);

    // A fresh page starts with empty forms; Load brings back the tool and its parameters.
    await panel.selectTool('get-structured-content');
    await panel.loadSaved('Greeting');
    await panel.page.waitForFunction(
      () => document.querySelector('[data-testid="tool-title"]')?.textContent === 'echo',
    );
    expect(await panel.fieldValue('message')).toBe(message);
    await panel.run();
    expect(await panel.resultWith(`Echo: ${message}`)).toContain(`Echo: ${message}`);
  });
});

describe('the options page of the built extension', () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;

  beforeAll(async () => {
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('pairs with the daemon and says so, and the panel then starts paired', async () => {
    const options = await PanelPage.open(ext.browser, ext.pageUrl('options.html'));
    await options.pair(daemon.url, 'not-the-token');
    await options.pairingProblem('refused the token');
    await options.pair(daemon.url, daemon.token);
    const { version } = (await daemon.api('GET', '/api/mcp/health')).body;
    expect(await options.pairOk()).toBe(`Paired with daemon ${version}`);
    await options.screenshot('options-paired');

    const panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    expect(await panel.waitUntilPaired()).toContain('daemon');
    expect(await panel.page.$('[data-testid="pairing-form"]')).toBeNull();
  });
});
