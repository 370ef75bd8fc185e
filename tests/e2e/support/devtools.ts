import type { Frame, Page } from 'puppeteer';
import puppeteer from 'puppeteer';
import { TEST_EXTENSION_DIR } from './paths.ts';
import { type ExtensionBrowser, executablePath } from './browser.ts';

export interface DevToolsLaunchOptions {
  /** Blink features to turn on (`--enable-features`), such as `WebMCP` (off by default in Chromium). */
  features?: string[];
}

/**
 * Headless Chromium with the test build of the extension, where DevTools windows are pages puppeteer can
 * drive (`handleDevToolsAsPage`): the MCP panel then runs inside real DevTools, docked beside the page.
 */
export async function launchWithDevTools(options: DevToolsLaunchOptions = {}): Promise<ExtensionBrowser> {
  const features = options.features ?? [];
  const browser = await puppeteer.launch({
    executablePath: executablePath(),
    headless: true,
    pipe: true,
    enableExtensions: true,
    handleDevToolsAsPage: true,
    defaultViewport: null,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-sync',
      ...(features.length > 0 ? [`--enable-features=${features.join(',')}`] : []),
    ],
  });
  try {
    const extensionId = await browser.installExtension(TEST_EXTENSION_DIR);
    return { browser, extensionId, pageUrl: (page) => `chrome-extension://${extensionId}/${page}` };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

export interface DevToolsPanel {
  /** The DevTools window (its front end), as a page: its size is the DevTools window's. */
  devtools: Page;
  /** The MCP panel's frame inside DevTools. */
  panel: Frame;
}

/**
 * Opens DevTools for `page`, sizes its window, docks it (right: the panel gets about 40% of the width;
 * bottom: the whole width) and shows the extension's MCP panel (added by the extension's devtools page a
 * moment after DevTools opens).
 */
export async function openMcpPanel(
  page: Page,
  size: { width: number; height: number },
  dock: 'right' | 'bottom' = 'right',
): Promise<DevToolsPanel> {
  const devtools = await page.openDevTools();
  await devtools.setViewport(size);
  // In front, or the panel's animation frames (the log draws its rows in them) do not run.
  await devtools.bringToFront();
  // Strings, not functions: vitest rewrites `import()` in the test's own code, and these run in DevTools.
  const legacyUi = `import('./ui/legacy/legacy.js').then((UI) => UI.InspectorView.InspectorView.instance())`;
  const tab = await devtools.waitForFunction(
    `${legacyUi}.then((view) => view.tabbedPane.tabIds().find((id) => id.startsWith('chrome-extension://') && id.endsWith('MCP')), () => undefined)`,
    { timeout: 30_000 },
  );
  const tabId = (await tab.jsonValue()) as string;
  await devtools.evaluate(
    `import('./ui/legacy/legacy.js').then((UI) => UI.DockController.DockController.instance().setDockSide(${JSON.stringify(dock)}))`,
  );
  await devtools.evaluate(`${legacyUi}.then((view) => view.showPanel(${JSON.stringify(tabId)}))`);
  const panel = await devtools.waitForFrame((frame) => frame.url().includes('/devtools-panel.html'));
  return { devtools, panel };
}
