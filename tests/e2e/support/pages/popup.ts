/**
 * The toolbar popup (extension/popup/PopupApp.vue), opened as a tab at `chrome-extension://<id>/popup.html`
 * (headless Chromium has no toolbar to click) in a viewport of the popup's own size: the daemon's status,
 * the server and tool pickers, the tool form, Run and the result, and the elicitation dialog.
 */
import type { Browser, Page } from 'puppeteer';
import { byTestId, fresh, markStale, saveScreenshot, type ScreenshotOptions, waitForText } from './dom.ts';
import { ElicitationDialog } from './elicitation-dialog.ts';

/** The popup's tool form, not the elicitation dialog's (both name their inputs `field-<name>`). */
const TOOL_FORM = 'section.tool';
const RESULT = byTestId('popup-result');
/** The popup's own size (PopupApp.vue): Chromium sizes the toolbar popup to it. */
export const POPUP_VIEWPORT = { width: 380, height: 520 };

export class PopupPage {
  readonly elicitation: ElicitationDialog;

  constructor(readonly page: Page) {
    this.elicitation = new ElicitationDialog(page);
  }

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

  /** Waits until the server select offers an option labelled `label` (as `everything (connected)`). */
  async waitForServerOption(label: string): Promise<void> {
    await this.page.waitForFunction(
      (sel: string, wanted: string) =>
        Array.from(document.querySelectorAll<HTMLOptionElement>(sel), (option) => option.text).includes(
          wanted,
        ),
      {},
      `${byTestId('popup-server')} option`,
      label,
    );
  }

  /** Picks the server and waits until its tools are listed. */
  async selectServer(id: string): Promise<void> {
    await this.page.waitForSelector(`${byTestId('popup-server')}:enabled`);
    await this.page.select(byTestId('popup-server'), id);
    await this.page.waitForSelector(`${byTestId('popup-tool')}:enabled`);
    await this.page.waitForFunction(
      (sel: string) => document.querySelector<HTMLInputElement>(sel)?.value !== '',
      {},
      byTestId('popup-tool'),
    );
  }

  /** Picks the tool and waits for its form. */
  async selectTool(name: string): Promise<void> {
    // The search box lists the tools matching what is typed: type the name, pick the exact match.
    const search = await this.page.waitForSelector(`${byTestId('popup-tool')}:enabled`);
    await search!.click();
    await search!.type(name);
    await this.page.waitForFunction(
      (wanted: string) =>
        Array.from(document.querySelectorAll('[data-testid="popup-tool-options"] [role="option"]')).some(
          (option) => option.textContent?.trim() === wanted,
        ),
      {},
      name,
    );
    await this.page.evaluate((wanted: string) => {
      const option = Array.from(
        document.querySelectorAll('[data-testid="popup-tool-options"] [role="option"]'),
      ).find((o) => o.textContent?.trim() === wanted);
      option?.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, cancelable: true }));
    }, name);
    await this.page.waitForFunction(
      (sel: string, wanted: string) => document.querySelector<HTMLInputElement>(sel)?.value === wanted,
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
    await markStale(this.page, RESULT);
    await this.page.locator(`${byTestId('popup-run')}:enabled`).click();
  }

  /** Waits for a result of the last `run()` whose text contains `text`; returns the result's text. */
  async resultWith(text: string): Promise<string> {
    return waitForText(this.page, fresh(RESULT), text);
  }

  /** The run status's state (`running`, `elicitation`, `completed`, …). */
  async runState(): Promise<string | null> {
    return this.page.$eval(byTestId('run-status'), (el) => el.getAttribute('data-state'));
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
