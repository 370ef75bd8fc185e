/**
 * The Prompts view (extension/prompts/PromptsView.vue): the selected prompt's arguments, with the
 * completions offered while typing one, Get prompt and the messages it returns.
 */
import type { Page } from 'puppeteer';
import { byTestId, waitForText } from './dom.ts';

export class PromptsView {
  constructor(readonly page: Page) {}

  async select(name: string): Promise<void> {
    await this.page.locator(byTestId(`prompt-${name}`)).click();
    await waitForText(this.page, byTestId('prompt-title'), name, true);
  }

  /** The selected prompt's arguments in form order, with whether each is marked required. */
  async arguments(): Promise<Array<{ name: string; required: boolean }>> {
    return this.page.$$eval('form.args .field', (fields) =>
      fields.map((field) => ({
        name: field.querySelector('label .mono')?.textContent?.trim() ?? '',
        required:
          field.querySelector('label .required') !== null &&
          field.querySelector('input')?.getAttribute('aria-required') === 'true',
      })),
    );
  }

  /** The note naming the required arguments still empty. */
  missing(): Promise<string | undefined> {
    return this.page.$eval(byTestId('prompt-missing'), (el) => el.textContent?.trim());
  }

  async fillArgument(name: string, value: string): Promise<void> {
    await this.page.locator(byTestId(`prompt-arg-${name}`)).fill(value);
  }

  /** The completions offered for the argument, once there are `count` of them. */
  async suggestions(name: string, count: number): Promise<string[]> {
    const list = byTestId(`prompt-arg-${name}-suggestions`);
    await this.page.waitForFunction(
      (selector: string, wanted: number) => document.querySelectorAll(`${selector} option`).length === wanted,
      {},
      list,
      count,
    );
    return this.page.$$eval(`${list} option`, (els) => els.map((el) => (el as HTMLOptionElement).value));
  }

  /** Whether the argument's field offers its completions (its `list` names their datalist). */
  async offersSuggestions(name: string): Promise<boolean> {
    const offered = await this.page.$eval(byTestId(`prompt-arg-${name}`), (el) => el.getAttribute('list'));
    const id = await this.page.$eval(byTestId(`prompt-arg-${name}-suggestions`), (el) => el.id);
    return offered !== null && offered === id;
  }

  async getEnabled(): Promise<boolean> {
    return this.page.$eval(
      byTestId('prompt-get'),
      (el) => !(el as HTMLButtonElement).disabled && el.getAttribute('aria-disabled') !== 'true',
    );
  }

  /** Waits until Get prompt may be pressed (every required argument filled). */
  async waitForGetEnabled(): Promise<void> {
    await this.page.waitForSelector(`${byTestId('prompt-get')}:enabled`);
  }

  /** Presses Get prompt and returns the messages once one contains `text`. */
  async get(text: string): Promise<Array<{ role: string; text: string }>> {
    await this.page.locator(`${byTestId('prompt-get')}:enabled`).click();
    await waitForText(this.page, byTestId('prompt-message'), text);
    return this.page.$$eval(byTestId('prompt-message'), (els) =>
      els.map((el) => ({
        role: el.querySelector('[data-testid="prompt-role"]')?.textContent?.trim() ?? '',
        text: Array.from(el.querySelectorAll('pre'), (pre) => pre.textContent ?? '').join('\n'),
      })),
    );
  }
}
