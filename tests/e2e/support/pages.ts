import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer';
import { VIEWPORT } from './browser.ts';
import { SCREENSHOT_DIR } from './paths.ts';

export const byTestId = (id: string): string => `[data-testid="${id}"]`;
const DIALOG = byTestId('elicitation-dialog');
/** The tool's own form, not the elicitation dialog's (both name their inputs `field-<name>`). */
const TOOL_FORM = 'section.detail';

/**
 * Waits until an element matching `selector` contains `text` (or, `exact`, shows just that text); on
 * time-out says what the page showed instead.
 */
export async function waitForText(
  page: Page,
  selector: string,
  text: string,
  exact = false,
): Promise<string> {
  try {
    const handle = await page.waitForFunction(
      (sel: string, wanted: string, whole: boolean) =>
        Array.from(document.querySelectorAll<HTMLElement>(sel)).find((el) =>
          whole ? el.innerText.trim() === wanted : el.innerText.includes(wanted),
        )?.innerText,
      {},
      selector,
      text,
      exact,
    );
    return (await handle.jsonValue()) as string;
  } catch (error) {
    const shown = await page
      .$$eval(selector, (els) => els.map((el) => (el as HTMLElement).innerText))
      .catch(() => ['(page gone)']);
    throw new Error(`"${text}" never appeared in ${selector}; it showed: ${JSON.stringify(shown)}`, {
      cause: error,
    });
  }
}

/**
 * The inspector app, as the DevTools panel (opened as a tab), the options page or the web page the daemon
 * serves: the same Vue app with the same `data-testid`s.
 */
export class PanelPage {
  constructor(readonly page: Page) {}

  static async open(browser: Browser, url: string): Promise<PanelPage> {
    const page = await browser.newPage();
    const panel = new PanelPage(page);
    await panel.goto(url);
    return panel;
  }

  /** Loads the page and waits until the app has read its stored pairing. */
  async goto(url: string): Promise<void> {
    await this.page.goto(url);
    await this.appReady();
  }

  async reload(): Promise<void> {
    await this.page.reload();
    await this.appReady();
  }

  private async appReady(): Promise<void> {
    await this.page.waitForSelector(`${byTestId('pairing-form')}, ${byTestId('daemon-url')}`);
  }

  async close(): Promise<void> {
    await this.page.close();
  }

  // Pairing

  /** Fills URL and token and presses Connect; the outcome is read with `pairingProblem`/`waitUntilPaired`. */
  async pair(url: string, token: string): Promise<void> {
    await this.page.locator(byTestId('pair-url')).fill(url);
    await this.page.locator(byTestId('pair-token')).fill(token);
    await this.page.locator(byTestId('pair-submit')).click();
  }

  /** Waits for the pairing problem that contains `text` and returns the whole problem text. */
  pairingProblem(text: string): Promise<string> {
    return waitForText(this.page, byTestId('pair-problem'), text);
  }

  /** In the panel: the top bar names the daemon once paired and its health answered. */
  async waitUntilPaired(): Promise<string> {
    return waitForText(this.page, byTestId('daemon-status'), 'daemon');
  }

  /** On the options page the form stays and says it paired. */
  pairOk(): Promise<string> {
    return waitForText(this.page, byTestId('pair-ok'), 'Paired');
  }

  // Servers

  async addStdioServer(id: string, command: string, args: string[]): Promise<void> {
    await this.page.locator(byTestId('server-add')).click();
    await this.page.locator(byTestId('editor-mode-stdio')).click();
    await this.page.locator(byTestId('editor-id')).fill(id);
    await this.page.locator(byTestId('editor-command')).fill(command);
    await this.page.locator(byTestId('editor-args')).fill(args.join('\n'));
    await this.page.locator(byTestId('editor-save')).click();
    await this.page.waitForSelector(byTestId('server-editor'), { hidden: true });
    await this.page.waitForSelector(byTestId(`server-${id}`));
  }

  async serverStatus(id: string): Promise<string> {
    return this.page.$eval(`${byTestId(`server-${id}`)} ${byTestId('server-status')}`, (el) =>
      (el as HTMLElement).innerText.trim(),
    );
  }

  /** Selects the server, presses Connect and waits for the status `connected`. */
  async connect(id: string): Promise<void> {
    const item = byTestId(`server-${id}`);
    await this.page.locator(item).click();
    await this.page.locator(`${item} ${byTestId('server-connect')}`).click();
    await waitForText(this.page, `${item} ${byTestId('server-status')}`, 'connected', true);
  }

  // Tools

  async toolNames(): Promise<string[]> {
    await this.page.waitForSelector('[data-testid^="tool-"][role="option"]');
    return this.page.$$eval('[data-testid^="tool-"][role="option"] .mono', (els) =>
      els.map((el) => (el as HTMLElement).innerText.trim()),
    );
  }

  async selectTool(name: string): Promise<void> {
    await this.page.locator(byTestId(`tool-${name}`)).click();
    await waitForText(this.page, byTestId('tool-title'), name, true);
  }

  /** Types into (or picks in) the generated form's field for the parameter at `path`. */
  async fill(path: string, value: string): Promise<void> {
    await this.page.locator(`${TOOL_FORM} ${byTestId(`field-${path}`)}`).fill(value);
  }

  async fieldValue(path: string): Promise<string> {
    const selector = `${TOOL_FORM} ${byTestId(`field-${path}`)}`;
    await this.page.waitForSelector(selector);
    return this.page.$eval(selector, (el) => (el as HTMLInputElement).value);
  }

  /** Presses Run. The result shown before is marked stale so that `result()` waits for the new one. */
  async run(): Promise<void> {
    await this.page.$$eval(byTestId('tool-result'), (els) =>
      els.forEach((el) => el.setAttribute('data-e2e-stale', '')),
    );
    await this.page.locator(byTestId('tool-run')).click();
  }

  /** The text of the result of the last `run()`, once it is shown. */
  async result(): Promise<string> {
    const handle = await this.page.waitForSelector(`${byTestId('tool-result')}:not([data-e2e-stale])`);
    if (!handle) throw new Error('no tool result');
    return handle.evaluate((el) => (el as HTMLElement).innerText);
  }

  /** Waits for a result that contains `text`. */
  async resultWith(text: string): Promise<string> {
    await this.result();
    return waitForText(this.page, `${byTestId('tool-result')}:not([data-e2e-stale])`, text);
  }

  // Elicitation

  /** Waits for the modal dialog and returns the server's message. */
  async elicitation(): Promise<string> {
    await this.page.waitForSelector(`${DIALOG}[open]`);
    return this.page.$eval(`${DIALOG} ${byTestId('elicit-message')}`, (el) => (el as HTMLElement).innerText);
  }

  /** Fills the dialog's fields by path, then presses the action's button. */
  async answerElicitation(
    fields: Record<string, string>,
    action: 'accept' | 'decline' | 'cancel' = 'accept',
  ): Promise<void> {
    await this.page.waitForSelector(`${DIALOG}[open]`);
    for (const [path, value] of Object.entries(fields)) {
      await this.page.locator(`${DIALOG} ${byTestId(`field-${path}`)}`).fill(value);
    }
    await this.page.locator(`${DIALOG} ${byTestId(`elicit-${action}`)}`).click();
    await this.page.waitForSelector(DIALOG, { hidden: true });
  }

  async elicitationAcceptEnabled(): Promise<boolean> {
    return this.page.$eval(
      `${DIALOG} ${byTestId('elicit-accept')}`,
      (el) => !(el as HTMLButtonElement).disabled,
    );
  }

  // Saved requests

  async saveRequest(title: string): Promise<void> {
    await this.page.locator(byTestId('saved-title')).fill(title);
    await this.page.locator(byTestId('saved-save')).click();
    await waitForText(this.page, byTestId('saved-item-title'), title, true);
  }

  /** Titles of the saved requests of the selected server, once the list has loaded. */
  async savedTitles(): Promise<string[]> {
    await this.page.waitForSelector(`${byTestId('saved-item')}, ${byTestId('saved-empty')}`);
    return this.page.$$eval(byTestId('saved-item-title'), (els) =>
      els.map((el) => (el as HTMLElement).innerText.trim()),
    );
  }

  /** Presses Load on the saved request with this title. */
  async loadSaved(title: string): Promise<void> {
    await waitForText(this.page, byTestId('saved-item-title'), title, true);
    const items = await this.page.$$(byTestId('saved-item'));
    for (const item of items) {
      const itemTitle = await item.$eval(byTestId('saved-item-title'), (el) =>
        (el as HTMLElement).innerText.trim(),
      );
      if (itemTitle === title) {
        const load = await item.$(byTestId('saved-load'));
        if (!load) throw new Error(`saved request "${title}" has no Load button`);
        await load.click();
        return;
      }
    }
    throw new Error(`no saved request titled "${title}"`);
  }

  // Screenshots

  /**
   * Saves the visible page to tests/e2e/screenshots/<name>.png, in the light or dark theme; `height` shrinks
   * the viewport for the shot, as a DevTools panel docked at the bottom of the window is.
   */
  async screenshot(
    name: string,
    options: { theme?: 'light' | 'dark'; height?: number } = {},
  ): Promise<string> {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    const viewport = this.page.viewport() ?? VIEWPORT;
    await this.page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: options.theme ?? 'light' }]);
    if (options.height) await this.page.setViewport({ ...viewport, height: options.height });
    await this.page.bringToFront();
    await this.page.screenshot({ path });
    if (options.height) await this.page.setViewport(viewport);
    await this.page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    return path;
  }
}
