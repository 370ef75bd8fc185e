/**
 * The Logs view's Record button in Chromium: a session of server-everything recorded in the panel while
 * a tool is called, downloaded as .jsonl, then served by `inspector-daemon replay` to the MCP SDK's
 * client, which gets the answer the live server gave.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchanges, parseSession } from '../../shared/session-file.ts';
import { DAEMON_COMMAND, ROOT, type TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

const RECORD = byTestId('log-record');

describe('recording a session in the Logs view', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let downloads: string;
  let panel: PanelPage;

  beforeAll(async () => {
    downloads = await mkdtemp(join(tmpdir(), 'inspector-e2e-record-'));
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    const cdp = await ext.browser.target().createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
    if (downloads) await rm(downloads, { recursive: true, force: true });
  });

  it('records the checked server from Record to Stop and downloads a session that replays', async () => {
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    expect(await panel.waitForLive()).toBe('live');
    await panel.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await panel.servers.connect('everything');
    await panel.openTab('logs');
    await panel.logs.filterByServers(['everything']);

    await panel.page.locator(RECORD).click();
    // Starting lists the tools, resources and prompts: three requests and their answers at least.
    await panel.page.waitForFunction(
      (sel: string) => Number(/\((\d+)\)/.exec(document.querySelector(sel)?.textContent ?? '')?.[1]) >= 6,
      {},
      RECORD,
    );
    const call = await daemon.api('POST', '/api/mcp/servers/everything/tools/echo/call', {
      parameters: { message: 'recorded in the panel' },
    });
    expect(call.status).toBe(200);
    // The call's answer reaches the panel through the live channel.
    await panel.logs.filterByMethod('tools/call');
    await panel.logs.waitForRow();
    await panel.page.locator(RECORD).click();
    await waitForText(panel.page, RECORD, '● Record', true);
    await panel.page.locator(byTestId('log-session-download')).click();

    let file: string | undefined;
    for (let tries = 0; tries < 100 && !file; tries++) {
      file = (await readdir(downloads)).find((name) => /^mcp-session-everything-.*\.jsonl$/.test(name));
      if (!file) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(file).toBeDefined();
    const path = join(downloads, file!);
    const session = parseSession(await readFile(path, 'utf8'), path);
    expect(session.header.server.serverInfo?.name).toBe('mcp-servers/everything');
    const methods = exchanges(session).map((exchange) => exchange.method);
    expect(methods).toEqual(
      expect.arrayContaining(['tools/list', 'resources/list', 'prompts/list', 'tools/call']),
    );

    const client = new Client({ name: 'e2e-record', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...DAEMON_COMMAND, 'replay', path],
        cwd: ROOT,
        stderr: 'ignore',
      }),
    );
    try {
      expect(
        await client.callTool({ name: 'echo', arguments: { message: 'recorded in the panel' } }),
      ).toEqual(call.body.result);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    } finally {
      await client.close();
    }
  });
});
