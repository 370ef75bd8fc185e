/**
 * The widget under a tool result (extension/widgets/): its frame, display mode, follow-up messages and
 * traffic view.
 */
import type { Frame, Page } from 'puppeteer';
import { byTestId, fresh, markStale, waitForText } from './dom.ts';

const WIDGET = byTestId('widget');

/** The host toolbar's selects above the widget. */
export type HostSetting = 'theme' | 'device' | 'safe-area';

/** One message of the widget traffic view. */
export interface WidgetMessageInfo {
  direction: 'in' | 'out';
  type: string;
  ignored: boolean;
  note: string;
}

/**
 * The widget under a tool result in the inspector app (panel or web page): the widget's own frame,
 * its display mode, the follow-up messages and the traffic view beside it.
 */
export class WidgetView {
  constructor(readonly page: Page) {}

  /** Marks the widget shown now, so that `frame()` waits for the next one (a new run renders anew). */
  async markStale(): Promise<void> {
    await markStale(this.page, WIDGET);
  }

  /**
   * The frame of the widget shown, once the widget page is in it: `ready` is a selector of the widget's
   * own document (its script has run by then).
   */
  async frame(ready: string): Promise<Frame> {
    const handle = await this.page.waitForSelector(
      `${fresh(WIDGET)}[data-status="ready"] ${byTestId('widget-frame')}`,
    );
    const frame = await handle?.contentFrame();
    if (!frame) throw new Error('the widget frame has no document');
    await frame.waitForSelector(ready);
    return frame;
  }

  /** The text of the element `selector` in the widget, once it equals `text`. */
  async waitInFrame(frame: Frame, selector: string, text: string): Promise<string> {
    try {
      const handle = await frame.waitForFunction(
        (sel: string, wanted: string) =>
          document.querySelector<HTMLElement>(sel)?.innerText.trim() === wanted ? wanted : undefined,
        {},
        selector,
        text,
      );
      return (await handle.jsonValue()) as string;
    } catch (error) {
      const shown = await frame
        .$eval(selector, (el) => (el as HTMLElement).innerText)
        .catch(() => '(not there)');
      throw new Error(`the widget's ${selector} never showed "${text}"; it shows "${shown}"`, {
        cause: error,
      });
    }
  }

  /** The display mode the panel shows the widget in (`inline`, `modal`, `sidebar`), once it is `mode`. */
  async waitForMode(mode: string): Promise<void> {
    await this.page.waitForSelector(`${WIDGET}[data-mode="${mode}"]`);
  }

  /** Switches the display mode with the panel's own buttons above the widget. */
  async switchMode(mode: string): Promise<void> {
    await this.page.locator(byTestId(`widget-shell-mode-${mode}`)).click();
  }

  /** Where and how the frame's shell is placed: the dialog's modality and its box in the viewport. */
  async shellPlacement(): Promise<{ open: boolean; modal: boolean; position: string; rect: DOMRect }> {
    return this.page.$eval(byTestId('widget-shell'), (el) => {
      const dialog = el as HTMLDialogElement;
      return {
        open: dialog.open,
        modal: dialog.matches(':modal'),
        position: getComputedStyle(dialog).position,
        rect: dialog.getBoundingClientRect().toJSON() as DOMRect,
      };
    });
  }

  /** The note on content taller than the inline frame, once it contains `text`. */
  async overflowNote(text: string): Promise<string> {
    return waitForText(this.page, `${WIDGET} ${byTestId('widget-overflow')}`, text);
  }

  /** Waits until the widget shows no note on its content's height. */
  async waitForNoOverflowNote(): Promise<void> {
    await this.page.waitForFunction(
      (sel: string) => document.querySelector(sel) === null,
      {},
      `${WIDGET} ${byTestId('widget-overflow')}`,
    );
  }

  /** The height of the widget's frame in the panel, in CSS pixels. */
  frameHeight(): Promise<number> {
    return this.page.$eval(`${WIDGET} ${byTestId('widget-frame')}`, (el) =>
      Math.round(el.getBoundingClientRect().height),
    );
  }

  /** Waits for a follow-up message containing `text` and returns every follow-up message. */
  async followups(text: string): Promise<string[]> {
    await waitForText(this.page, byTestId('widget-followup'), text);
    return this.page.$$eval(byTestId('widget-followup'), (els) =>
      els.map((el) => (el as HTMLElement).innerText.trim()),
    );
  }

  /** The traffic view's rows, oldest first. */
  async messages(): Promise<WidgetMessageInfo[]> {
    return this.page.$$eval(byTestId('widget-message'), (els) =>
      els.map((el) => ({
        direction: el.getAttribute('data-direction') as 'in' | 'out',
        type: el.getAttribute('data-type') ?? '',
        ignored: el.getAttribute('data-ignored') === 'true',
        note: el.querySelector<HTMLElement>('[data-testid="widget-message-note"]')?.innerText.trim() ?? '',
      })),
    );
  }

  /** Waits until the traffic view shows a message of `type` going `direction`; returns all rows. */
  async waitForMessage(direction: 'in' | 'out', type: string): Promise<WidgetMessageInfo[]> {
    await this.page.waitForSelector(
      `${byTestId('widget-message')}[data-direction="${direction}"][data-type="${type}"]`,
    );
    return this.messages();
  }

  /** Expands the last traffic row of `type` and returns its JSON, parsed. */
  async expandLast(type: string): Promise<unknown> {
    const rows = await this.page.$$(`${byTestId('widget-message')}[data-type="${type}"]`);
    const row = rows.at(-1);
    if (!row) throw new Error(`no widget message of type ${type}`);
    const summary = await row.$('summary');
    await summary!.click();
    await row.waitForSelector(`details[open] ${byTestId('widget-message-json')}`);
    return JSON.parse(await row.$eval(byTestId('widget-message-json'), (el) => el.textContent ?? ''));
  }

  /** Closes the traffic rows opened with `expandLast` (as before a screenshot). */
  async collapseMessages(): Promise<void> {
    await this.page.$$eval(`${byTestId('widget-message')} details[open]`, (els) =>
      els.forEach((el) => el.removeAttribute('open')),
    );
  }

  /**
   * The host's prompt for a link the widget asked to open, once it shows: the address it shows and its
   * note on the requests it refused meanwhile ('' without one).
   */
  async linkPrompt(): Promise<{ url: string; refused: string }> {
    const consent = await this.page.waitForSelector(byTestId('widget-link-consent'));
    return consent!.evaluate((el) => ({
      url: el.querySelector<HTMLElement>('[data-testid="widget-link-url"]')?.innerText.trim() ?? '',
      refused: el.querySelector<HTMLElement>('[data-testid="widget-link-refused"]')?.innerText.trim() ?? '',
    }));
  }

  /** Whether the host shows a link prompt now. */
  async hasLinkPrompt(): Promise<boolean> {
    return (await this.page.$(byTestId('widget-link-consent'))) !== null;
  }

  /** Clicks Open (once it is armed) or Dismiss in the link prompt; waits until the prompt has gone. */
  async answerLink(answer: 'open' | 'dismiss'): Promise<void> {
    await this.page.locator(byTestId(`widget-link-${answer}`)).click();
    await this.page.waitForSelector(byTestId('widget-link-consent'), { hidden: true });
  }

  /** Picks a value in the host toolbar's select for `setting`. */
  async setHost(setting: HostSetting, value: string): Promise<void> {
    await this.page.select(byTestId(`widget-host-${setting}`), value);
  }

  /** The value the host toolbar's select for `setting` shows. */
  host(setting: HostSetting): Promise<string> {
    return this.page.$eval(byTestId(`widget-host-${setting}`), (el) => (el as HTMLSelectElement).value);
  }

  /** Types over the host toolbar's locale and presses Enter. */
  async typeLocale(locale: string): Promise<void> {
    const field = await this.page.waitForSelector(byTestId('widget-host-locale'));
    await field!.click({ count: 3 });
    await field!.type(locale);
    await field!.press('Enter');
  }

  /** The host toolbar's locale field: its value and whether it is marked invalid. */
  locale(): Promise<{ value: string; invalid: boolean }> {
    return this.page.$eval(byTestId('widget-host-locale'), (el) => ({
      value: (el as HTMLInputElement).value,
      invalid: el.getAttribute('aria-invalid') === 'true',
    }));
  }

  /** Waits for the host toolbar's word on a locale it refused; returns it. */
  async localeProblem(): Promise<string | null> {
    const problem = await this.page.waitForSelector(byTestId('widget-host-locale-problem'));
    return problem!.evaluate((el) => el.textContent);
  }
}
