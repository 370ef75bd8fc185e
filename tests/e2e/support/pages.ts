import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer';
import { VIEWPORT } from './browser.ts';
import { SCREENSHOT_DIR } from './paths.ts';

export const byTestId = (id: string): string => `[data-testid="${id}"]`;
const DIALOG = byTestId('elicitation-dialog');
/** The tool's own form, not the elicitation dialog's (both name their inputs `field-<name>`). */
const TOOL_FORM = 'section.split-detail';

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

export interface ScreenshotOptions {
  theme?: 'light' | 'dark';
  height?: number;
}

/**
 * Saves the visible page to tests/e2e/screenshots/<name>.png, in the light or dark theme; `height` shrinks
 * the viewport for the shot.
 */
export async function saveScreenshot(
  page: Page,
  name: string,
  options: ScreenshotOptions = {},
): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  const viewport = page.viewport() ?? VIEWPORT;
  const theme = options.theme ?? 'light';
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }]);
  // The app picks its theme once, at mount (mount.ts): switch the attribute it set for the shot.
  const before = await page.evaluate((next: string) => {
    const previous = document.documentElement.dataset.theme;
    document.documentElement.dataset.theme = next;
    return previous ?? null;
  }, theme);
  if (options.height) await page.setViewport({ ...viewport, height: options.height });
  await page.bringToFront();
  await page.screenshot({ path });
  if (options.height) await page.setViewport(viewport);
  await page.evaluate((previous: string | null) => {
    if (previous === null) delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = previous;
  }, before);
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  return path;
}

/** One row of the JSON-RPC log as the Logs tab shows it. */
export interface LogRowInfo {
  index: number;
  kind: string;
  server: string;
  method: string | null;
  status: string;
  latency: string;
}

/** The log's counter: `shown` of `total` rows. */
export interface LogCount {
  shown: number;
  total: number;
}

export type Tab = 'tools' | 'resources' | 'prompts' | 'server' | 'logs';

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

  async addStdioServer(id: string, command: string, args: string[], cwd?: string): Promise<void> {
    await this.page.locator(byTestId('server-add')).click();
    await this.page.locator(byTestId('editor-mode-stdio')).click();
    await this.page.locator(byTestId('editor-id')).fill(id);
    await this.page.locator(byTestId('editor-command')).fill(command);
    await this.page.locator(byTestId('editor-args')).fill(args.join('\n'));
    if (cwd) await this.page.locator(byTestId('editor-cwd')).fill(cwd);
    await this.page.locator(byTestId('editor-save')).click();
    await this.page.waitForSelector(byTestId('server-editor'), { hidden: true });
    await this.page.waitForSelector(byTestId(`server-${id}`));
  }

  async serverStatus(id: string): Promise<string> {
    return this.page.$eval(`${byTestId(`server-${id}`)} ${byTestId('server-status')}`, (el) =>
      (el as HTMLElement).innerText.trim(),
    );
  }

  /** Selects the server in the sidebar (its views then show in the tabs). */
  async selectServer(id: string): Promise<void> {
    const item = byTestId(`server-${id}`);
    await this.page.locator(item).click();
    await this.page.waitForSelector(`${item}[aria-selected="true"]`);
  }

  /**
   * Selects the server, presses Connect and waits for the status `connected`. Selecting it lists its tools,
   * which connects it too: on a slow machine that may finish first and take the Connect button away, so
   * the button is pressed in the page, in the same step that finds it, only while it is there.
   */
  async connect(id: string): Promise<void> {
    const item = byTestId(`server-${id}`);
    const button = `${item} ${byTestId('server-connect')}`;
    await this.page.locator(item).click();
    await this.page.waitForSelector(`${button}, ${item} .dot.connected`);
    await this.page.$eval(
      item,
      (el, sel) => el.querySelector<HTMLButtonElement>(sel)?.click(),
      byTestId('server-connect'),
    );
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

  // Tabs and the live channel

  async openTab(tab: Tab): Promise<void> {
    await this.page.locator(byTestId(`tab-${tab}`)).click();
    await this.page.waitForSelector(`${byTestId(`tab-${tab}`)}[aria-selected="true"]`);
  }

  /**
   * Waits for the top bar's word for the live channel to be `live` (or, `live: false`, anything else:
   * `reconnecting…`, `offline`); returns it. The channel retries with a backoff of up to 5 s.
   */
  async waitForLive(live = true): Promise<string> {
    const handle = await this.page.waitForFunction(
      (sel: string, wanted: boolean) => {
        const text = document.querySelector<HTMLElement>(sel)?.innerText.trim();
        return text !== undefined && (text === 'live') === wanted ? text : undefined;
      },
      { timeout: 30_000 },
      byTestId('live-state'),
      live,
    );
    return (await handle.jsonValue()) as string;
  }

  // Resources

  /** The URIs of the listed resources, once the list has loaded. */
  async resourceUris(): Promise<string[]> {
    await this.page.waitForSelector('[role="listbox"][aria-label="Resources"] [role="option"]');
    return this.page.$$eval('[role="listbox"][aria-label="Resources"] [role="option"]', (els) =>
      els.map((el) => el.getAttribute('data-testid')?.replace(/^resource-/, '') ?? ''),
    );
  }

  /** Clicks the listed resource and waits for its content. */
  async selectResource(uri: string): Promise<void> {
    await this.page.locator(byTestId(`resource-${uri}`)).click();
    await waitForText(this.page, byTestId('resource-title'), uri, true);
    await waitForText(this.page, `${byTestId('resource-item')} ${byTestId('resource-item-uri')}`, uri, true);
  }

  /** Waits for the element `testId` of the resource content shown to contain `text`; returns its text. */
  async resourceContent(testId: string, text: string): Promise<string> {
    return waitForText(this.page, `${byTestId('resource-content')} ${byTestId(testId)}`, text);
  }

  /** Opens the template's form. */
  async selectTemplate(name: string): Promise<void> {
    await this.page.locator(byTestId(`template-${name}`)).click();
    await this.page.waitForSelector(byTestId('template-preview'));
  }

  async fillTemplateVariable(name: string, value: string): Promise<void> {
    await this.page.locator(byTestId(`template-var-${name}`)).fill(value);
  }

  /** Waits for the template form to preview `uri`. */
  templatePreview(uri: string): Promise<string> {
    return waitForText(this.page, byTestId('template-preview'), uri, true);
  }

  /** Presses the template's Read and waits for the content of `uri`. */
  async readTemplate(uri: string): Promise<void> {
    await this.page.locator(byTestId('template-read')).click();
    await waitForText(this.page, byTestId('resource-title'), uri, true);
    await waitForText(this.page, `${byTestId('resource-item')} ${byTestId('resource-item-uri')}`, uri, true);
  }

  /** Subscribes to the resource shown. */
  async subscribe(): Promise<void> {
    await this.page.locator(`${byTestId('resource-subscribe')}[aria-pressed="false"]`).click();
    await this.page.waitForSelector(`${byTestId('resource-subscribe')}[aria-pressed="true"]`);
  }

  async unsubscribe(): Promise<void> {
    await this.page.locator(`${byTestId('resource-subscribe')}[aria-pressed="true"]`).click();
    await this.page.waitForSelector(`${byTestId('resource-subscribe')}[aria-pressed="false"]`);
  }

  /** Waits until the resource shown counts more than `than` updates; returns the count. */
  async waitForUpdates(than: number, timeout = 30_000): Promise<number> {
    const handle = await this.page.waitForFunction(
      (sel: string, min: number) => {
        const match = /updated (\d+) times?/.exec(document.querySelector<HTMLElement>(sel)?.innerText ?? '');
        const count = match ? Number(match[1]) : 0;
        return count > min ? count : undefined;
      },
      { timeout },
      byTestId('resource-updates'),
      than,
    );
    return (await handle.jsonValue()) as number;
  }

  // Prompts

  async selectPrompt(name: string): Promise<void> {
    await this.page.locator(byTestId(`prompt-${name}`)).click();
    await waitForText(this.page, byTestId('prompt-title'), name, true);
  }

  /** The selected prompt's arguments in form order, with whether each is marked required. */
  async promptArguments(): Promise<Array<{ name: string; required: boolean }>> {
    return this.page.$$eval('form.args .field', (fields) =>
      fields.map((field) => ({
        name: field.querySelector('label .mono')?.textContent?.trim() ?? '',
        required:
          field.querySelector('label .required') !== null &&
          field.querySelector('input')?.getAttribute('aria-required') === 'true',
      })),
    );
  }

  async fillPromptArgument(name: string, value: string): Promise<void> {
    await this.page.locator(byTestId(`prompt-arg-${name}`)).fill(value);
  }

  async promptGetEnabled(): Promise<boolean> {
    return this.page.$eval(byTestId('prompt-get'), (el) => !(el as HTMLButtonElement).disabled);
  }

  /** Presses Get prompt and returns the messages once one contains `text`. */
  async getPrompt(text: string): Promise<Array<{ role: string; text: string }>> {
    await this.page.locator(`${byTestId('prompt-get')}:enabled`).click();
    await waitForText(this.page, byTestId('prompt-message'), text);
    return this.page.$$eval(byTestId('prompt-message'), (els) =>
      els.map((el) => ({
        role: el.querySelector('[data-testid="prompt-role"]')?.textContent?.trim() ?? '',
        text: Array.from(el.querySelectorAll('pre'), (pre) => pre.textContent ?? '').join('\n'),
      })),
    );
  }

  // Logs

  /** Types the method filter (empty clears it). */
  async filterLogsByMethod(method: string): Promise<void> {
    const input = byTestId('log-method-filter');
    // Locator.fill('') leaves the text as it was: select it and type over it instead.
    await this.page.$eval(input, (el) => (el as HTMLInputElement).select());
    await this.page.keyboard.press('Backspace');
    if (method) await this.page.type(input, method);
    await this.page.waitForFunction(
      (sel: string, wanted: string) => document.querySelector<HTMLInputElement>(sel)?.value === wanted,
      {},
      input,
      method,
    );
  }

  /** Checks exactly these servers in the server filter (none: every server shows). */
  async filterLogsByServers(ids: string[]): Promise<void> {
    const boxes = await this.page.$$(byTestId('log-server-option'));
    for (const box of boxes) {
      const [value, checked] = await box.evaluate((el) => [
        (el as HTMLInputElement).value,
        (el as HTMLInputElement).checked,
      ]);
      if (ids.includes(value as string) !== checked) await box.click();
    }
    await this.page.waitForFunction(
      (sel: string, wanted: string[]) =>
        Array.from(document.querySelectorAll<HTMLInputElement>(sel)).every(
          (el) => el.checked === wanted.includes(el.value),
        ),
      {},
      byTestId('log-server-option'),
      ids,
    );
  }

  /** The counter above the log: how many rows the filters let through, of how many. */
  async logCount(): Promise<LogCount> {
    const text = await this.page.$eval(byTestId('log-count'), (el) => (el as HTMLElement).innerText.trim());
    const match = /^(?:(\d+) of )?(\d+) rows?$/.exec(text);
    if (!match) throw new Error(`unexpected log counter "${text}"`);
    const total = Number(match[2]);
    return { shown: match[1] === undefined ? total : Number(match[1]), total };
  }

  /**
   * The rows the log shows, once every row the counter announces is on screen: the list is virtual, so
   * this suits a log (or a filtered view of it) that fits in view.
   */
  async logRows(): Promise<LogRowInfo[]> {
    try {
      await this.page.waitForFunction(
        (rowSel: string, countSel: string) => {
          const text = document.querySelector<HTMLElement>(countSel)?.innerText.trim() ?? '';
          const match = /^(?:(\d+) of )?(\d+) rows?$/.exec(text);
          return match !== null && document.querySelectorAll(rowSel).length === Number(match[1] ?? match[2]);
        },
        {},
        byTestId('log-row'),
        byTestId('log-count'),
      );
    } catch (error) {
      const count = await this.page.$eval(byTestId('log-count'), (el) => (el as HTMLElement).innerText);
      const rows = (await this.page.$$(byTestId('log-row'))).length;
      throw new Error(`the log counter says "${count}" but ${rows} rows are on screen`, { cause: error });
    }
    return this.readLogRows();
  }

  /** Waits until the log row at `index` of the filtered log shows `status` (`ok`, `pending`, `error …`). */
  logRowStatus(index: number, status: string): Promise<string> {
    return waitForText(
      this.page,
      `${byTestId('log-row')}[data-index="${index}"] [role="gridcell"].status`,
      status,
      true,
    );
  }

  private readLogRows(): Promise<LogRowInfo[]> {
    return this.page.$$eval(byTestId('log-row'), (els) =>
      els
        .map((el) => ({
          index: Number(el.getAttribute('data-index')),
          kind: el.getAttribute('data-kind') ?? '',
          server: el.getAttribute('data-server') ?? '',
          method: el.getAttribute('data-method'),
          status: el.querySelector<HTMLElement>('[role="gridcell"].status')?.innerText.trim() ?? '',
          latency: el.querySelector<HTMLElement>('[data-testid="log-latency"]')?.innerText.trim() ?? '',
        }))
        .sort((a, b) => a.index - b.index),
    );
  }

  /** Expands the row at `index` of the filtered log and returns the text of its detail. */
  async expandLogRow(index: number): Promise<string> {
    const row = `${byTestId('log-row')}[data-index="${index}"]`;
    await this.page.locator(`${row} .summary`).click();
    await this.page.waitForSelector(`${row}[aria-expanded="true"] ${byTestId('log-detail')}`);
    return this.page.$eval(`${row} ${byTestId('log-detail')}`, (el) => (el as HTMLElement).innerText);
  }

  // Progress

  /** Waits for the running call's progress text to contain `text` (as `2 / 5`); returns the whole text. */
  progressText(text: string): Promise<string> {
    return waitForText(this.page, byTestId('run-progress-text'), text);
  }

  /** The progress bar's value and maximum. */
  async progressBar(): Promise<{ value: number; max: number }> {
    return this.page.$eval(byTestId('run-progress'), (el) => ({
      value: (el as HTMLProgressElement).value,
      max: (el as HTMLProgressElement).max,
    }));
  }

  // Screenshots

  /**
   * Saves the visible page to tests/e2e/screenshots/<name>.png, in the light or dark theme; `height` shrinks
   * the viewport for the shot, as a DevTools panel docked at the bottom of the window is.
   */
  screenshot(name: string, options: ScreenshotOptions = {}): Promise<string> {
    return saveScreenshot(this.page, name, options);
  }
}
