import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import {
  closedDaemonUrl,
  DEFAULT_DAEMON_URL,
  EVERYTHING_COMMAND,
  startDaemonForExtension,
} from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

// One browser with the built extension and one daemon go through the flow step by step: each test
// starts where the one before it stopped, as a user would.
describe('the DevTools panel of the built extension', USER_FLOW, () => {
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
    expect(await panel.pairing.url()).toBe(DEFAULT_DAEMON_URL);

    // Not the default address: a daemon of one's own may be running there.
    const nobody = await closedDaemonUrl();
    await panel.pairing.pair(nobody, 'any-token');
    expect(await panel.pairing.problem('No daemon answers')).toContain(nobody);
    await panel.screenshot('panel-pairing-no-daemon');

    daemon = await startDaemonForExtension();
    await panel.pairing.pair(daemon.url, 'not-the-token');
    expect(await panel.pairing.problem('refused the token')).toContain('refused the token');
    await panel.screenshot('panel-pairing-wrong-token');

    await panel.pairing.pair(daemon.url, daemon.token);
    expect(await panel.pairing.waitUntilPaired()).toContain('daemon');
    expect(await panel.pairing.daemonUrl()).toBe(daemon.url);
    await panel.servers.waitForEmpty();
  });

  it('adds server-everything over STDIO and connects to it', async () => {
    await panel.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    const stored = await daemon!.api('GET', '/api/mcp/servers/everything');
    expect(stored.body.config).toEqual({ transport: 'stdio', ...EVERYTHING_COMMAND });

    await panel.servers.connect('everything');
    expect(await panel.servers.status('everything')).toBe('connected');
    const tools = await panel.tools.names();
    expect(tools).toEqual(
      expect.arrayContaining(['echo', 'trigger-elicitation-request', 'get-structured-content']),
    );
  });

  it('follows a server added, changed and removed elsewhere, without a reload', async () => {
    const api = daemon!.api.bind(daemon);
    const item = byTestId('server-elsewhere');
    const config = { transport: 'stdio', ...EVERYTHING_COMMAND };
    expect((await api('PUT', '/api/mcp/servers/elsewhere', { name: 'Added elsewhere', config })).status).toBe(
      201,
    );
    expect(await waitForText(panel.page, `${item} strong`, 'Added elsewhere', true)).toBeTruthy();
    expect(
      (await api('PUT', '/api/mcp/servers/elsewhere', { name: 'Changed elsewhere', config })).status,
    ).toBe(200);
    expect(await waitForText(panel.page, `${item} strong`, 'Changed elsewhere', true)).toBeTruthy();
    await panel.screenshot('panel-server-added-elsewhere');
    expect((await api('DELETE', '/api/mcp/servers/elsewhere')).status).toBe(200);
    await panel.page.waitForSelector(item, { hidden: true });
    // The server being looked at stays selected throughout.
    expect(await panel.page.$(`${byTestId('server-everything')}[aria-selected="true"]`)).not.toBeNull();
  });

  it('runs echo through the generated form and shows the echoed text', async () => {
    await panel.tools.select('echo');
    await panel.tools.fill('message', message);
    await panel.tools.run();
    expect(await panel.tools.resultWith(`Echo: ${message}`)).toContain(`Echo: ${message}`);
    await panel.screenshot('panel-tools-echo');
    await panel.screenshot('panel-tools-echo-docked', { height: 400 });
    await panel.screenshot('panel-tools-echo-dark', { theme: 'dark' });
  });

  it('answers the elicitation of trigger-elicitation-request and shows the completed result', async () => {
    await panel.tools.select('trigger-elicitation-request');
    await panel.tools.run();
    expect(await panel.elicitation.message()).toBe('Please provide inputs for the following fields:');
    // `name` is required: Accept stays disabled until it is filled.
    expect(await panel.elicitation.acceptEnabled()).toBe(false);
    await panel.elicitation.fill('name', 'Ada Lovelace');
    await panel.elicitation.waitForAcceptEnabled();
    await panel.screenshot('panel-elicitation');
    await panel.screenshot('panel-elicitation-dark', { theme: 'dark' });
    await panel.screenshot('panel-elicitation-docked', { height: 400 });
    await panel.elicitation.answer({ name: 'Ada Lovelace' });

    const result = await panel.tools.resultWith('User provided the requested information');
    expect(result).toContain('- Name: Ada Lovelace');
    expect(await panel.tools.runState()).toBe('completed');
  });

  it('validates the structured content of get-structured-content against its output schema', async () => {
    await panel.tools.select('get-structured-content');
    await panel.tools.fill('location', 'Chicago');
    await panel.tools.run();
    const result = await panel.tools.resultWith('Light rain / drizzle');
    expect(result).toContain('Valid against outputSchema');
    await panel.tools.waitForValidationOk();
    expect(await panel.tools.structuredContent()).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
    await panel.screenshot('panel-structured-content');
  });

  it('shows each tool its own last result when switching between tools', async () => {
    await panel.tools.select('echo');
    const echoResult = await panel.tools.resultWith(`Echo: ${message}`);
    expect(echoResult).not.toContain('Light rain');
    await panel.tools.select('get-sum');
    expect(await panel.tools.hasResult()).toBe(false);
    await panel.tools.select('get-structured-content');
    expect(await panel.tools.resultWith('Light rain / drizzle')).toContain('Valid against outputSchema');
  });

  it('keeps a saved request across a reload and a new tab, and loads it back into the form', async () => {
    await panel.tools.select('echo');
    expect(await panel.tools.fieldValue('message')).toBe(message);
    await panel.savedRequests.save('Greeting');
    expect(await panel.savedRequests.titles()).toEqual(['Greeting']);
    await panel.screenshot('panel-saved-requests');

    await panel.reload();
    await panel.pairing.waitUntilPaired();
    expect(await panel.savedRequests.titles()).toEqual(['Greeting']);

    await panel.close();
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.pairing.waitUntilPaired();
    expect(await panel.savedRequests.titles()).toEqual(['Greeting']);

    // A fresh page starts with empty forms; Load brings back the tool and its parameters.
    await panel.tools.select('get-structured-content');
    await panel.savedRequests.load('Greeting');
    await panel.tools.waitForSelected('echo');
    expect(await panel.tools.fieldValue('message')).toBe(message);
    await panel.tools.run();
    expect(await panel.tools.resultWith(`Echo: ${message}`)).toContain(`Echo: ${message}`);
  });

  it('says so when a saved request names a tool the server no longer lists, keeping the saved requests', async () => {
    // A request saved when the server still had a tool it has since renamed.
    await panel.page.evaluate(async () => {
      const local = (
        globalThis as unknown as {
          chrome: { storage: { local: { get(k: string): Promise<any>; set(v: object): Promise<void> } } };
        }
      ).chrome.storage.local;
      const key = 'savedRequests:everything';
      const stored = (await local.get(key))[key];
      const list = Array.isArray(stored) ? stored : stored.requests;
      list.push({ ...list[0], id: 'renamed', title: 'Old tool', toolName: 'echo-v1' });
      await local.set({ [key]: stored });
    });
    await panel.reload();
    await panel.pairing.waitUntilPaired();
    await panel.savedRequests.load('Old tool');
    expect(await waitForText(panel.page, byTestId('tool-missing'), 'echo-v1')).toContain(
      'This server lists no tool named “echo-v1”',
    );
    expect(await panel.savedRequests.titles()).toEqual(['Greeting', 'Old tool']);
    await panel.screenshot('panel-saved-request-missing-tool');
    await panel.savedRequests.load('Greeting');
    await panel.tools.waitForSelected('echo');
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
    await options.pairing.pair(daemon.url, 'not-the-token');
    await options.pairing.problem('refused the token');
    await options.pairing.pair(daemon.url, daemon.token);
    const { version } = (await daemon.api('GET', '/api/mcp/health')).body;
    expect(await options.pairing.ok()).toBe(`Paired with daemon ${version}`);
    await options.screenshot('options-paired');

    const panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    expect(await panel.pairing.waitUntilPaired()).toContain('daemon');
    expect(await panel.pairing.isShown()).toBe(false);
  });
});
