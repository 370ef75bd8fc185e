import type { Browser, Page } from 'puppeteer';
import { byTestId, saveScreenshot, type ScreenshotOptions, waitForText } from './pages.ts';

const DIALOG = byTestId('elicitation-dialog');
/** The popup's tool form, not the elicitation dialog's (both name their inputs `field-<name>`). */
const TOOL_FORM = 'section.tool';
/** The popup's own size (PopupApp.vue): Chromium sizes the toolbar popup to it. */
export const POPUP_VIEWPORT = { width: 380, height: 520 };

/**
 * The toolbar popup, opened as a tab at `chrome-extension://<id>/popup.html` (headless Chromium has no
 * toolbar to click) in a viewport of the popup's own size.
 */
export class PopupPage {
  constructor(readonly page: Page) {}

  static async open(browser: Browser, url: string): Promise<PopupPage> {
    const page = await browser.newPage();
    await page.setViewport(POPUP_VIEWPORT);
    await page.goto(url);
    await page.waitForSelector(byTestId('popup-status'));
    return new PopupPage(page);
  }

  async close(): Promise<void> {
    await this.page.close();
  }

  /** Waits until the status line names the daemon and returns it (`● daemon <version> at <url>`). */
  daemonStatus(): Promise<string> {
    return waitForText(this.page, byTestId('popup-daemon'), 'daemon');
  }

  /** The labels of the server select's options, as `name (status)`. */
  async serverOptions(): Promise<string[]> {
    return this.page.$$eval(`${byTestId('popup-server')} option`, (els) =>
      els.map((el) => (el as HTMLOptionElement).text.trim()),
    );
  }

  /** Picks the server and waits until its tools are listed. */
  async selectServer(id: string): Promise<void> {
    await this.page.waitForSelector(`${byTestId('popup-server')}:enabled`);
    await this.page.select(byTestId('popup-server'), id);
    await this.page.waitForSelector(`${byTestId('popup-tool')}:enabled option[value]:not([value=""])`);
  }

  /** Picks the tool and waits for its form. */
  async selectTool(name: string): Promise<void> {
    await this.page.waitForSelector(`${byTestId('popup-tool')}:enabled option[value="${name}"]`);
    await this.page.select(byTestId('popup-tool'), name);
    await this.page.waitForFunction(
      (sel: string, wanted: string) => document.querySelector<HTMLSelectElement>(sel)?.value === wanted,
      {},
      byTestId('popup-tool'),
      name,
    );
    await this.page.waitForSelector(TOOL_FORM);
  }

  async fill(path: string, value: string): Promise<void> {
    await this.page.locator(`${TOOL_FORM} ${byTestId(`field-${path}`)}`).fill(value);
  }

  /** Presses Run. The result shown before is marked stale so that `resultWith` waits for the new one. */
  async run(): Promise<void> {
    await this.page.$$eval(byTestId('popup-result'), (els) =>
      els.forEach((el) => el.setAttribute('data-e2e-stale', '')),
    );
    await this.page.locator(`${byTestId('popup-run')}:enabled`).click();
  }

  /** Waits for a result of the last `run()` whose text contains `text`; returns the result's text. */
  async resultWith(text: string): Promise<string> {
    return waitForText(this.page, `${byTestId('popup-result')}:not([data-e2e-stale])`, text);
  }

  /** The run status's state (`running`, `elicitation`, `completed`, …). */
  async runState(): Promise<string | null> {
    return this.page.$eval(byTestId('run-status'), (el) => el.getAttribute('data-state'));
  }

  /** Waits for the elicitation dialog and returns the server's message. */
  async elicitation(): Promise<string> {
    await this.page.waitForSelector(`${DIALOG}[open]`);
    return this.page.$eval(`${DIALOG} ${byTestId('elicit-message')}`, (el) => (el as HTMLElement).innerText);
  }

  async fillElicitation(path: string, value: string): Promise<void> {
    await this.page.locator(`${DIALOG} ${byTestId(`field-${path}`)}`).fill(value);
  }

  async elicitationAcceptEnabled(): Promise<boolean> {
    return this.page.$eval(
      `${DIALOG} ${byTestId('elicit-accept')}`,
      (el) => !(el as HTMLButtonElement).disabled,
    );
  }

  async acceptElicitation(): Promise<void> {
    await this.page.locator(`${DIALOG} ${byTestId('elicit-accept')}:enabled`).click();
    await this.page.waitForSelector(DIALOG, { hidden: true });
  }

  /** Presses "Open full inspector" and returns the new tab it opens, once that tab has loaded. */
  async openFullInspector(): Promise<Page> {
    const browser = this.page.browser();
    const before = new Set(browser.targets());
    const opened = browser.waitForTarget((target) => !before.has(target) && target.type() === 'page', {
      timeout: 10_000,
    });
    await this.page.locator(byTestId('popup-open-panel')).click();
    const page = await (await opened).page();
    if (!page) throw new Error('"Open full inspector" opened no tab');
    return page;
  }

  screenshot(name: string, options: ScreenshotOptions = {}): Promise<string> {
    return saveScreenshot(this.page, name, options);
  }
}
