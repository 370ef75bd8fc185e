/**
 * The inspected page's WebMCP tools in real DevTools, in Chromium started with `--enable-features=WebMCP`:
 * a page on loopback registers tools with `document.modelContext.registerTool`; the panel lists them as
 * "This page (WebMCP)" (name, description, schema, annotations), runs one in the page with the tool form
 * and shows its result, cancels a call by aborting its signal, lists the calls in the Page view marked as
 * WebMCP, and follows the page as it registers another tool, aborts the signal of one, and reloads.
 */
import { createServer, type Server } from 'node:http';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Frame } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type TestDaemon } from '../daemon/helpers.ts';
import type { ExtensionBrowser } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { launchWithDevTools, openMcpPanel } from './support/devtools.ts';
import { byTestId } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { WebMcpView } from './support/pages/webmcp.ts';
import { SCREENSHOT_DIR } from './support/paths.ts';
import { USER_FLOW } from './support/user-flow.ts';

/** A page with WebMCP tools: one read-only, one that returns a plain string, one it can take back. */
const PAGE_HTML = `<!doctype html><title>WebMCP page</title><h1>A page with WebMCP tools</h1>
<script>
const context = document.modelContext;
context.registerTool({
  name: 'echo',
  title: 'Echo',
  description: 'Echoes the message back, as the page heard it',
  inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'What to echo' } },
    required: ['message'] },
  annotations: { readOnlyHint: true },
  execute: async ({ message }) => ({ content: [{ type: 'text', text: 'page heard: ' + message }] }),
});
context.registerTool({
  name: 'count-items',
  description: 'Counts the list items of the page',
  execute: () => String(document.querySelectorAll('li').length) + ' items',
});
context.registerTool({
  name: 'slow',
  description: 'Ends only when its call is cancelled',
  execute: (args, client) => new Promise((resolve, reject) => {
    client.signal.addEventListener('abort', () => {
      window.slowAborted = true;
      reject(new DOMException('stopped', 'AbortError'));
    });
  }),
});
const temporary = new AbortController();
context.registerTool({
  name: 'temporary',
  description: 'Gone once the page aborts its signal',
  execute: () => ({ content: [{ type: 'text', text: 'still here' }] }),
}, { signal: temporary.signal });
window.removeTemporary = () => temporary.abort();
window.addLater = () => context.registerTool({
  name: 'added-later',
  description: 'Registered after the panel opened',
  execute: () => ({ content: [{ type: 'text', text: 'late' }] }),
});
</script><ul><li>one</li><li>two</li></ul>`;

function startSite(port: number): Promise<Server> {
  const site = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE_HTML);
  });
  return new Promise((resolve) => site.listen(port, '127.0.0.1', () => resolve(site)));
}

async function pageRows(panel: Frame): Promise<Array<[string, string, string, string]>> {
  return panel.$$eval(byTestId('page-row'), (els) =>
    els.map((el) => [
      el.getAttribute('data-kind') ?? '',
      el.getAttribute('data-method') ?? '',
      el.getAttribute('data-status') ?? '',
      el.getAttribute('data-webmcp') ?? '',
    ]),
  ) as Promise<Array<[string, string, string, string]>>;
}

describe("the page's WebMCP tools in real DevTools", USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let site: Server;
  let siteUrl: string;

  beforeAll(async () => {
    ext = await launchWithDevTools({ features: ['WebMCP'] });
    daemon = await startDaemonForExtension();
    const port = await freePort();
    site = await startSite(port);
    siteUrl = `http://127.0.0.1:${port}`;
    // The panel in DevTools reads the pairing the extension stored.
    const tab = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await tab.pairing.pair(daemon.url, daemon.token);
    await tab.pairing.waitUntilPaired();
    await tab.close();
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
    await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  });

  it('lists the tools, runs one in the page, cancels one, logs the calls, and follows the page adding, removing and reloading tools', async () => {
    const inspected = await ext.browser.newPage();
    await inspected.goto(`${siteUrl}/`);
    const { devtools, panel } = await openMcpPanel(inspected, { width: 1300, height: 1000 }, 'right');
    await panel.waitForSelector(byTestId('daemon-status'));
    const webmcp = new WebMcpView(panel);
    await webmcp.open();

    expect(await webmcp.waitForNames(['count-items', 'echo', 'slow', 'temporary'])).toHaveLength(4);
    expect(await webmcp.status()).toBe('4 tools');
    await webmcp.select('echo');
    const detail = await webmcp.detail();
    expect(detail.description).toBe('Echoes the message back, as the page heard it');
    expect(detail.origin).toContain(siteUrl);
    // Chromium fills the hints it knows with false; only the one the page set is shown.
    expect(detail.hints).toEqual(['readOnlyHint']);
    expect(JSON.parse(detail.schema)).toMatchObject({ required: ['message'] });

    await webmcp.fill('message', 'hello from the panel');
    const echoed = await webmcp.run();
    expect(echoed.state).toBe('completed');
    expect(echoed.result).toContain('page heard: hello from the panel');

    await devtools.bringToFront();
    await panel.$eval(byTestId('webmcp-result'), (el) => el.scrollIntoView({ block: 'end' }));
    await panel.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await devtools.screenshot({ path: join(SCREENSHOT_DIR, 'devtools-webmcp.png') });

    // A tool that answers a plain value: shown as text, and said to be no MCP result.
    await webmcp.select('count-items');
    const counted = await webmcp.run();
    expect(counted.result).toContain('2 items');
    expect(await panel.$eval(byTestId('webmcp-result-note'), (el) => el.textContent)).toContain(
      'not an MCP tool result',
    );

    // Cancel aborts the signal the page's tool was called with.
    await webmcp.select('slow');
    await panel.$eval(byTestId('webmcp-run'), (el) => (el as HTMLElement).click());
    await panel.waitForSelector(`${byTestId('run-status')}[data-state="running"]`);
    await panel.$eval(byTestId('run-cancel'), (el) => (el as HTMLElement).click());
    await panel.waitForSelector(`${byTestId('run-status')}[data-state="cancelled"]`, { timeout: 20_000 });
    expect(await inspected.evaluate('window.slowAborted')).toBe(true);

    // Live: a tool registered now shows; one whose signal the page aborts goes.
    await inspected.evaluate('window.addLater()');
    await webmcp.waitForNames(['added-later', 'count-items', 'echo', 'slow', 'temporary']);
    await inspected.evaluate('window.removeTemporary()');
    await webmcp.waitForNames(['added-later', 'count-items', 'echo', 'slow']);

    // Each call is in the Page view, marked as WebMCP, paired with its answer.
    await panel.$eval(byTestId('tab-page'), (el) => (el as HTMLElement).click());
    await panel.waitForSelector(byTestId('page-row'));
    expect(await pageRows(panel)).toEqual([
      ['request', 'tools/call', 'ok', 'true'],
      ['request', 'tools/call', 'ok', 'true'],
      ['request', 'tools/call', 'cancelled', 'true'],
      ['notification', 'notifications/cancelled', '', 'true'],
    ]);
    await panel.$eval(`${byTestId('page-row')} .summary`, (el) => (el as HTMLElement).click());
    expect(await panel.$eval(byTestId('page-row'), (el) => (el as HTMLElement).innerText)).toContain(
      'hello from the panel',
    );

    // A new document (the page reloads): its tools are those it registers at load, asked afresh.
    await panel.$eval(byTestId('tab-tools'), (el) => (el as HTMLElement).click());
    await inspected.reload();
    await webmcp.waitForNames(['count-items', 'echo', 'slow', 'temporary']);
    await devtools.close();
    await inspected.close();
  });
});
