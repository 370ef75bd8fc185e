import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension } from './support/daemon.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

const SHOTS = '/tmp/shots-client';

// The client side of MCP in the panel, with server-everything: what the server says of itself, ping and
// log level, the roots offered to it, completions while typing a prompt argument, and a sampling request
// answered by hand. Each test goes on where the one before it stopped.
describe('client features in the panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let panel: PanelPage;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    // The era picked in the editor: server-everything speaks only the legacy era.
    await panel.servers.addStdio(
      'everything',
      EVERYTHING_COMMAND.command,
      EVERYTHING_COMMAND.args,
      undefined,
      'legacy',
    );
    await panel.servers.connect('everything');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('shows the server, its instructions and capabilities, pings it and sets its log level', async () => {
    await panel.openTab('server');
    await panel.serverInfo.version('mcp-servers/everything');
    expect(await panel.serverInfo.protocol()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await panel.serverInfo.era()).toBe('legacy (initialize) · setting: legacy');
    expect((await panel.serverInfo.instructions()).length).toBeGreaterThan(20);
    await panel.serverInfo.waitForCapability('logging');

    expect(await panel.serverInfo.ping()).toContain('answered in');

    await panel.serverInfo.setLoggingLevel('debug');
    const record = await (
      await fetch(`${daemon!.url}/api/mcp/servers/everything`, {
        headers: { 'X-Inspector-Token': daemon!.token },
      })
    ).json();
    expect(record.loggingLevel).toBe('debug');
  });

  it('offers the roots edited in the Server view to the server', async () => {
    await panel.serverInfo.addRoot();
    // A root added is empty, not `file:///` (the whole disk), and cannot be saved so.
    expect(await panel.page.$eval('[data-testid="root-uri-0"]', (el) => (el as HTMLInputElement).value)).toBe(
      '',
    );
    // The keyboard that added it is in its URI box, and an empty box is no error until it is left.
    expect(await panel.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'root-uri-0',
    );
    expect(await panel.page.$('[data-testid="root-0"] .error-text')).toBeNull();
    expect(await panel.serverInfo.saveRootsEnabled()).toBe(false);
    // Asked to save as it is, it says why not, and keeps the keyboard there.
    await panel.page.keyboard.down('Control');
    await panel.page.keyboard.press('Enter');
    await panel.page.keyboard.up('Control');
    await panel.serverInfo.rootProblem(0, 'a URI is needed');
    expect(await panel.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'root-uri-0',
    );
    expect(await panel.serverInfo.saveRootsEnabled()).toBe(false);
    await panel.serverInfo.fillRoot(0, 'https://not-a-folder');
    await panel.serverInfo.rootProblem(0, 'use a file:// URI');
    expect(await panel.serverInfo.saveRootsEnabled()).toBe(false);
    await panel.serverInfo.fillRoot(0, 'file:///tmp/inspector-demo', 'Demo project');
    await panel.serverInfo.saveRoots();
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/server-view.png` });

    await panel.openTab('tools');
    await panel.tools.select('get-roots-list');
    await panel.tools.run();
    const text = await panel.tools.resultWith('file:///tmp/inspector-demo');
    expect(text).toContain('Demo project');
  });

  it('suggests prompt argument values from completion/complete, with the other arguments as context', async () => {
    await panel.openTab('prompts');
    await panel.prompts.select('completable-prompt');
    await panel.prompts.fillArgument('department', 'S');
    expect(await panel.prompts.suggestions('department', 2)).toEqual(['Sales', 'Support']);
    expect(await panel.prompts.offersSuggestions('department')).toBe(true);

    await panel.prompts.fillArgument('department', 'Sales');
    await panel.prompts.fillArgument('name', 'E');
    expect(await panel.prompts.suggestions('name', 1)).toEqual(['Eve']);
  });

  it('shows a sampling request and sends the reply written by hand', async () => {
    await panel.openTab('tools');
    await panel.tools.select('trigger-sampling-request');
    await panel.tools.fill('prompt', 'a haiku about green tests');
    await panel.tools.run();
    expect(await panel.sampling.request()).toContain('a haiku about green tests');
    await panel.sampling.write('Green bars at dawn');
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/sampling-dialog.png` });
    await panel.sampling.send();
    const result = await panel.tools.resultWith('Green bars at dawn');
    expect(result).toContain('inspector-user');
  });
});
