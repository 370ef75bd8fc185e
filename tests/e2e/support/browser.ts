import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer';
import { EXTENSION_DIR, TEST_EXTENSION_DIR } from './paths.ts';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/** A DevTools panel docked at the bottom is wide and short; the web page gets the same size. */
export const VIEWPORT = { width: 1280, height: 800 };

/** The Chromium the tests drive: PUPPETEER_EXECUTABLE_PATH, else Debian's; a readable error when absent. */
export function executablePath(): string {
  const path = process.env.PUPPETEER_EXECUTABLE_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `No Chromium at ${path}. Install Debian's (apt-get install chromium) or set PUPPETEER_EXECUTABLE_PATH ` +
        'to a Chrome or Chromium binary; puppeteer downloads none (.puppeteerrc.cjs skipDownload).',
    );
  }
  return path;
}

/** Headless Chromium; extensions are enabled so that one can be installed over the pipe. */
export function launchBrowser(options: { extensions?: boolean } = {}): Promise<Browser> {
  return puppeteer.launch({
    executablePath: executablePath(),
    headless: true,
    args: ARGS,
    defaultViewport: VIEWPORT,
    ...(options.extensions && { pipe: true, enableExtensions: true }),
  });
}

export interface ExtensionBrowser {
  browser: Browser;
  extensionId: string;
  /** `chrome-extension://<id>/<page>`. */
  pageUrl(page: string): string;
}

/**
 * Chromium with the built extension installed. The extension has no background script, so no service
 * worker target reveals its id; installing it over the DevTools protocol returns the id instead.
 * `dir` is the production build by default (the log-view bench builds and drives it).
 */
export async function launchWithExtension(dir: string = EXTENSION_DIR): Promise<ExtensionBrowser> {
  if (!existsSync(`${dir}/manifest.json`)) {
    const build =
      dir === TEST_EXTENSION_DIR
        ? '`INSPECTOR_TEST_BUILD=1 npx wxt build` (the e2e global setup does)'
        : '`npx wxt build`';
    throw new Error(`No built extension in ${dir}: run ${build}`);
  }
  const browser = await launchBrowser({ extensions: true });
  try {
    const extensionId = await browser.installExtension(dir);
    return { browser, extensionId, pageUrl: (page) => `chrome-extension://${extensionId}/${page}` };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** Chromium with the extension the e2e tests drive: the test build, which reaches a daemon on any port. */
export function launchWithTestExtension(): Promise<ExtensionBrowser> {
  return launchWithExtension(TEST_EXTENSION_DIR);
}
