/**
 * The Logs view (extension/logs/LogsView.vue): the JSON-RPC log's filters by method and server, its
 * counter, its rows (a request paired with its response) and a row's detail.
 */
import type { Page } from 'puppeteer';
import { byTestId, waitForText } from './dom.ts';

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

const ROW = byTestId('log-row');
const COUNT = byTestId('log-count');
const rowAt = (index: number): string => `${ROW}[data-index="${index}"]`;

export class LogsView {
  constructor(readonly page: Page) {}

  /** Types the method filter (empty clears it). */
  async filterByMethod(method: string): Promise<void> {
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
  async filterByServers(ids: string[]): Promise<void> {
    // Each box found and clicked in one step (a box found in one step and clicked in the next may have
    // been redrawn), one box a step: the boxes share one v-model, which takes one click a render.
    const count = await this.page.$$eval(byTestId('log-server-option'), (boxes) => boxes.length);
    for (let index = 0; index < count; index++) {
      await this.page.$$eval(
        byTestId('log-server-option'),
        (boxes, at, wanted) => {
          const box = boxes[at] as HTMLInputElement | undefined;
          if (box && wanted.includes(box.value) !== box.checked) box.click();
        },
        index,
        ids,
      );
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
  async count(): Promise<LogCount> {
    const text = await this.page.$eval(COUNT, (el) => (el as HTMLElement).innerText.trim());
    const match = /^(?:(\d+) of )?(\d+) rows?$/.exec(text);
    if (!match) throw new Error(`unexpected log counter "${text}"`);
    const total = Number(match[2]);
    return { shown: match[1] === undefined ? total : Number(match[1]), total };
  }

  /** Waits until the log shows a row at all. */
  async waitForRow(): Promise<void> {
    await this.page.waitForSelector(ROW);
  }

  /**
   * The rows the log shows, once every row the counter announces is on screen: the list is virtual, so
   * this suits a log (or a filtered view of it) that fits in view.
   */
  async rows(): Promise<LogRowInfo[]> {
    try {
      await this.page.waitForFunction(
        (rowSel: string, countSel: string) => {
          const text = document.querySelector<HTMLElement>(countSel)?.innerText.trim() ?? '';
          const match = /^(?:(\d+) of )?(\d+) rows?$/.exec(text);
          return match !== null && document.querySelectorAll(rowSel).length === Number(match[1] ?? match[2]);
        },
        {},
        ROW,
        COUNT,
      );
    } catch (error) {
      const count = await this.page.$eval(COUNT, (el) => (el as HTMLElement).innerText);
      const rows = (await this.page.$$(ROW)).length;
      throw new Error(`the log counter says "${count}" but ${rows} rows are on screen`, { cause: error });
    }
    return this.page.$$eval(ROW, (els) =>
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

  /** Waits until the row at `index` of the filtered log shows `status` (`ok`, `pending`, `error …`). */
  rowStatus(index: number, status: string): Promise<string> {
    return waitForText(this.page, `${rowAt(index)} [role="gridcell"].status`, status, true);
  }

  /** Expands the row at `index` of the filtered log and returns the text of its detail. */
  async expandRow(index: number): Promise<string> {
    const row = rowAt(index);
    await this.page.locator(`${row} .summary`).click();
    await this.page.waitForSelector(`${row}[aria-expanded="true"] ${byTestId('log-detail')}`);
    return this.page.$eval(`${row} ${byTestId('log-detail')}`, (el) => (el as HTMLElement).innerText);
  }

  /** The sizes the rows of the filtered log note for messages the replay sent cut, by row index. */
  cutNotes(): Promise<Record<number, string>> {
    return this.page.$$eval(ROW, (els) =>
      Object.fromEntries(
        els.flatMap((el) => {
          const note = el.querySelector<HTMLElement>('[data-testid="log-cut-note"]');
          return note ? [[Number(el.getAttribute('data-index')), note.innerText.trim()]] : [];
        }),
      ),
    );
  }

  /**
   * Presses "Load the whole message" in the expanded row at `index` (clicked, or Enter on it) and waits
   * until the message is shown or the load fails; returns the text of the row's detail then.
   */
  async loadWhole(index: number, by: 'mouse' | 'keyboard' = 'mouse'): Promise<string> {
    const row = rowAt(index);
    const button = `${row} ${byTestId('log-load-whole')}`;
    if (by === 'mouse') await this.page.locator(button).click();
    else {
      await this.page.focus(button);
      await this.page.keyboard.press('Enter');
    }
    await this.page.waitForFunction(
      (sel: string) =>
        document.querySelector(sel) !== null &&
        (document.querySelector(`${sel} [data-testid="log-cut"]`) === null ||
          document.querySelector(`${sel} [data-testid="log-load-error"]`) !== null),
      {},
      row,
    );
    return this.page.$eval(`${row} ${byTestId('log-detail')}`, (el) => (el as HTMLElement).innerText);
  }

  /** The log's own word for the live channel (`● live`, or why not). */
  liveState(): Promise<string> {
    return this.page.$eval(byTestId('log-live-state'), (el) => (el as HTMLElement).innerText.trim());
  }

  /** Waits for the log's word for the live channel to be exactly `text`. */
  waitForLiveState(text: string): Promise<string> {
    return waitForText(this.page, byTestId('log-live-state'), text, true);
  }
}
