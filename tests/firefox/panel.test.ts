import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension } from '../e2e/support/daemon.ts';
import { byTestId } from '../e2e/support/pages/dom.ts';
import { PanelPage } from '../e2e/support/pages/panel.ts';
import { POPUP_VIEWPORT, PopupPage } from '../e2e/support/pages/popup.ts';
import { USER_FLOW } from '../e2e/support/user-flow.ts';
import { type FirefoxExtension, launchFirefoxWithExtension, openExtensionPage } from './support/firefox.ts';
import { FIREFOX_EXTENSION_DIR } from './support/paths.ts';
import { firefoxScreenshot } from './support/screenshot.ts';

// Firefox with the Firefox build and one daemon go through the core flow step by step: each test starts
// where the one before it stopped.
describe('the Firefox build: panel, popup and options page', USER_FLOW, () => {
  let ext: FirefoxExtension;
  let daemon: TestDaemon;
  let panel: PanelPage;
  const message = 'hello from the Firefox test';

  beforeAll(async () => {
    ext = await launchFirefoxWithExtension();
    daemon = await startDaemonForExtension();
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('is a Manifest V3 add-on with nothing Firefox does not read', () => {
    const manifest = JSON.parse(readFileSync(join(FIREFOX_EXTENSION_DIR, 'manifest.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.manifest_version).toBe(3);
    expect(manifest).not.toHaveProperty('sandbox');
    expect(manifest.content_security_policy).toEqual({ extension_pages: "script-src 'self'" });
    expect(manifest.browser_specific_settings).toMatchObject({ gecko: { id: ext.addonId } });
  });

  it('is installed with the daemon default address granted and other ports left to ask for', async () => {
    const page = await openExtensionPage(
      ext.browser,
      ext.pageUrl('devtools-panel.html'),
      byTestId('pair-url'),
    );
    panel = new PanelPage(page);
    const granted = await page.evaluate(async () => {
      const api = (
        globalThis as unknown as { browser: { permissions: { getAll(): Promise<{ origins: string[] }> } } }
      ).browser;
      return (await api.permissions.getAll()).origins;
    });
    expect(granted.sort()).toEqual(['http://127.0.0.1:6274/*', 'http://localhost:6274/*']);
  });

  it('pairs with a daemon on another port: Firefox grants the loopback ports from the Connect click', async () => {
    await panel.pairing.pair(daemon.url, daemon.token);
    expect(await panel.pairing.waitUntilPaired()).toContain('daemon');
    expect(await panel.pairing.daemonUrl()).toBe(daemon.url);
    const granted = await panel.page.evaluate(async () => {
      const api = (
        globalThis as unknown as { browser: { permissions: { getAll(): Promise<{ origins: string[] }> } } }
      ).browser;
      return (await api.permissions.getAll()).origins;
    });
    expect(granted).toEqual(expect.arrayContaining(['http://127.0.0.1/*']));
    // The live channel's ws:// reaches the daemon: the build's page policy upgrades no request.
    expect(await panel.waitForLive()).toBe('live');
    await panel.servers.waitForEmpty();
  });

  it('adds server-everything over STDIO and connects to it', async () => {
    await panel.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    const stored = await daemon.api('GET', '/api/mcp/servers/everything');
    expect(stored.body.config).toEqual({ transport: 'stdio', ...EVERYTHING_COMMAND });
    await panel.servers.connect('everything');
    expect(await panel.servers.status('everything')).toBe('connected');
    expect(await panel.tools.names()).toEqual(expect.arrayContaining(['echo', 'get-structured-content']));
  });

  it('runs echo through the generated form and shows the echoed text', async () => {
    await panel.tools.select('echo');
    await panel.tools.fill('message', message);
    await panel.tools.run();
    expect(await panel.tools.resultWith(`Echo: ${message}`)).toContain(`Echo: ${message}`);
    await firefoxScreenshot(panel.page, 'firefox-panel-echo');
  });

  it('runs echo from the toolbar popup, paired by the panel', async () => {
    const page = await openExtensionPage(
      ext.browser,
      ext.pageUrl('popup.html'),
      byTestId('popup-status'),
      POPUP_VIEWPORT,
    );
    const popup = new PopupPage(page);
    const { version } = (await daemon.api('GET', '/api/mcp/health')).body;
    expect(await popup.daemonStatus()).toBe(`● daemon ${version} at ${daemon.url}`);
    await popup.selectServer('everything');
    await popup.waitForServerOption('everything (connected)');
    await popup.selectTool('echo');
    await popup.fill('message', `${message}, in the popup`);
    await popup.run();
    expect(await popup.resultWith(`Echo: ${message}, in the popup`)).toContain('in the popup');
    expect(await popup.runState()).toBe('completed');
    await firefoxScreenshot(page, 'firefox-popup-echo');
  });

  it('shows the pairing on the options page, which pairs again with the same daemon', async () => {
    const page = await openExtensionPage(ext.browser, ext.pageUrl('options.html'), byTestId('pair-url'));
    const options = new PanelPage(page);
    expect(await options.pairing.url()).toBe(daemon.url);
    await options.pairing.pair(daemon.url, daemon.token);
    expect(await options.pairing.ok()).toContain('Paired');
  });
});
