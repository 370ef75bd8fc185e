/**
 * The sampling dialog (extension/tools/SamplingDialog.vue): a server's sampling/createMessage during a
 * call, answered by the person with a reply written by hand.
 */
import type { Page } from 'puppeteer';
import { byTestId } from './dom.ts';

const DIALOG = byTestId('sampling-dialog');

export class SamplingDialog {
  constructor(readonly page: Page) {}

  /** Waits for the dialog and returns the whole request it shows (system prompt, messages, settings). */
  async request(): Promise<string> {
    const dialog = await this.page.waitForSelector(`${DIALOG}[open]`);
    if (!dialog) throw new Error('no sampling dialog');
    return dialog.evaluate((el) => (el as HTMLElement).innerText);
  }

  /** Writes the reply's text. */
  async write(text: string): Promise<void> {
    await this.page.locator(byTestId('sampling-text')).fill(text);
  }

  /** Sends the reply written and waits for the dialog to close. */
  async send(): Promise<void> {
    await this.page.locator(byTestId('sampling-send')).click();
    await this.page.waitForSelector(DIALOG, { hidden: true });
  }
}
