/**
 * The pairing form (extension/app/PairingForm.vue) of the panel, the options page and the web page, and
 * the top bar's word on the daemon once paired.
 */
import type { Page } from 'puppeteer';
import { byTestId, waitForText } from './dom.ts';

export class PairingForm {
  constructor(readonly page: Page) {}

  /** Fills URL and token and presses Connect; the outcome is read with `problem`/`waitUntilPaired`/`ok`. */
  async pair(url: string, token: string): Promise<void> {
    await this.page.locator(byTestId('pair-url')).fill(url);
    await this.page.locator(byTestId('pair-token')).fill(token);
    await this.page.locator(byTestId('pair-submit')).click();
  }

  /** Whether the pairing form is shown (it is not in a paired panel). */
  async isShown(): Promise<boolean> {
    return (await this.page.$(byTestId('pairing-form'))) !== null;
  }

  /** The daemon address the form offers (or holds). */
  url(): Promise<string> {
    return this.page.$eval(byTestId('pair-url'), (el) => (el as HTMLInputElement).value);
  }

  /** Waits for the pairing problem that contains `text` and returns the whole problem text. */
  problem(text: string): Promise<string> {
    return waitForText(this.page, byTestId('pair-problem'), text);
  }

  /** In the panel: the top bar names the daemon once paired and its health answered. */
  waitUntilPaired(): Promise<string> {
    return waitForText(this.page, byTestId('daemon-status'), 'daemon');
  }

  /** The address of the daemon the top bar says it is paired with. */
  daemonUrl(): Promise<string | null> {
    return this.page.$eval(byTestId('daemon-url'), (el) => el.textContent);
  }

  /** On the options page the form stays and says it paired. */
  ok(): Promise<string> {
    return waitForText(this.page, byTestId('pair-ok'), 'Paired');
  }

  /** Waits for the note that the daemon refused the saved token to contain `text`; returns it. */
  refused(text: string): Promise<string> {
    return waitForText(this.page, byTestId('pair-refused'), text);
  }

  /** The top bar's note when not paired. */
  unpairedNote(): Promise<string> {
    return this.page.$eval(byTestId('daemon-unpaired'), (el) => (el as HTMLElement).innerText);
  }

  /** Whether the top bar names a paired daemon. */
  async hasDaemonStatus(): Promise<boolean> {
    return (await this.page.$(byTestId('daemon-status'))) !== null;
  }

  /** The token field's value. */
  token(): Promise<string> {
    return this.page.$eval(byTestId('pair-token'), (el) => (el as HTMLInputElement).value);
  }

  /** Types the token into its field, as pasted, and presses Enter to connect. */
  async submitToken(token: string): Promise<void> {
    await this.page.type(byTestId('pair-token'), token);
    await this.page.keyboard.press('Enter');
  }
}
