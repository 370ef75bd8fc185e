import { join } from 'node:path';
import type { Browser, Frame, Page, Target } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, fixtureStdio, ROOT, startDaemon, TSX_LOADER, type TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchBrowser, launchWithTestExtension } from './support/browser.ts';
import { DEFAULT_DAEMON_URL, startDaemonForExtension, startDaemonWithWebPage } from './support/daemon.ts';
import { byTestId, saveScreenshot } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import type { WidgetView } from './support/pages/widget.ts';
import { USER_FLOW } from './support/user-flow.ts';

/** The widget fixture as a user types it into the server editor. */
const WIDGET_SERVER = {
  command: process.execPath,
  args: [...TSX_LOADER, join(FIXTURES, 'widget-server.ts')],
  cwd: ROOT,
};

/** What the hostile fixture widget reports in its follow-up message and its `#report` element. */
interface Attempt {
  ok: boolean;
  value?: unknown;
  error?: string;
}
interface Violation {
  directive: string;
  blocked: string;
}
interface HostileReport {
  origin: string;
  href: string;
  baseURI: string;
  name: string;
  referrer: string;
  ancestorOrigins: string[];
  performanceEntries: string[];
  chromeStorage: boolean;
  chromeRuntime: boolean;
  browserStorage: boolean;
  chromeStorageGet: Attempt;
  browserStorageGet: Attempt;
  localStorage: Attempt;
  cookie: Attempt;
  parentDocument: Attempt;
  parentLocation: Attempt;
  parentName: Attempt;
  topDocument: Attempt;
  topLocation: Attempt;
  earlyFetch: Attempt;
  /** The daemon addresses it tried: the default one, the test daemon's, and its base URL's origin if http. */
  daemonUrls: string[];
  daemon: Record<string, { fetch: Attempt; image: Attempt; webSocket: Attempt }>;
  fetchDaemon: Attempt;
  fetchHttps: Attempt;
  imageHttps: Attempt;
  beaconHttps: Attempt;
  openWindow: Attempt;
  navigateTop: Attempt;
  page: string;
  violations: Violation[];
}

/** The https hosts the hostile widget sends to, by the directive that must stop each. */
const HTTPS_TARGETS = [
  ['connect-src', 'https://early.example.com'],
  ['connect-src', 'https://collect.example.com'],
  ['connect-src', 'https://beacon.example.com'],
  ['img-src', 'https://pixel.example.com'],
] as const;

/** Adds the widget fixture through the server editor, connects it and runs `tool` with `fields`. */
async function addWidgetServer(panel: PanelPage, daemon: TestDaemon): Promise<void> {
  // The hostile widget is told where the daemon listens, to try it by every means it has.
  const args = [...WIDGET_SERVER.args, daemon.url];
  await panel.servers.addStdio('widgets', WIDGET_SERVER.command, args, WIDGET_SERVER.cwd);
  await panel.servers.connect('widgets');
  expect(await panel.tools.names()).toEqual(expect.arrayContaining(['counter', 'hostile']));
}

async function runTool(panel: PanelPage, tool: string, fields: Record<string, string> = {}) {
  await panel.tools.select(tool);
  for (const [path, value] of Object.entries(fields)) await panel.tools.fill(path, value);
  await panel.widget.markStale();
  await panel.tools.run();
  await panel.tools.result();
}

/** The hostile widget's report, from its own page once it has written it. */
async function reportIn(frame: Frame): Promise<HostileReport> {
  const shown = await frame.waitForSelector('#report', { timeout: 30_000 });
  return JSON.parse((await shown!.evaluate((el) => el.textContent)) ?? '') as HostileReport;
}

/** The hostile widget's report in the panel or web page, which also lists it as a follow-up message. */
async function hostileReport(widget: WidgetView): Promise<HostileReport> {
  const report = await reportIn(await widget.frame('#state'));
  const [message] = await widget.followups('"origin"');
  expect(message).toContain(`"href":${JSON.stringify(report.href)}`);
  return report;
}

const blockedBy = (report: HostileReport, directive: string, target: string): boolean =>
  report.violations.some((v) => v.directive === directive && v.blocked.startsWith(target));

/**
 * Every attempt of the hostile widget to reach what it must not, and that it reached none: no storage,
 * no other document, no request to the daemon or to an https host (the policy stopped each, as its
 * violations tell, so no network failure passes for a refusal), no popup, no navigation, and no token
 * anywhere it can read.
 */
function expectContained(report: HostileReport, token: string): void {
  expect(report.origin).toBe('null');
  expect(report.chromeStorage).toBe(false);
  expect(report.chromeRuntime).toBe(false);
  expect(report.browserStorage).toBe(false);
  expect(report.chromeStorageGet.ok).toBe(false);
  expect(report.browserStorageGet.ok).toBe(false);
  // An opaque origin has neither localStorage nor cookies.
  expect(report.localStorage).toMatchObject({ ok: false, error: expect.stringContaining('SecurityError') });
  expect(report.cookie).toMatchObject({ ok: false, error: expect.stringContaining('SecurityError') });
  for (const reach of [
    'parentDocument',
    'parentLocation',
    'parentName',
    'topDocument',
    'topLocation',
  ] as const) {
    expect(report[reach], reach).toMatchObject({
      ok: false,
      error: expect.stringContaining('SecurityError'),
    });
  }
  // The daemon, at every address the widget could think of: by fetch, <img> and WebSocket.
  expect(report.daemonUrls).toContain(DEFAULT_DAEMON_URL);
  for (const url of report.daemonUrls) {
    const tried = report.daemon[url]!;
    expect(tried.fetch, url).toMatchObject({ ok: false, error: expect.stringContaining('TypeError') });
    expect(tried.image, url).toMatchObject({ ok: false });
    expect(tried.webSocket, url).toMatchObject({ ok: false });
    expect(blockedBy(report, 'connect-src', `${url}/api/mcp/servers`), url).toBe(true);
    expect(blockedBy(report, 'img-src', `${url}/api/mcp/servers`), url).toBe(true);
    expect(blockedBy(report, 'connect-src', `${url.replace('http:', 'ws:')}/api/mcp/ws`), url).toBe(true);
  }
  // Any https host: even the first script, which runs before the page's <head>.
  expect(report.earlyFetch).toMatchObject({ ok: false, error: expect.stringContaining('TypeError') });
  expect(report.fetchHttps).toMatchObject({ ok: false, error: expect.stringContaining('TypeError') });
  expect(report.imageHttps).toMatchObject({ ok: false });
  for (const [directive, target] of HTTPS_TARGETS) {
    expect(blockedBy(report, directive, target), `${directive} ${target}`).toBe(true);
  }
  expect(report.openWindow).toEqual({ ok: true, value: 'blocked' });
  // No allow-top-navigation: setting the top window's address throws.
  expect(report.navigateTop).toMatchObject({
    ok: false,
    error: expect.stringMatching(/^SecurityError: .*does not have permission to navigate/),
  });
  // Nothing the widget can read carries the token: its address, base URL, name, referrer, ancestors,
  // performance entries, its whole page.
  expect(report.name).toBe('');
  expect(report.referrer).toBe('');
  expect(JSON.stringify(report)).not.toContain(token);
  expect(JSON.stringify(report)).not.toContain(encodeURIComponent(token));
  expect(report.page).toContain('Hostile widget');
}

/** What the widget learns of where it is: its addresses, referrer, name, ancestors, resource names. */
const whereabouts = (report: HostileReport): string =>
  JSON.stringify([
    report.href,
    report.baseURI,
    report.referrer,
    report.name,
    report.ancestorOrigins,
    report.performanceEntries,
  ]);

/** New tabs a widget opened, by their addresses. */
function watchNewTabs(browser: Browser): string[] {
  const opened: string[] = [];
  browser.on('targetcreated', (target: Target) => {
    if (target.type() === 'page') opened.push(target.url());
  });
  return opened;
}

// One browser with the built extension and one daemon go through the widget flow step by step: each
// test starts where the one before it stopped.
describe('Apps-SDK widgets in the DevTools panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let panel: PanelPage;
  let widget: WidgetView;
  let frame: Frame;
  let opened: string[];

  beforeAll(async () => {
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    opened = watchNewTabs(ext.browser);
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    widget = panel.widget;
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    await addWidgetServer(panel, daemon);
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('renders the widget of counter in the sandbox page, with the tool output and no token anywhere', async () => {
    await runTool(panel, 'counter', { start: '4' });
    expect(await panel.tools.resultWith('Count: 5')).toContain('Count: 5');
    frame = await widget.frame('#count');
    expect(await widget.waitInFrame(frame, '#count', '5')).toBe('5');
    expect(await widget.waitInFrame(frame, '#mode', 'inline')).toBe('inline');
    expect(await widget.waitInFrame(frame, '#clicks', '0')).toBe('0');

    const iframe = await panel.page.$eval(byTestId('widget-frame'), (el) => ({
      src: el.getAttribute('src'),
      sandbox: el.getAttribute('sandbox'),
    }));
    expect(iframe).toEqual({
      src: `chrome-extension://${ext.extensionId}/sandbox.html`,
      sandbox: 'allow-scripts',
    });
    expect(frame.url()).toBe(`chrome-extension://${ext.extensionId}/sandbox.html`);
    const inside = await frame.evaluate(() => ({
      origin: self.origin,
      html: document.documentElement.outerHTML,
      name: window.name,
      hasBridge:
        typeof (window as unknown as { openai?: { callTool?: unknown } }).openai?.callTool === 'function',
    }));
    expect(inside).toMatchObject({ origin: 'null', hasBridge: true });
    expect(JSON.stringify(inside)).not.toContain(daemon.token);
    await panel.screenshot('widget-inline');
  });

  it('relays callTool to the daemon and answers the widget, which shows the new count and saves its state', async () => {
    await frame.locator('#more').click();
    expect(await widget.waitInFrame(frame, '#count', '6')).toBe('6');
    expect(await widget.waitInFrame(frame, '#clicks', '1')).toBe('1');

    const messages = await widget.waitForMessage('in', 'openai:setWidgetState');
    const types = messages.map((m) => `${m.direction} ${m.type}`);
    expect(types).toEqual(
      expect.arrayContaining([
        'in openai:callTool',
        'out openai:callTool:result',
        'in openai:setWidgetState',
      ]),
    );
    expect(types.indexOf('in openai:callTool')).toBeLessThan(types.indexOf('out openai:callTool:result'));
    expect(await widget.expandLast('openai:callTool')).toMatchObject({
      toolName: 'counter',
      params: { start: 5 },
    });
    expect(await widget.expandLast('openai:callTool:result')).toMatchObject({
      result: { structuredContent: { count: 6 } },
    });
    // The panel is an extension page: its storage holds the state the widget itself cannot reach.
    const stored = await panel.page.evaluate(() =>
      (
        globalThis as unknown as { chrome: { storage: { local: { get(key: string): Promise<unknown> } } } }
      ).chrome.storage.local.get('widgetState:widgets:counter'),
    );
    expect(stored).toEqual({ 'widgetState:widgets:counter': { clicks: 1 } });
    await panel.screenshot('widget-traffic');
  });

  it('lists the follow-up messages the widget sends', async () => {
    await frame.locator('#ask').click();
    expect(await widget.followups('Tell me more')).toEqual(['Tell me more about the number 6']);
  });

  it('switches display modes: inline, modal dialog, sidebar docked right, and back, keeping the widget', async () => {
    // A mark in the widget's window: a frame that reloads loses it.
    await frame.evaluate(() => Object.assign(window, { e2eMark: 'kept' }));

    await frame.locator('#modal').click();
    await widget.waitForMode('modal');
    expect(await widget.waitInFrame(frame, '#mode', 'modal')).toBe('modal');
    expect(await widget.shellPlacement()).toMatchObject({ open: true, modal: true, position: 'fixed' });
    await panel.screenshot('widget-modal');

    await frame.locator('#sidebar').click();
    await widget.waitForMode('sidebar');
    expect(await widget.waitInFrame(frame, '#mode', 'sidebar')).toBe('sidebar');
    const sidebar = await widget.shellPlacement();
    expect(sidebar).toMatchObject({ open: true, modal: false, position: 'fixed' });
    const width = await panel.page.evaluate(() => window.innerWidth);
    expect(Math.round(sidebar.rect.right)).toBe(width);
    expect(sidebar.rect.top).toBe(0);
    // Docked: the panel gives up that edge, so nothing of it hides behind the sidebar.
    const appRight = await panel.page.$eval('#app', (el) => el.getBoundingClientRect().right);
    expect(appRight).toBeLessThanOrEqual(sidebar.rect.left + 1);
    await panel.screenshot('widget-sidebar');

    // The panel's own buttons switch it too, and the widget hears of it.
    await widget.switchMode('inline');
    await widget.waitForMode('inline');
    expect(await widget.waitInFrame(frame, '#mode', 'inline')).toBe('inline');
    expect(await widget.shellPlacement()).toMatchObject({ open: true, modal: false, position: 'static' });
    expect(await panel.page.$eval('#app', (el) => Math.round(el.getBoundingClientRect().right))).toBe(width);
    expect(await frame.evaluate(() => (window as unknown as { e2eMark?: string }).e2eMark)).toBe('kept');

    const modes = (await widget.messages()).filter((m) => m.type === 'openai:requestDisplayMode');
    expect(modes).toHaveLength(2);
  });

  it('tells the widget when the theme changes', async () => {
    await panel.page.evaluate(() => (document.documentElement.dataset.theme = 'dark'));
    expect(await widget.waitInFrame(frame, '#theme', 'dark')).toBe('dark');
    await panel.screenshot('widget-inline-dark', { theme: 'dark' });
    await panel.page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
    expect(await widget.waitInFrame(frame, '#theme', 'light')).toBe('light');
  });

  it('says when the content outgrows the height the widget reported, and stops once it reports again', async () => {
    await widget.waitForNoOverflowNote();
    const reported = await widget.frameHeight();
    await frame.locator('#grow').click();
    const note = await widget.overflowNote('scrolls inside the frame');
    const content = await frame.evaluate(() => document.documentElement.scrollHeight);
    expect(content).toBeGreaterThanOrEqual(reported + 400);
    expect(note).toContain(`content is ${content} px tall, but it last reported ${reported} px`);
    expect(note).toContain(`call notifyIntrinsicHeight(${content}) whenever its content changes height`);
    // The panel does not resize the frame on its own: it shows what the widget reported.
    expect(await widget.frameHeight()).toBe(reported);
    // Not widget traffic: the bridge's measures are not listed.
    expect((await widget.messages()).map((m) => m.type)).not.toContain('inspector:contentHeight');
    await panel.screenshot('widget-overflow');

    await frame.locator('#fit').click();
    await widget.waitForNoOverflowNote();
    expect(await widget.frameHeight()).toBe(content);

    await frame.locator('#grow').click();
    await frame.locator('#fit').click();
    await panel.page.waitForFunction(
      (sel: string, height: number) =>
        Math.round(document.querySelector(sel)!.getBoundingClientRect().height) === height,
      {},
      `${byTestId('widget')} ${byTestId('widget-frame')}`,
      reported,
    );
    await widget.waitForNoOverflowNote();
  });

  it('opens a link the widget asks for only when the user clicks Open in the host prompt, showing its address', async () => {
    // Tabs opened from here on (the panel's own was one).
    opened.length = 0;
    // Dismissed: nothing opens, and the traffic view says so.
    await frame.locator('#docs').click();
    expect(await widget.linkPrompt()).toEqual({ url: 'https://example.com/docs', refused: '' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(opened).toEqual([]);
    await widget.answerLink('dismiss');
    const dismissed = (await widget.waitForMessage('in', 'openai:openExternal')).filter(
      (m) => m.type === 'openai:openExternal',
    );
    expect(dismissed.map((m) => m.note)).toEqual(['dismissed']);

    // A plain link in the widget goes the same way; Open opens exactly the address shown, in a new tab.
    await frame.locator('#link').click();
    expect(await widget.linkPrompt()).toEqual({ url: 'https://example.com/link', refused: '' });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(opened).toEqual([]);
    await panel.page.$eval(byTestId('widget-link-consent'), (el) => el.scrollIntoView({ block: 'center' }));
    await panel.screenshot('widget-link-consent');
    await widget.answerLink('open');
    const tab = await ext.browser.waitForTarget((t) => t.url() === 'https://example.com/link');
    // The new tab comes to the front; a page in the background runs no animation frames.
    await (await tab.page())?.close();
    await panel.page.bringToFront();
    expect(opened).toEqual(['https://example.com/link']);
    // The widget itself stays where it was.
    expect(await widget.waitInFrame(frame, '#count', '6')).toBe('6');
  });

  it('shows one prompt for links a widget asks for unprompted, refusing the rest, and opens none of them', async () => {
    opened.length = 0;
    // As a hostile widget would, with no click of the user's: three in a row.
    await frame.evaluate(() => {
      for (const n of [1, 2, 3]) {
        window.parent.postMessage(
          { type: 'openai:openExternal', href: `https://example.com/popup-${n}` },
          '*',
        );
      }
    });
    await panel.page.waitForSelector(byTestId('widget-link-refused'));
    expect(await widget.linkPrompt()).toEqual({
      url: 'https://example.com/popup-1',
      refused: 'It asked for 2 more links while this one waits: those were not opened.',
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(opened).toEqual([]);
    await widget.answerLink('dismiss');
    expect(await widget.hasLinkPrompt()).toBe(false);
    const notes = (await widget.messages())
      .filter((m) => m.type === 'openai:openExternal')
      .map((m) => m.note);
    // Listed at the time each was asked: the one the user dismissed first, then the two refused.
    expect(notes.slice(-3)).toEqual(['dismissed', 'refused', 'refused']);
    expect(opened).toEqual([]);
  });

  it('asks the user in the elicitation dialog when a tool the widget calls needs an answer', async () => {
    await frame.locator('#reset').click();
    expect(await panel.elicitation.message()).toBe('Reset the counter to zero?');
    await panel.elicitation.click('confirm');
    await panel.elicitation.press('accept');
    expect(await widget.waitInFrame(frame, '#count', '0')).toBe('0');
    expect(await widget.expandLast('openai:callTool:result')).toMatchObject({
      result: { content: [{ type: 'text', text: 'Reset' }], structuredContent: { count: 0 } },
    });
  });

  it('refuses a call to a tool not marked widgetAccessible, as ChatGPT does, without running it', async () => {
    await frame.locator('#private').click();
    const refused =
      'Error: The tool "private" may not be called from a widget: ChatGPT runs a widget\'s callTool only ' +
      'for a tool whose _meta["openai/widgetAccessible"] is true';
    expect(await widget.waitInFrame(frame, '#error', refused)).toBe(refused);
    expect(await widget.expandLast('openai:callTool:result')).toMatchObject({
      error: expect.stringContaining('may not be called from a widget'),
    });
    // The traffic view marks the answer as a refusal, as it marks a refused link.
    const answers = (await widget.messages()).filter((m) => m.type === 'openai:callTool:result');
    expect(answers.at(-1)?.note).toBe('refused');
  });

  it('gives the saved widget state back after the panel reloads', async () => {
    await panel.reload();
    await panel.pairing.waitUntilPaired();
    await panel.servers.select('widgets');
    await runTool(panel, 'counter', { start: '10' });
    frame = await widget.frame('#count');
    expect(await widget.waitInFrame(frame, '#count', '11')).toBe('11');
    expect(await widget.waitInFrame(frame, '#clicks', '1')).toBe('1');
    await frame.locator('#more').click();
    expect(await widget.waitInFrame(frame, '#clicks', '2')).toBe('2');
  });

  it('keeps a hostile widget from extension storage, the token, the daemon address, the panel and the daemon', async () => {
    const panelUrl = panel.page.url();
    await runTool(panel, 'hostile');
    const report = await hostileReport(widget);
    expectContained(report, daemon.token);
    const sandbox = `chrome-extension://${ext.extensionId}/sandbox.html`;
    expect(report.href).toBe(sandbox);
    expect(report.baseURI).toBe(sandbox);
    expect(report.ancestorOrigins).toEqual([`chrome-extension://${ext.extensionId}`]);
    // Nothing tells it where the daemon is (the test did, to have it tried): it could only guess.
    expect(report.daemonUrls).toEqual([DEFAULT_DAEMON_URL, daemon.url]);
    expect(whereabouts(report)).not.toMatch(/127\.0\.0\.1|localhost|6274/);
    expect(panel.page.url()).toBe(panelUrl);
    await panel.pairing.waitUntilPaired();

    // The messages it should not send are shown, and nothing was done for them.
    const messages = await widget.waitForMessage('in', 'openai:sendFollowupTurn');
    expect(messages.filter((m) => m.ignored).map((m) => m.type)).toEqual([
      'inspector:render',
      'openai:readToken',
    ]);
    expect(messages.find((m) => m.type === 'openai:openExternal')?.note).toBe('refused');
    expect(
      opened.some((url) => url.startsWith('javascript:') || url.includes('pwned') || url.includes('popup')),
    ).toBe(false);
    expect(await widget.frame('#state').then((f) => widget.waitInFrame(f, '#state', 'reported'))).toBe(
      'reported',
    );
    await panel.screenshot('widget-hostile');
  });
});

describe('Apps-SDK widgets on the web page', USER_FLOW, () => {
  let browser: Browser;
  let daemon: TestDaemon;
  let web: PanelPage;
  let widget: WidgetView;

  beforeAll(async () => {
    daemon = await startDaemonWithWebPage();
    browser = await launchBrowser();
    web = await PanelPage.open(browser, `${daemon.url}/`);
    widget = web.widget;
    await web.pairing.pair(daemon.url, daemon.token);
    await web.pairing.waitUntilPaired();
    await addWidgetServer(web, daemon);
  });

  afterAll(async () => {
    await browser?.close();
    await daemon?.close();
  });

  it('renders the widget in a sandboxed srcdoc frame and relays its callTool', async () => {
    await runTool(web, 'counter', { start: '1' });
    const frame = await widget.frame('#count');
    expect(await widget.waitInFrame(frame, '#count', '2')).toBe('2');
    const iframe = await web.page.$eval(byTestId('widget-frame'), (el) => ({
      src: el.getAttribute('src'),
      sandbox: el.getAttribute('sandbox'),
      srcdoc: el.hasAttribute('srcdoc'),
    }));
    expect(iframe).toEqual({ src: null, sandbox: 'allow-scripts', srcdoc: true });
    await frame.locator('#more').click();
    expect(await widget.waitInFrame(frame, '#count', '3')).toBe('3');
    expect(await widget.waitInFrame(frame, '#clicks', '1')).toBe('1');
    const stored = await web.page.evaluate(() => localStorage.getItem('widgetState:widgets:counter'));
    expect(JSON.parse(stored ?? 'null')).toEqual({ clicks: 1 });
    await web.screenshot('web-widget-inline');
  });

  it('keeps a hostile widget from the page, its storage, the token and the daemon that served the page', async () => {
    const pageUrl = web.page.url();
    await runTool(web, 'hostile');
    const report = await hostileReport(widget);
    expectContained(report, daemon.token);
    expect(report.href).toBe('about:srcdoc');
    // A srcdoc frame's base URL is its parent's address: the page's, which holds no token.
    expect(report.baseURI).toBe(pageUrl);
    expect(report.daemonUrls).toEqual([DEFAULT_DAEMON_URL, daemon.url]);
    expect(web.page.url()).toBe(pageUrl);
  });
});

describe('Apps-SDK widgets in a browser tab, through the container page', () => {
  let browser: Browser;
  let daemon: TestDaemon;
  let next = 0;

  /** Stores a widget of the fixture and asks for a view address, as a caller with the token does. */
  async function viewUrl(uri: string, toolOutput: unknown): Promise<string> {
    const toolId = `tab-${++next}`;
    const stored = await daemon.api('POST', '/api/mcp/openai/widget/store', {
      serverId: 'widgets',
      uri,
      toolInput: {},
      toolOutput,
      toolId,
    });
    expect(stored.status).toBe(200);
    const view = await daemon.api('POST', `/api/mcp/openai/widget/${toolId}/view`);
    expect(view.status).toBe(200);
    return view.body.url as string;
  }

  /** Opens an address in a new tab; returns the tab and the status of its answer. */
  async function openTab(url: string): Promise<{ tab: Page; status: number }> {
    const tab = await browser.newPage();
    const response = await tab.goto(url);
    return { tab, status: response?.status() ?? 0 };
  }

  async function widgetFrame(tab: Page, ready: string): Promise<Frame> {
    const frame = await (await tab.waitForSelector('iframe'))?.contentFrame();
    if (!frame) throw new Error('the container page has no widget frame');
    await frame.waitForSelector(ready);
    return frame;
  }

  beforeAll(async () => {
    daemon = await startDaemon();
    const added = await daemon.api('PUT', '/api/mcp/servers/widgets', {
      config: fixtureStdio('widget-server.ts'),
    });
    expect(added.status).toBe(201);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await daemon?.close();
  });

  it('opens the counter widget in a tab with a view code that works once, and no token in any address', async () => {
    const url = await viewUrl('ui://widget/counter.html', { count: 5 });
    expect(url).not.toContain(daemon.token);
    const { tab, status } = await openTab(url);
    expect(status).toBe(200);
    const frame = await widgetFrame(tab, '#count');
    expect(await frame.$eval('#count', (el) => el.textContent)).toBe('5');
    expect(await tab.$eval('iframe', (el) => el.getAttribute('sandbox'))).toBe('allow-scripts');
    await saveScreenshot(tab, 'container-page');

    // The tab again, or anyone else, with the same address: the code is spent.
    const again = await tab.goto(url);
    expect(again?.status()).toBe(401);
    expect(JSON.parse(await tab.$eval('body', (el) => el.innerText))).toEqual({
      code: 'invalid_view_code',
      error: expect.stringMatching(/^view: unknown, used or expired view code/),
    });
    await tab.close();
  });

  it('keeps a hostile widget in the container page from the token, a live view code, the page and the daemon', async () => {
    const url = await viewUrl('ui://widget/hostile.html', { probing: true });
    const { tab, status } = await openTab(url);
    expect(status).toBe(200);
    const report = await reportIn(await widgetFrame(tab, '#state'));
    expectContained(report, daemon.token);
    expect(report.href).toBe('about:srcdoc');
    // Its base URL is the container page's address: the only code in it is spent already.
    expect(report.baseURI).toBe(url);
    expect(report.daemonUrls).toEqual([DEFAULT_DAEMON_URL, daemon.url]);
    expect((await fetch(report.baseURI)).status).toBe(401);
    // The container page is sandboxed too: its origin is opaque, and the widget could not navigate it.
    expect(report.ancestorOrigins).toEqual(['null']);
    expect(tab.url()).toBe(url);
    await tab.close();
  });
});

/** The MCP App fixture (tests/fixtures/mcp-app-server.ts), registered through the daemon's API. */
const MCP_APP_SERVER = {
  transport: 'stdio',
  command: process.execPath,
  args: [...TSX_LOADER, join(FIXTURES, 'mcp-app-server.ts')],
  cwd: ROOT,
};

/** Registers the MCP App fixture as `apps` through the daemon API, before the app is paired. */
async function registerMcpAppServer(daemon: TestDaemon): Promise<void> {
  const { status } = await daemon.api('PUT', '/api/mcp/servers/apps', { config: MCP_APP_SERVER });
  expect(status).toBe(201);
}

/** Runs show-greeting for Ada and returns the app's frame once the app has the tool input and result. */
async function showGreeting(panel: PanelPage): Promise<Frame> {
  const { widget } = panel;
  await panel.servers.connect('apps');
  expect(await panel.tools.names()).toEqual(expect.arrayContaining(['show-greeting', 'add']));
  await runTool(panel, 'show-greeting', { name: 'Ada' });
  expect(await panel.tools.resultWith('Hello, Ada!')).toContain('Hello, Ada!');
  const frame = await widget.frame(byTestId('mcp-app-result'));
  expect(await widget.waitInFrame(frame, '#greeting', 'Hello, Ada!')).toBe('Hello, Ada!');
  return frame;
}

describe('MCP Apps', () => {
  describe('in the DevTools panel', USER_FLOW, () => {
    let ext: ExtensionBrowser;
    let daemon: TestDaemon;
    let panel: PanelPage;
    let widget: WidgetView;
    let frame: Frame;
    let opened: string[];

    beforeAll(async () => {
      ext = await launchWithTestExtension();
      daemon = await startDaemonForExtension();
      await registerMcpAppServer(daemon);
      panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
      // Tabs opened from here on (the panel's own is open already).
      opened = watchNewTabs(ext.browser);
      widget = panel.widget;
      await panel.pairing.pair(daemon.url, daemon.token);
      await panel.pairing.waitUntilPaired();
    });

    afterAll(async () => {
      await ext?.browser.close();
      await daemon?.close();
    });

    it('renders the app of show-greeting in the sandbox page, with the tool input and result it was sent', async () => {
      frame = await showGreeting(panel);
      expect(await widget.waitInFrame(frame, byTestId('mcp-app-input'), '{"name":"Ada"}')).toBe(
        '{"name":"Ada"}',
      );
      expect(await widget.waitInFrame(frame, byTestId('mcp-app-result'), '{"greeting":"Hello, Ada!"}')).toBe(
        '{"greeting":"Hello, Ada!"}',
      );
      expect(await widget.waitInFrame(frame, byTestId('mcp-app-host'), 'inspector-daemon')).toBe(
        'inspector-daemon',
      );

      const iframe = await panel.page.$eval(byTestId('widget-frame'), (el) => ({
        kind: el.getAttribute('data-kind'),
        src: el.getAttribute('src'),
        sandbox: el.getAttribute('sandbox'),
      }));
      expect(iframe).toEqual({
        kind: 'mcp-app',
        src: `chrome-extension://${ext.extensionId}/sandbox.html`,
        sandbox: 'allow-scripts',
      });
      const inside = await frame.evaluate(() => ({
        origin: self.origin,
        html: document.documentElement.outerHTML,
        hasOpenai: 'openai' in window,
      }));
      // An MCP App gets no Apps-SDK bridge, and nothing it can read carries the token.
      expect(inside).toMatchObject({ origin: 'null', hasOpenai: false });
      expect(inside.html).toContain('http-equiv="Content-Security-Policy"');
      expect(JSON.stringify(inside)).not.toContain(daemon.token);

      // The handshake, then the tool input and result, in the traffic view.
      await widget.waitForMessage('out', 'ui/notifications/tool-result');
      const types = (await widget.messages()).map((m) => `${m.direction} ${m.type}`);
      expect(types.slice(0, 3)).toEqual([
        'in ui/initialize',
        'out ui/initialize:result',
        'in ui/notifications/initialized',
      ]);
      expect(types).toEqual(
        expect.arrayContaining(['out ui/notifications/tool-input', 'out ui/notifications/tool-result']),
      );
      expect(await widget.expandLast('ui/initialize:result')).toMatchObject({
        result: {
          hostInfo: { name: 'inspector-daemon' },
          hostCapabilities: { serverTools: {}, openLinks: {}, message: { text: {} } },
          hostContext: {
            theme: 'light',
            displayMode: 'inline',
            containerDimensions: { maxHeight: 640 },
            toolInfo: { tool: { name: 'show-greeting' } },
          },
        },
      });
      await widget.waitForMessage('in', 'ui/notifications/size-changed');
    });

    it("relays the app's tools/call add to the daemon and answers the app, which shows the sum", async () => {
      await frame.locator(byTestId('mcp-app-add')).click();
      expect(await widget.waitInFrame(frame, byTestId('mcp-app-sum'), '5')).toBe('5');
      const types = (await widget.waitForMessage('out', 'tools/call:result')).map(
        (m) => `${m.direction} ${m.type}`,
      );
      expect(types.indexOf('in tools/call')).toBeLessThan(types.indexOf('out tools/call:result'));
      expect(await widget.expandLast('tools/call')).toMatchObject({
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 2, b: 3 } },
      });
      expect(await widget.expandLast('tools/call:result')).toMatchObject({
        result: { structuredContent: { sum: 5 } },
      });
      // The call went through the daemon: its JSON-RPC log has it, sent to the app's server.
      const sent = daemon.daemon.bus
        .since(0)
        .filter((e) => e.serverId === 'apps' && e.direction === 'send')
        .map((e) => e.message as { method?: string; params?: { name?: string; arguments?: unknown } });
      expect(sent).toContainEqual(
        expect.objectContaining({
          method: 'tools/call',
          params: expect.objectContaining({ name: 'add', arguments: { a: 2, b: 3 } }),
        }),
      );
    });

    it("lists the app's ui/message among the follow-up messages", async () => {
      await frame.locator(byTestId('mcp-app-message')).click();
      expect(await widget.followups('greeting app')).toEqual(['Hello from the greeting app']);
      expect(await widget.waitInFrame(frame, byTestId('mcp-app-status'), 'message sent')).toBe(
        'message sent',
      );
      // The rows opened above closed again, for the picture.
      await widget.collapseMessages();
      await panel.screenshot('mcp-app-inline');
    });

    it('tells the app when the theme changes', async () => {
      await panel.page.evaluate(() => (document.documentElement.dataset.theme = 'dark'));
      await frame.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
      expect(await widget.expandLast('ui/notifications/host-context-changed')).toMatchObject({
        params: { theme: 'dark' },
      });
      await panel.page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
      await frame.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    });

    it('opens the https link the app asks for only when the user clicks Open, answering the app either way, and refuses every other scheme', async () => {
      // Dismissed: nothing opens, and the app is answered isError.
      await frame.locator(byTestId('mcp-app-link')).click();
      expect(await widget.linkPrompt()).toEqual({ url: 'https://example.com/greeting', refused: '' });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(opened).toEqual([]);
      // Not answered while the user decides.
      expect(await frame.$eval(byTestId('mcp-app-status'), (el) => el.textContent)).toBe('message sent');
      await widget.answerLink('dismiss');
      expect(await widget.waitInFrame(frame, byTestId('mcp-app-status'), 'link refused')).toBe(
        'link refused',
      );
      expect(opened).toEqual([]);

      // Opened: the tab shows the address the prompt showed, and the app is answered success.
      await frame.locator(byTestId('mcp-app-link')).click();
      expect(await widget.linkPrompt()).toEqual({ url: 'https://example.com/greeting', refused: '' });
      await widget.answerLink('open');
      const tab = await ext.browser.waitForTarget((t) => t.url() === 'https://example.com/greeting');
      await (await tab.page())?.close();
      await panel.page.bringToFront();
      expect(await widget.waitInFrame(frame, byTestId('mcp-app-status'), 'link opened')).toBe('link opened');

      // The fixture has no such link: the app's page asks for them itself, as untrusted code could.
      await frame.evaluate(() => {
        for (const [id, url] of [
          ['e2e-js', 'javascript:alert(1)'],
          ['e2e-file', 'file:///etc/passwd'],
        ]) {
          window.parent.postMessage({ jsonrpc: '2.0', id, method: 'ui/open-link', params: { url } }, '*');
        }
      });
      await panel.page.waitForFunction(
        (sel: string) => document.querySelectorAll(sel).length === 4,
        {},
        `${byTestId('widget-message')}[data-direction="out"][data-type="ui/open-link:result"] ${byTestId('widget-message-note')}`,
      );
      const links = (await widget.messages()).filter((m) => m.type === 'ui/open-link:result');
      expect(links.map((m) => m.note)).toEqual(['not opened', 'opened', 'not opened', 'not opened']);
      expect(await widget.hasLinkPrompt()).toBe(false);
      expect(opened).toEqual(['https://example.com/greeting']);
      // The panel stays where it was.
      expect(panel.page.url()).toBe(ext.pageUrl('devtools-panel.html'));
    });
  });

  describe('on the web page', () => {
    let browser: Browser;
    let daemon: TestDaemon;
    let web: PanelPage;
    let widget: WidgetView;

    beforeAll(async () => {
      daemon = await startDaemonWithWebPage();
      await registerMcpAppServer(daemon);
      browser = await launchBrowser();
      web = await PanelPage.open(browser, `${daemon.url}/`);
      widget = web.widget;
      await web.pairing.pair(daemon.url, daemon.token);
      await web.pairing.waitUntilPaired();
    });

    afterAll(async () => {
      await browser?.close();
      await daemon?.close();
    });

    it('renders the app in a sandboxed srcdoc frame and relays its tools/call', async () => {
      const frame = await showGreeting(web);
      expect(await widget.waitInFrame(frame, byTestId('mcp-app-input'), '{"name":"Ada"}')).toBe(
        '{"name":"Ada"}',
      );
      const iframe = await web.page.$eval(byTestId('widget-frame'), (el) => ({
        src: el.getAttribute('src'),
        sandbox: el.getAttribute('sandbox'),
        srcdoc: el.hasAttribute('srcdoc'),
      }));
      expect(iframe).toEqual({ src: null, sandbox: 'allow-scripts', srcdoc: true });
      await frame.locator(byTestId('mcp-app-add')).click();
      expect(await widget.waitInFrame(frame, byTestId('mcp-app-sum'), '5')).toBe('5');
      await web.screenshot('web-mcp-app-inline');
    });
  });
});
