/**
 * The Page view inside real DevTools: a web page on loopback calls the remote fixture MCP server over
 * Streamable HTTP (initialize, the initialized notification, tools/list, and a tools/call whose event
 * stream brings a progress notification before its result) with fetch, as a page's own MCP client
 * would; the panel lists those calls paired with their answers and adds the endpoint as a server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Frame } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, freePort, ROOT, stopProcess, TSX_LOADER, type TestDaemon } from '../daemon/helpers.ts';
import type { ExtensionBrowser } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { launchWithDevTools, openMcpPanel } from './support/devtools.ts';
import { byTestId } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { WebMcpView } from './support/pages/webmcp.ts';
import { SCREENSHOT_DIR } from './support/paths.ts';
import { USER_FLOW } from './support/user-flow.ts';

/** The page's own MCP client: plain fetch, reading each answer whole (JSON or an event stream). */
const PAGE_HTML = `<!doctype html><title>MCP page</title><h1>A page with its own MCP client</h1>
<script>
let session;
async function call(message) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
    Authorization: 'Bearer page-e2e-token' };
  if (session) { headers['Mcp-Session-Id'] = session; headers['Mcp-Protocol-Version'] = '2025-06-18'; }
  const response = await fetch('/mcp', { method: 'POST', headers, body: JSON.stringify(message) });
  session = response.headers.get('Mcp-Session-Id') || session;
  return response.status + ' ' + (await response.text()).length;
}
// The older HTTP+SSE transport: a GET stream names the POST address, its answers come on the stream;
// the page cancels the stream once it has its answers, as a page leaving would.
window.runLegacy = async () => {
  const controller = new AbortController();
  const stream = await fetch('/sse', { headers: { Accept: 'text/event-stream', Authorization: 'Bearer legacy-token' },
    signal: controller.signal });
  const reader = stream.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const until = async (needle) => {
    while (!text.includes(needle)) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before ' + needle);
      text += decoder.decode(value, { stream: true });
    }
  };
  await until('event: endpoint');
  await until('\\n\\n');
  const endpoint = /data: (.*)/.exec(text)[1].trim();
  const post = (message) => fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(message) });
  await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {},
    clientInfo: { name: 'page', version: '1' } } });
  await until('"id":1');
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  await until('"id":2');
  controller.abort();
  return endpoint;
};
window.runMcp = async () => {
  const answers = [];
  answers.push(await call({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18',
    capabilities: {}, clientInfo: { name: 'page', version: '1' } } }));
  answers.push(await call({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  answers.push(await call({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
  answers.push(await call({ jsonrpc: '2.0', id: 3, method: 'tools/call',
    params: { name: 'wait', arguments: { ms: 10, progress: true }, _meta: { progressToken: 'p-1' } } }));
  return answers;
};
</script>`;

/** The remote fixture server (Streamable HTTP with event streams, or HTTP+SSE) on `port`, once it listens. */
async function startRemote(mode: 'http' | 'sse', port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...TSX_LOADER, join(FIXTURES, 'remote-server.ts'), mode, String(port)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('listening on')) resolve();
    });
    child.once('exit', () => reject(new Error('the remote fixture exited before listening')));
  });
  return child;
}

/**
 * The web page at `/`, `/mcp` passed through to the Streamable HTTP fixture server and `/sse` and
 * `/messages` to the HTTP+SSE one: one origin, as a site would have.
 */
function startSite(mcpPort: number, ssePort: number, port: number): Promise<Server> {
  const site = createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE_HTML);
      return;
    }
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: req.url?.startsWith('/mcp') ? mcpPort : ssePort,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((resolve) => site.listen(port, '127.0.0.1', () => resolve(site)));
}

async function rows(panel: Frame): Promise<Array<[string, string, string]>> {
  return panel.$$eval(byTestId('page-row'), (els) =>
    els.map((el) => [
      el.getAttribute('data-kind') ?? '',
      el.getAttribute('data-method') ?? '',
      el.getAttribute('data-status') ?? '',
    ]),
  ) as Promise<Array<[string, string, string]>>;
}

describe("the Page view: the inspected page's MCP traffic in real DevTools", USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let remote: ChildProcess;
  let legacyRemote: ChildProcess;
  let site: Server;
  let siteUrl: string;

  beforeAll(async () => {
    ext = await launchWithDevTools();
    daemon = await startDaemonForExtension();
    const mcpPort = await freePort();
    remote = await startRemote('http', mcpPort);
    const ssePort = await freePort();
    legacyRemote = await startRemote('sse', ssePort);
    const sitePort = await freePort();
    site = await startSite(mcpPort, ssePort, sitePort);
    siteUrl = `http://127.0.0.1:${sitePort}`;
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
    if (remote) await stopProcess(remote);
    if (legacyRemote) await stopProcess(legacyRemote);
    await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  });

  it('has no Page tab where there is no DevTools (the panel opened as a tab)', async () => {
    const tab = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await tab.pairing.pair(daemon.url, daemon.token);
    await tab.pairing.waitUntilPaired();
    await tab.page.waitForSelector(byTestId('tab-logs'));
    expect(await tab.page.$(byTestId('tab-page'))).toBeNull();
    // Nor the page's WebMCP entry in the server list: there is no inspected page.
    expect(await tab.page.$(byTestId('server-webmcp'))).toBeNull();
    await tab.close();
  });

  it("lists the page's calls paired with their answers, and adds its endpoint as a server", async () => {
    const inspected = await ext.browser.newPage();
    await inspected.goto(`${siteUrl}/`);
    const { devtools, panel } = await openMcpPanel(inspected, { width: 1000, height: 900 }, 'right');
    await panel.waitForSelector(byTestId('daemon-status'));
    const click = (sel: string) => panel.$eval(sel, (el) => (el as HTMLElement).click());
    // This Chromium runs without the WebMCP feature: the page's entry says so plainly.
    const webmcp = new WebMcpView(panel);
    await webmcp.open();
    const absent = await webmcp.stateText();
    expect(absent.state).toBe('absent');
    expect(absent.text).toContain('--enable-features=WebMCP');
    expect(await webmcp.status()).toBe('no WebMCP');
    await click(byTestId('tab-page'));
    await panel.waitForSelector(byTestId('page-empty'));

    const answers = (await inspected.evaluate('window.runMcp()')) as string[];
    expect(answers.map((answer) => answer.split(' ')[0])).toEqual(['200', '202', '200', '200']);

    await panel.waitForFunction(
      (sel: string) => document.querySelectorAll(sel).length >= 5,
      { timeout: 20_000 },
      byTestId('page-row'),
    );
    expect(await rows(panel)).toEqual([
      ['request', 'initialize', 'ok'],
      ['notification', 'notifications/initialized', ''],
      ['request', 'tools/list', 'ok'],
      ['request', 'tools/call', 'ok'],
      ['notification', 'notifications/progress', ''],
    ]);

    // The call's row opens on its request and the result that ended its event stream.
    await click(`${byTestId('page-row')}[data-method="tools/call"] .summary`);
    const detail = await panel.$eval(
      `${byTestId('page-row')}[data-method="tools/call"]`,
      (el) => (el as HTMLElement).innerText,
    );
    expect(detail).toContain('waited 10 ms');
    expect(detail).toContain('event stream');
    expect(detail).toContain('Authorization');
    expect(detail).not.toContain('page-e2e-token');

    await devtools.bringToFront();
    await panel.$eval(byTestId('page-http'), (el) => el.scrollIntoView({ block: 'end' }));
    // Two frames drawn in front, so the shot is of the panel as it is now.
    await panel.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await devtools.screenshot({ path: join(SCREENSHOT_DIR, 'devtools-page-traffic.png') });

    await click(`${byTestId('page-row')}[data-method="tools/call"] ${byTestId('page-add-server')}`);
    await panel.waitForSelector(byTestId('page-add-result'));
    const result = await panel.$eval(byTestId('page-add-result'), (el) => (el as HTMLElement).innerText);
    expect(result).toContain('Added as 127.0.0.1-mcp');
    const { body } = await daemon.api('GET', '/api/mcp/servers/127.0.0.1-mcp');
    expect(body.config).toMatchObject({ transport: 'http', url: `${siteUrl}/mcp` });
    expect(Object.keys((body.config as { headers: object }).headers)).toEqual(['Authorization']);
    expect((await daemon.api('POST', '/api/mcp/servers/127.0.0.1-mcp/connect')).body).toMatchObject({
      status: 'connected',
    });

    // The call, replayed through the daemon to the server just added, answers as it did to the page.
    const call = `${byTestId('page-row')}[data-method="tools/call"]`;
    await panel.waitForSelector(`${call} ${byTestId('page-replay-run')}`);
    await click(`${call} ${byTestId('page-replay-run')}`);
    await panel.waitForSelector(`${call} ${byTestId('page-replay')}:not([data-state="running"])`);
    const replayed = await panel.$eval(`${call} ${byTestId('page-replay')}`, (el) => ({
      state: el.getAttribute('data-state'),
      verdict: el.querySelector('[data-testid="page-replay-verdict"]')?.textContent?.trim(),
      original: el.querySelector('[data-testid="page-replay-original"]')?.textContent,
      daemon: el.querySelector('[data-testid="page-replay-daemon"]')?.textContent,
    }));
    expect(replayed).toMatchObject({ state: 'ok', verdict: "Same answer as the page's." });
    expect(replayed.original).toContain('waited 10 ms');
    expect(replayed.daemon).toContain('waited 10 ms');
    await devtools.bringToFront();
    await panel.$eval(`${call} ${byTestId('page-replay')}`, (el) => el.scrollIntoView({ block: 'end' }));
    await panel.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    await devtools.screenshot({ path: join(SCREENSHOT_DIR, 'devtools-page-replay.png') });
    await devtools.close();
    await inspected.close();
  });

  it('lists the POSTs of the older HTTP+SSE transport, says why their answers are missing, and adds its stream', async () => {
    const inspected = await ext.browser.newPage();
    await inspected.goto(`${siteUrl}/`);
    const { devtools, panel } = await openMcpPanel(inspected, { width: 1000, height: 900 }, 'right');
    await panel.waitForSelector(byTestId('daemon-status'));
    const click = (sel: string) => panel.$eval(sel, (el) => (el as HTMLElement).click());
    await click(byTestId('tab-page'));
    await panel.waitForSelector(byTestId('page-empty'));

    expect(await inspected.evaluate('window.runLegacy()')).toMatch(/\/messages\?sessionId=/);
    await panel.waitForFunction(
      (sel: string) => document.querySelectorAll(sel).length >= 4,
      { timeout: 20_000 },
      byTestId('page-row'),
    );
    // The stream the page cancelled comes with no body: its answers cannot be paired, and a row says so.
    const listed = await rows(panel);
    expect(listed).toHaveLength(4);
    expect(listed).toEqual(
      expect.arrayContaining([
        ['request', 'initialize', 'pending'],
        ['notification', 'notifications/initialized', ''],
        ['request', 'tools/list', 'pending'],
        ['stderr', '', ''],
      ]),
    );
    const problem = await panel.$eval(
      `${byTestId('page-row')}[data-kind="stderr"]`,
      (el) => (el as HTMLElement).innerText,
    );
    expect(problem).toContain('/sse: DevTools gave no body for this event stream');

    // Its POST adds the stream's address as an SSE server, with the stream's Authorization header.
    await click(`${byTestId('page-row')}[data-method="initialize"] .summary`);
    await click(`${byTestId('page-row')}[data-method="initialize"] ${byTestId('page-add-server')}`);
    await panel.waitForSelector(byTestId('page-add-result'));
    expect(await panel.$eval(byTestId('page-add-result'), (el) => (el as HTMLElement).innerText)).toContain(
      'Added as 127.0.0.1-sse',
    );
    const { body } = await daemon.api('GET', '/api/mcp/servers/127.0.0.1-sse');
    expect(body.config).toMatchObject({ transport: 'sse', url: `${siteUrl}/sse` });
    expect(Object.keys((body.config as { headers: object }).headers)).toEqual(['Authorization']);
    expect((await daemon.api('POST', '/api/mcp/servers/127.0.0.1-sse/connect')).body).toMatchObject({
      status: 'connected',
    });
    await devtools.close();
    await inspected.close();
  });
});
