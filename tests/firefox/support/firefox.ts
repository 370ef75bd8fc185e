import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer';
import { VIEWPORT } from '../../e2e/support/browser.ts';
import { FIREFOX_EXTENSION_DIR, FIREFOX_ZIP } from './paths.ts';

/** The Firefox the tests drive: FIREFOX_EXECUTABLE_PATH, else Debian's firefox-esr. */
export function firefoxPath(): string {
  const path = process.env.FIREFOX_EXECUTABLE_PATH ?? '/usr/bin/firefox-esr';
  if (!existsSync(path)) {
    throw new Error(
      `No Firefox at ${path}. Install Debian's (apt-get install firefox-esr) or set FIREFOX_EXECUTABLE_PATH ` +
        'to a Firefox binary; puppeteer downloads none (.puppeteerrc.cjs skipDownload).',
    );
  }
  return path;
}

/**
 * The moz-extension:// host of the installed add-on. Firefox picks a random one per profile unless the
 * `extensions.webextensions.uuids` preference maps the add-on's id to one before it is installed.
 */
const EXTENSION_UUID = '6f1c5a62-3d0e-4b7a-9c1e-2a4f8e5d7b90';

export interface FirefoxExtension {
  browser: Browser;
  /** The add-on's id, from its manifest (`browser_specific_settings.gecko.id`). */
  addonId: string;
  /** `moz-extension://<uuid>/<page>`. */
  pageUrl(page: string): string;
}

/** The add-on id in the manifest of the build the zip packs. */
function addonId(): string {
  const manifestPath = join(FIREFOX_EXTENSION_DIR, 'manifest.json');
  if (!existsSync(manifestPath) || !existsSync(FIREFOX_ZIP)) {
    throw new Error(
      `No Firefox zip at ${FIREFOX_ZIP}: run \`npx wxt zip -b firefox\` (the global setup does)`,
    );
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    browser_specific_settings?: { gecko?: { id?: string } };
  };
  const id = manifest.browser_specific_settings?.gecko?.id;
  if (!id) throw new Error(`${manifestPath} names no gecko id`);
  return id;
}

/**
 * Headless Firefox over WebDriver BiDi with the Firefox zip installed as a temporary add-on, as
 * about:debugging installs it.
 * - `--remote-allow-system-access`: BiDi navigates only to web addresses without it, and the panel is a
 *   moz-extension:// page.
 * - `extensions.webextOptionalPermissionPrompts: false`: Firefox grants what `permissions.request` asks
 *   without its prompt, which nobody can answer in a headless browser. The request itself still goes
 *   through Firefox's checks, the user-gesture one included.
 */
export async function launchFirefoxWithExtension(): Promise<FirefoxExtension> {
  const id = addonId();
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath(),
    headless: true,
    args: ['--remote-allow-system-access'],
    defaultViewport: VIEWPORT,
    extraPrefsFirefox: {
      'extensions.webextensions.uuids': JSON.stringify({ [id]: EXTENSION_UUID }),
      'extensions.webextOptionalPermissionPrompts': false,
    },
  });
  try {
    const installed = await browser.installExtension(FIREFOX_ZIP);
    if (installed !== id) throw new Error(`Firefox installed ${installed}, not ${id}`);
    return { browser, addonId: id, pageUrl: (page) => `moz-extension://${EXTENSION_UUID}/${page}` };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** How long an extension page may take to show its ready element. */
const PAGE_READY_MS = 30_000;

/**
 * Opens an extension page in a new tab. Firefox does not report extension pages over WebDriver BiDi yet
 * (no navigation or load events, bug 1755014), so `page.goto` never sees this one finish; scripts still
 * run in the page. The page is there once its own document says so: its address and `ready`.
 *
 * The check is polled by hand rather than with `page.waitForFunction`: while the tab swaps about:blank
 * for the extension document, Firefox's BiDi `script.evaluate` can fail outright ("right-hand side of
 * 'in' should be an object, got null") instead of reporting a destroyed context, and `waitForFunction`
 * gives up on the first such error. Here an evaluation error only means "not yet"; the last one is
 * reported if the page never gets there.
 */
export async function openExtensionPage(
  browser: Browser,
  url: string,
  ready: string,
  viewport = VIEWPORT,
): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  // Its time-out is the one expected end of goto; any other failure (a refused navigation) is the test's.
  let refused: Error | undefined;
  page.goto(url).catch((error: Error) => {
    if (!error.message.startsWith('Navigation timeout')) refused = error;
  });
  const deadline = Date.now() + PAGE_READY_MS;
  let lastError: unknown;
  for (;;) {
    if (refused) throw refused;
    try {
      const there = await page.evaluate(
        (want: string, sel: string) => location.href === want && document.querySelector(sel) !== null,
        url,
        ready,
      );
      if (there) return page;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`${url} did not show ${ready} within ${PAGE_READY_MS} ms`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
