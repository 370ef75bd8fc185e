import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, TSX_LOADER, type TestDaemon } from '../daemon/helpers.ts';
import { DEFAULT_DAEMON_URL, startDaemonForExtension } from '../e2e/support/daemon.ts';
import { byTestId } from '../e2e/support/pages/dom.ts';
import { PanelPage } from '../e2e/support/pages/panel.ts';
import type { WidgetView } from '../e2e/support/pages/widget.ts';
import { USER_FLOW } from '../e2e/support/user-flow.ts';
import { type FirefoxExtension, launchFirefoxWithExtension, openExtensionPage } from './support/firefox.ts';
import { firefoxScreenshot } from './support/screenshot.ts';

/** An attempt of the hostile fixture widget (tests/fixtures/widget-server.ts), as its report has it. */
interface Attempt {
  ok: boolean;
  value?: unknown;
  error?: string;
}

/** What the hostile widget reports in its follow-up message; the fields these tests read. */
interface HostileReport {
  origin: string;
  href: string;
  baseURI: string;
  name: string;
  referrer: string;
  ancestorOrigins: string[];
  chromeStorage: boolean;
  chromeRuntime: boolean;
  browserStorage: boolean;
  chromeStorageGet: Attempt;
  browserStorageGet: Attempt;
  localStorage: Attempt;
  cookie: Attempt;
  parentDocument: Attempt;
  parentLocation: Attempt;
  topDocument: Attempt;
  topLocation: Attempt;
  daemonUrls: string[];
  daemon: Record<string, { fetch: Attempt; image: Attempt; webSocket: Attempt }>;
  fetchHttps: Attempt;
  imageHttps: Attempt;
  openWindow: Attempt;
  navigateTop: Attempt;
  page: string;
  violations: { directive: string; blocked: string }[];
}

const blockedBy = (report: HostileReport, directive: string, target: string): boolean =>
  report.violations.some((v) => v.directive === directive && v.blocked.startsWith(target));

/**
 * Runs `tool` of the widget fixture through the form and waits for its widget to be ready. Firefox does
 * not report extension frames over WebDriver BiDi, so the widget's own document cannot be read here: what
 * it did shows in the panel (its messages, follow-ups, state and frame height) and in the screenshots.
 */
async function runWidgetTool(panel: PanelPage, tool: string, fields: Record<string, string> = {}) {
  await panel.tools.select(tool);
  for (const [path, value] of Object.entries(fields)) await panel.tools.fill(path, value);
  await panel.widget.markStale();
  await panel.tools.run();
  await panel.tools.result();
  await panel.page.waitForSelector(
    `${byTestId('widget')}:not([data-e2e-stale])[data-status="ready"] ${byTestId('widget-frame')}`,
  );
}

/** Presses the widget's first button (the counter's +1) from the keyboard: a click focuses its page. */
async function pressFirstButton(panel: PanelPage): Promise<void> {
  const box = await panel.page.$eval(byTestId('widget-frame'), (el) => el.getBoundingClientRect().toJSON());
  await panel.page.mouse.click(box.x + 2, box.y + 2);
  await panel.page.keyboard.press('Tab');
  await panel.page.keyboard.press('Enter');
}

// Firefox with the Firefox build, one daemon and the widget fixture go through the widget flow step by
// step: each test starts where the one before it stopped.
describe('the Firefox build: Apps-SDK widgets in the panel', USER_FLOW, () => {
  let ext: FirefoxExtension;
  let daemon: TestDaemon;
  let panel: PanelPage;
  let widget: WidgetView;

  beforeAll(async () => {
    ext = await launchFirefoxWithExtension();
    daemon = await startDaemonForExtension();
    const page = await openExtensionPage(
      ext.browser,
      ext.pageUrl('devtools-panel.html'),
      byTestId('pair-url'),
    );
    panel = new PanelPage(page);
    widget = panel.widget;
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    // The hostile widget is told where the daemon listens, to try it by every means it has.
    const args = [...TSX_LOADER, join(FIXTURES, 'widget-server.ts'), daemon.url];
    await panel.servers.addStdio('widgets', process.execPath, args, ROOT);
    await panel.servers.connect('widgets');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('renders the counter widget in the sandbox page, framed with sandbox="allow-scripts"', async () => {
    await runWidgetTool(panel, 'counter', { start: '4' });
    expect(await panel.tools.resultWith('Count: 5')).toContain('Count: 5');
    const frame = await panel.page.$eval(byTestId('widget-frame'), (el) => ({
      src: el.getAttribute('src'),
      sandbox: el.getAttribute('sandbox'),
    }));
    expect(frame).toEqual({ src: ext.pageUrl('sandbox.html'), sandbox: 'allow-scripts' });
    // The widget's script ran: it told the panel its height, which the frame now has (not the default).
    await widget.waitForMessage('in', 'openai:notifyIntrinsicHeight');
    const height = await panel.page.$eval(
      byTestId('widget-frame'),
      (el) => el.getBoundingClientRect().height,
    );
    expect(height).not.toBe(240);
  });

  it('relays the callTool of its +1 button to the daemon, answers it and keeps its state', async () => {
    await pressFirstButton(panel);
    await widget.waitForMessage('in', 'openai:setWidgetState');
    expect(await widget.expandLast('openai:callTool')).toMatchObject({
      toolName: 'counter',
      params: { start: 5 },
    });
    expect(await widget.expandLast('openai:callTool:result')).toMatchObject({
      result: { structuredContent: { count: 6 } },
    });
    await widget.collapseMessages();
    const stored = await panel.page.evaluate(() =>
      (
        globalThis as unknown as { browser: { storage: { local: { get(key: string): Promise<unknown> } } } }
      ).browser.storage.local.get('widgetState:widgets:counter'),
    );
    expect(stored).toEqual({ 'widgetState:widgets:counter': { clicks: 1 } });
    await firefoxScreenshot(panel.page, 'firefox-widget-counter');
  });

  it('keeps a hostile widget from extension storage and APIs, the token, the panel and the daemon', async () => {
    await runWidgetTool(panel, 'hostile');
    const [message] = await widget.followups('"origin"');
    const report = JSON.parse(message!) as HostileReport;

    // An opaque origin with no extension API, though its address is the extension's.
    expect(report.origin).toBe('null');
    expect(report.href).toBe(ext.pageUrl('sandbox.html'));
    expect(report.baseURI).toBe(ext.pageUrl('sandbox.html'));
    expect(report.ancestorOrigins).toEqual(['null']);
    expect([report.chromeStorage, report.chromeRuntime, report.browserStorage]).toEqual([
      false,
      false,
      false,
    ]);
    expect(report.chromeStorageGet.ok).toBe(false);
    expect(report.browserStorageGet.ok).toBe(false);
    for (const reach of [
      'localStorage',
      'cookie',
      'parentDocument',
      'parentLocation',
      'topDocument',
      'topLocation',
    ] as const) {
      expect(report[reach], reach).toMatchObject({
        ok: false,
        error: expect.stringContaining('SecurityError'),
      });
    }
    // The daemon at every address it knows, by fetch, <img> and WebSocket: the widget's policy stops each.
    expect(report.daemonUrls).toEqual([DEFAULT_DAEMON_URL, daemon.url]);
    for (const url of report.daemonUrls) {
      const tried = report.daemon[url]!;
      expect(tried.fetch, url).toMatchObject({ ok: false, error: expect.stringContaining('TypeError') });
      expect(tried.image.ok, url).toBe(false);
      expect(tried.webSocket.ok, url).toBe(false);
      expect(blockedBy(report, 'connect-src', `${url}/api/mcp/servers`), url).toBe(true);
      expect(blockedBy(report, 'img-src', `${url}/api/mcp/servers`), url).toBe(true);
      expect(blockedBy(report, 'connect-src', `${url.replace('http:', 'ws:')}/api/mcp/ws`), url).toBe(true);
    }
    expect(report.fetchHttps.ok).toBe(false);
    expect(blockedBy(report, 'connect-src', 'https://collect.example.com')).toBe(true);
    expect(report.imageHttps.ok).toBe(false);
    expect(blockedBy(report, 'img-src', 'https://pixel.example.com')).toBe(true);
    // No popups (Firefox throws where Chromium returns null) and no navigation of the panel.
    expect(report.openWindow).toMatchObject({
      ok: false,
      error: expect.stringContaining('InvalidAccessError'),
    });
    expect(report.navigateTop).toMatchObject({ ok: false, error: expect.stringContaining('SecurityError') });
    expect(await panel.page.evaluate(() => location.href)).toBe(ext.pageUrl('devtools-panel.html'));
    // Nothing it can read carries the token or the daemon's address.
    expect(report.name).toBe('');
    expect(report.referrer).toBe('');
    expect(JSON.stringify(report)).not.toContain(daemon.token);
    expect(JSON.stringify([report.href, report.baseURI, report.ancestorOrigins])).not.toMatch(
      /127\.0\.0\.1|6274/,
    );
    expect(report.page).toContain('Hostile widget');

    // The messages it should not send are shown, and nothing was done for them.
    const messages = await widget.messages();
    expect(messages.filter((m) => m.ignored).map((m) => m.type)).toEqual([
      'inspector:render',
      'openai:readToken',
    ]);
    expect(messages.find((m) => m.type === 'openai:openExternal')?.note).toBe('refused');
    await firefoxScreenshot(panel.page, 'firefox-widget-hostile');
  });
});

// The MCP Apps fixture in a browser and daemon of their own: the same sandbox page, the MCP Apps bridge.
describe('the Firefox build: MCP Apps in the panel', USER_FLOW, () => {
  let ext: FirefoxExtension;
  let daemon: TestDaemon;
  let panel: PanelPage;
  let widget: WidgetView;

  beforeAll(async () => {
    ext = await launchFirefoxWithExtension();
    daemon = await startDaemonForExtension();
    const config = {
      transport: 'stdio',
      command: process.execPath,
      args: [...TSX_LOADER, join(FIXTURES, 'mcp-app-server.ts')],
      cwd: ROOT,
    };
    expect((await daemon.api('PUT', '/api/mcp/servers/apps', { config })).status).toBe(201);
    const page = await openExtensionPage(
      ext.browser,
      ext.pageUrl('devtools-panel.html'),
      byTestId('pair-url'),
    );
    panel = new PanelPage(page);
    widget = panel.widget;
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    await panel.servers.connect('apps');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('renders the app of show-greeting, which completes the handshake and gets the tool input and result', async () => {
    await runWidgetTool(panel, 'show-greeting', { name: 'Ada' });
    expect(await panel.tools.resultWith('Hello, Ada!')).toContain('Hello, Ada!');
    const frame = await panel.page.$eval(byTestId('widget-frame'), (el) => ({
      kind: el.getAttribute('data-kind'),
      src: el.getAttribute('src'),
      sandbox: el.getAttribute('sandbox'),
    }));
    expect(frame).toEqual({ kind: 'mcp-app', src: ext.pageUrl('sandbox.html'), sandbox: 'allow-scripts' });
    await widget.waitForMessage('in', 'ui/notifications/size-changed');
    const types = (await widget.waitForMessage('out', 'ui/notifications/tool-result')).map(
      (m) => `${m.direction} ${m.type}`,
    );
    expect(types.slice(0, 3)).toEqual([
      'in ui/initialize',
      'out ui/initialize:result',
      'in ui/notifications/initialized',
    ]);
    expect(types).toEqual(expect.arrayContaining(['out ui/notifications/tool-input']));
  });

  it("relays the app's tools/call add (its first button) to the daemon and answers the app", async () => {
    await pressFirstButton(panel);
    await widget.waitForMessage('out', 'tools/call:result');
    expect(await widget.expandLast('tools/call')).toMatchObject({
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 2, b: 3 } },
    });
    expect(await widget.expandLast('tools/call:result')).toMatchObject({
      result: { structuredContent: { sum: 5 } },
    });
    await widget.collapseMessages();
    await firefoxScreenshot(panel.page, 'firefox-mcp-app');
  });
});
