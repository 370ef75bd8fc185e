import { mkdir } from 'node:fs/promises';
import type { Browser, Frame, Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startDaemon, type TestDaemon } from '../daemon/helpers.ts';
import { launchBrowser } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension, startDaemonWithWebPage } from './support/daemon.ts';
import { type ExtensionBrowser } from './support/browser.ts';
import { launchWithDevTools, openMcpPanel } from './support/devtools.ts';
import { byTestId } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { WEB_DIR } from './support/paths.ts';
import { USER_FLOW } from './support/user-flow.ts';

const SHOTS = '/tmp/shots-layout';
const HEIGHT = 560;
/** The header cells the log keeps at each width. */
const ESSENTIAL_COLUMNS = ['Time', 'Server', '⇄', 'Method', 'Status', 'Latency'];

async function shot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  await page.bringToFront();
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

/** What the tests measure of the app's layout, in the page or the DevTools panel's frame. */
interface Geometry {
  innerWidth: number;
  innerHeight: number;
  scrollHeight: number;
  scrollWidth: number;
  sidebar: DOMRect | null;
  main: DOMRect | null;
  detail: DOMRect | null;
}

function geometry(target: Page | Frame): Promise<Geometry> {
  return target.evaluate(() => {
    const rect = (sel: string) => document.querySelector(sel)?.getBoundingClientRect().toJSON() ?? null;
    const root = document.scrollingElement!;
    return {
      innerWidth,
      innerHeight,
      scrollHeight: root.scrollHeight,
      scrollWidth: root.scrollWidth,
      sidebar: rect('#server-sidebar'),
      main: rect('main'),
      detail: rect('section.split-detail'),
    };
  });
}

/** The log's header cells that are shown and fit inside the log. */
function visibleColumns(target: Page | Frame): Promise<string[]> {
  return target.$$eval('[role="grid"] [role="columnheader"]', (cells) => {
    const grid = cells[0]?.closest('[role="grid"]')?.getBoundingClientRect();
    return cells
      .filter((cell) => {
        const box = cell.getBoundingClientRect();
        return box.width > 0 && grid !== undefined && box.left >= grid.left && box.right <= grid.right + 0.5;
      })
      .map((cell) => (cell as HTMLElement).innerText.trim());
  });
}

// One page, resized, reloaded and paired again as the tests go: each starts where the one before it stopped.
describe('the inspector web page at 420, 700 and 1400 px', USER_FLOW, () => {
  let browser: Browser;
  let daemon: TestDaemon;
  let web: PanelPage;
  let failure = '';

  beforeAll(async () => {
    daemon = await startDaemonWithWebPage();
    await daemon.api('PUT', '/api/mcp/servers/everything', {
      name: 'everything',
      config: { transport: 'stdio', ...EVERYTHING_COMMAND },
    });
    await daemon.api('PUT', '/api/mcp/servers/broken', {
      name: 'broken',
      config: { transport: 'stdio', command: 'inspector-no-such-command', args: ['--an-argument'] },
    });
    await daemon.api('POST', '/api/mcp/servers/broken/connect');
    failure = (await daemon.api('GET', '/api/mcp/servers/broken')).body.lastError;
    browser = await launchBrowser();
    web = await PanelPage.open(browser, `${daemon.url}/`);
    await web.pairing.pair(daemon.url, daemon.token);
    await web.pairing.waitUntilPaired();
    await web.servers.connect('everything');
    await web.tools.select('echo');
    await web.tools.fill('message', 'layout');
    await web.tools.run();
    await web.tools.resultWith('Echo: layout');
  });

  afterAll(async () => {
    await browser?.close();
    await daemon?.close();
  });

  for (const width of [420, 700, 1400]) {
    it(`fits ${width} px: no page scroll, each pane scrolls on its own, a wide detail and the log's columns`, async () => {
      const { page } = web;
      await page.setViewport({ width, height: HEIGHT });
      await web.openTab('tools');
      await web.servers.select('everything');
      await web.tools.select('echo');
      await web.savedRequests.waitForForm();

      const g = await geometry(page);
      expect(g.innerWidth).toBe(width);
      expect(g.scrollHeight).toBe(g.innerHeight);
      expect(g.scrollWidth).toBe(g.innerWidth);
      expect(g.detail!.width).toBeGreaterThanOrEqual(Math.min(360, width - 20));
      expect(g.detail!.right).toBeLessThanOrEqual(width);
      if (width < 640) {
        // Stacked: the server list above the views, full width.
        expect(g.sidebar!.bottom).toBeLessThanOrEqual(g.main!.top + 1);
        expect(g.main!.width).toBe(width);
        // The tool list above the detail shows rows enough to pick from (35% of the height showed one).
        const rowsSeen = await page.$eval('.split-list .split-scroll', (scroller) => {
          const { top, bottom } = scroller.getBoundingClientRect();
          return Array.from(scroller.querySelectorAll('[role="option"]')).filter((row) => {
            const box = row.getBoundingClientRect();
            return box.top >= top - 0.5 && box.bottom <= bottom + 0.5;
          }).length;
        });
        expect(rowsSeen).toBeGreaterThanOrEqual(2);
      } else {
        expect(g.sidebar!.right).toBeLessThanOrEqual(g.main!.left + 3);
      }

      // The wheel over the detail scrolls the detail, never the page.
      const detail = await page.$eval('section.split-detail', (el) => ({
        overflow: el.scrollHeight - el.clientHeight,
      }));
      expect(detail.overflow).toBeGreaterThan(0);
      const box = g.detail!;
      await page.mouse.move(box.left + box.width / 2, box.top + Math.min(box.height / 2, 60));
      await page.mouse.wheel({ deltaY: 2000 });
      await page.waitForFunction(() => document.querySelector('section.split-detail')!.scrollTop > 0);
      expect(await page.evaluate(() => document.scrollingElement!.scrollTop)).toBe(0);
      expect(await page.evaluate(() => document.querySelector('main')!.getBoundingClientRect().top)).toBe(
        g.main!.top,
      );
      await shot(page, `web-${width}-tools`);

      await web.openTab('logs');
      await web.logs.waitForRow();
      const columns = await visibleColumns(page);
      expect(columns).toEqual(expect.arrayContaining(ESSENTIAL_COLUMNS));
      if (width >= 1400) expect(columns).toContain('ID');
      // Every visible cell of a row ends inside the log.
      const overflowing = await page.$eval(byTestId('log-scroller'), (scroller) => {
        const right = scroller.getBoundingClientRect().right;
        return Array.from(scroller.querySelectorAll<HTMLElement>('[role="gridcell"]'))
          .filter((cell) => cell.offsetWidth > 0 && cell.getBoundingClientRect().right > right + 0.5)
          .map((cell) => cell.className);
      });
      expect(overflowing).toEqual([]);
      expect((await geometry(page)).scrollHeight).toBe(HEIGHT);
      await shot(page, `web-${width}-logs`);
      await web.openTab('tools');
    });
  }

  it('resizes the server list and the tool list by keyboard and pointer, and keeps both after a reload', async () => {
    const { page } = web;
    await page.setViewport({ width: 1400, height: HEIGHT });
    await web.servers.select('everything');
    await web.tools.select('echo');
    const { layout } = web;
    expect(await layout.splitterRole('sidebar')).toBe('separator');

    const sidebarBefore = await layout.splitterValue('sidebar');
    await layout.pressOnSplitter('sidebar', 'ArrowRight', 3);
    const sidebarAfter = await layout.splitterValue('sidebar');
    expect(sidebarAfter).toBe(sidebarBefore + 48);
    expect(Math.round((await layout.widths()).sidebar)).toBe(sidebarAfter);

    const listBefore = await layout.splitterValue('list');
    await layout.dragSplitter('list', 80);
    const listAfter = await layout.splitterValue('list');
    expect(listAfter).toBe(listBefore + 80);
    expect(Math.round((await layout.widths()).list)).toBe(listAfter);

    await web.reload();
    await web.pairing.waitUntilPaired();
    await web.servers.select('everything');
    expect(await layout.splitterValue('sidebar')).toBe(sidebarAfter);
    expect(await layout.splitterValue('list')).toBe(listAfter);
    expect(await layout.stored()).toMatchObject({ sidebarWidth: sidebarAfter, listWidth: listAfter });
  });

  it('moves along the view tabs with the arrow keys, Home and End, focus following the selection', async () => {
    const { page } = web;
    await web.openTab('tools');
    await page.focus(byTestId('tab-tools'));
    const state = () =>
      page.evaluate(() => ({
        selected: document.querySelector('[role="tab"][aria-selected="true"]')?.getAttribute('data-testid'),
        focused: document.activeElement?.getAttribute('data-testid'),
        panel: document.querySelector('[role="tabpanel"]')?.getAttribute('aria-labelledby'),
      }));
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await state()).toEqual({
      selected: 'tab-prompts',
      focused: 'tab-prompts',
      panel: 'view-tab-prompts',
    });
    await page.keyboard.press('End');
    expect(await state()).toMatchObject({ selected: 'tab-logs', focused: 'tab-logs' });
    await page.keyboard.press('ArrowRight');
    expect(await state()).toMatchObject({ selected: 'tab-tools', focused: 'tab-tools' });
    await page.keyboard.press('ArrowLeft');
    expect(await state()).toMatchObject({ selected: 'tab-logs', focused: 'tab-logs' });
    await page.keyboard.press('Home');
    expect(await state()).toMatchObject({ selected: 'tab-tools', focused: 'tab-tools' });
  });

  it('collapses the server list with a button, remembered across a reload', async () => {
    const { page } = web;
    await page.setViewport({ width: 700, height: HEIGHT });
    const { layout } = web;
    expect(await layout.sidebarExpanded()).toBe(true);
    await layout.toggleSidebar();
    await layout.waitForSidebar(false);
    expect(await layout.sidebarExpanded()).toBe(false);
    const wide = await geometry(page);
    expect(wide.main!.left).toBe(0);
    expect(wide.main!.width).toBe(700);
    await shot(page, 'web-700-collapsed');

    await web.reload();
    await web.pairing.waitUntilPaired();
    await layout.waitForSidebar(false);
    await layout.toggleSidebar();
    await layout.waitForSidebar(true);
    expect(await layout.sidebarExpanded()).toBe(true);
  });

  it('shows a failed server in one line in the list and explains it beside', async () => {
    const { page } = web;
    await page.setViewport({ width: 1400, height: HEIGHT });
    await web.openTab('tools');
    await web.servers.select('broken');
    // Selecting it in the Tools view tries to connect again, and the line goes while that lasts: it is
    // found and measured in one step, never measured after it left the page.
    const handle = await page.waitForFunction(
      (sel: string) => {
        const el = document.querySelector(sel);
        if (!el) return null;
        return {
          height: el.getBoundingClientRect().height,
          lineHeight: parseFloat(getComputedStyle(el).lineHeight),
          title: el.getAttribute('title'),
        };
      },
      {},
      `${byTestId('server-broken')} ${byTestId('server-last-error')}`,
    );
    const line = (await handle.jsonValue())!;
    expect(failure).toBeTruthy();
    expect(line.title).toBe(failure);
    expect(line.height).toBeLessThan(line.lineHeight * 1.5);

    const explained = await web.servers.failure('could not connect');
    expect(explained).toContain('broken could not connect');
    expect(await web.servers.failureError()).toBe(failure);
    expect(explained).toContain('inspector-no-such-command');
    expect(explained).toContain('What to check');
    await shot(page, 'web-1400-failed-server');
    await web.servers.openFailureLogs();
    await web.waitForTab('logs');
    expect(await web.servers.hasFailure()).toBe(false);
    await web.openTab('tools');
  });

  it('keeps every field of the server editor inside the server list at its narrowest', async () => {
    const { page, layout } = web;
    await page.setViewport({ width: 1400, height: HEIGHT });
    await layout.pressOnSplitter('sidebar', 'ArrowLeft', 20);
    await page.locator(byTestId('server-add')).click();
    await page.waitForSelector(byTestId('server-editor'));
    await page.locator(byTestId('editor-mode-stdio')).click();
    const overflow = await page.$eval(byTestId('server-editor'), (editor) => {
      const right = editor.getBoundingClientRect().right;
      const fields = Array.from(editor.querySelectorAll('input, textarea, select'));
      return {
        fields: fields.length,
        past: fields
          .filter((field) => field.getBoundingClientRect().right > right + 0.5)
          .map((field) => field.id),
        scrolls: editor.scrollWidth > editor.clientWidth,
      };
    });
    expect(overflow.fields).toBeGreaterThan(5);
    expect(overflow).toMatchObject({ past: [], scrolls: false });
    await shot(page, 'web-1400-narrow-editor');
    await page.locator(byTestId('editor-cancel')).click();
    await page.waitForSelector(byTestId('server-editor'), { hidden: true });
  });

  it('follows the system theme when it changes while the page is open', async () => {
    const { page } = web;
    const theme = () =>
      page.evaluate(() => ({
        attribute: document.documentElement.dataset.theme,
        background: getComputedStyle(document.body).backgroundColor,
      }));
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    const dark = await theme();
    expect(dark.background).toBe('rgb(32, 33, 36)');
    await shot(page, 'web-1400-dark');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    expect((await theme()).background).toBe('rgb(255, 255, 255)');
  });

  it('shows unpaired, with the form ready for the new token, after the daemon restarts with a new token', async () => {
    const { page } = web;
    await page.setViewport({ width: 700, height: HEIGHT });
    await web.waitForLive();
    const { port } = new URL(daemon.url);
    await daemon.close();
    daemon = await startDaemon({
      mode: 'production',
      staticDir: WEB_DIR,
      port: Number(port),
      token: 'a-new-token-after-restart-0123456789',
    });

    const refused = await web.pairing.refused('no longer accepts the saved token');
    expect(refused).toContain(daemon.url);
    expect(await web.pairing.hasDaemonStatus()).toBe(false);
    expect(await web.layout.hasSidebar()).toBe(false);
    expect(await web.pairing.unpairedNote()).toContain('not paired');
    expect(await web.pairing.url()).toBe(daemon.url);
    expect(await web.pairing.token()).toBe('');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('pair-token');
    await shot(page, 'web-700-token-refused');

    // One step: paste the new token, Connect.
    await web.pairing.submitToken(daemon.token);
    expect(await web.pairing.waitUntilPaired()).toContain('daemon');
    await web.layout.waitForSidebar(true);
    expect(await page.$eval(byTestId('repair'), (el) => el.tagName)).toBe('BUTTON');
  });
});

describe('the panel inside real DevTools, docked beside the page', () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;

  beforeAll(async () => {
    ext = await launchWithDevTools();
    daemon = await startDaemonForExtension();
    await daemon.api('PUT', '/api/mcp/servers/everything', {
      name: 'everything',
      config: { transport: 'stdio', ...EVERYTHING_COMMAND },
    });
    await daemon.api('POST', '/api/mcp/servers/everything/connect');
    // Pair once, as the options page or a first panel would; DevTools' panel shares extension storage.
    const tab = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await tab.pairing.pair(daemon.url, daemon.token);
    await tab.pairing.waitUntilPaired();
    await tab.close();
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  for (const [name, width, dock] of [
    ['docked right in a 1400 px window', 1400, 'right'],
    ['docked right in a 700 px window', 700, 'right'],
    ['docked at the bottom of a 1400 px window', 1400, 'bottom'],
  ] as const) {
    it(`lays the panel out ${name}: no page scroll, a usable detail pane, the log's columns`, async () => {
      const inspected = await ext.browser.newPage();
      // Closed whatever happens: a failed test must not leave DevTools open for the next one.
      onTestFinished(() => inspected.close().catch(() => undefined));
      await inspected.goto('data:text/html,<title>inspected</title><h1>An inspected page</h1>');
      const { devtools, panel } = await openMcpPanel(inspected, { width, height: 720 }, dock);
      onTestFinished(() => devtools.close().catch(() => undefined));
      await panel.waitForSelector(byTestId('daemon-status'));
      // DOM clicks: DevTools may still be sliding the panel in, and a click at coordinates can miss.
      const click = (sel: string) => panel.$eval(sel, (el) => (el as HTMLElement).click());
      await click(byTestId('server-everything'));
      await panel.waitForSelector(byTestId('tool-echo'));
      await click(byTestId('tool-echo'));
      await panel.waitForSelector(byTestId('saved-title'));

      const g = await geometry(panel);
      expect(g.scrollHeight).toBe(g.innerHeight);
      expect(g.scrollWidth).toBe(g.innerWidth);
      expect(g.detail!.width).toBeGreaterThanOrEqual(Math.min(300, g.innerWidth - 20));
      expect(g.detail!.right).toBeLessThanOrEqual(g.innerWidth);
      const shotName = `devtools-${dock}-${width}`;
      await shot(devtools, `${shotName}-tools`);

      await click(byTestId('tab-logs'));
      await panel.waitForSelector(byTestId('log-row'));
      expect(await visibleColumns(panel)).toEqual(expect.arrayContaining(ESSENTIAL_COLUMNS));
      expect((await geometry(panel)).scrollHeight).toBe(g.innerHeight);
      await shot(devtools, `${shotName}-logs`);
    });
  }
});
