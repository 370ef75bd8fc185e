/**
 * The elicitation dialog (extension/tools/ElicitationDialog.vue), in the panel and the popup alike: the
 * server's message, the fields generated from its schema, and Accept, Decline or Cancel.
 */
import type { Page } from 'puppeteer';
import { byTestId, waitForText } from './dom.ts';

const DIALOG = byTestId('elicitation-dialog');

export type ElicitationAction = 'accept' | 'decline' | 'cancel';

export class ElicitationDialog {
  constructor(readonly page: Page) {}

  /** The selector of the dialog's element `testId` (a field is `field-<path>`). */
  inDialog(testId: string): string {
    return `${DIALOG} ${byTestId(testId)}`;
  }

  /** Waits for the modal dialog and returns the server's message. */
  async message(): Promise<string> {
    await this.page.waitForSelector(`${DIALOG}[open]`);
    return this.page.$eval(this.inDialog('elicit-message'), (el) => (el as HTMLElement).innerText);
  }

  /** Whether the dialog is open. */
  async isOpen(): Promise<boolean> {
    return (await this.page.$(`${DIALOG}[open]`)) !== null;
  }

  /** Types into (or picks in) the dialog's field at `path`. */
  async fill(path: string, value: string): Promise<void> {
    await this.page.locator(this.inDialog(`field-${path}`)).fill(value);
  }

  /** Waits for the problem shown under the field at `path` to contain `text`; returns it. */
  error(path: string, text: string): Promise<string> {
    return waitForText(this.page, this.inDialog(`error-${path}`), text);
  }

  /** Whether a problem is shown under the field at `path`. */
  async hasError(path: string): Promise<boolean> {
    return (await this.page.$(this.inDialog(`error-${path}`))) !== null;
  }

  /** Waits for the note on why Accept is disabled to contain `text`; returns it. */
  blocked(text: string): Promise<string> {
    return waitForText(this.page, this.inDialog('elicit-blocked'), text);
  }

  /** Clicks the dialog's field at `path` (a checkbox: ticks or unticks it). */
  async click(path: string): Promise<void> {
    await this.page.locator(this.inDialog(`field-${path}`)).click();
  }

  async acceptEnabled(): Promise<boolean> {
    return this.page.$eval(this.inDialog('elicit-accept'), (el) => !(el as HTMLButtonElement).disabled);
  }

  /** Waits until Accept may be pressed (every answer valid). */
  async waitForAcceptEnabled(): Promise<void> {
    await this.page.waitForSelector(`${this.inDialog('elicit-accept')}:enabled`);
  }

  /** Presses the action's button once it is enabled and waits for the dialog to close. */
  async press(action: ElicitationAction): Promise<void> {
    await this.page.locator(`${this.inDialog(`elicit-${action}`)}:enabled`).click();
    await this.page.waitForSelector(DIALOG, { hidden: true });
  }

  /** Fills the dialog's fields by path, then presses the action's button. */
  async answer(fields: Record<string, string>, action: ElicitationAction = 'accept'): Promise<void> {
    await this.page.waitForSelector(`${DIALOG}[open]`);
    for (const [path, value] of Object.entries(fields)) await this.fill(path, value);
    await this.press(action);
  }
}
