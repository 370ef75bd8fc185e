/**
 * The Resources view (extension/resources/ResourcesView.vue): the resource list, a resource's content,
 * the template form with its URI preview, and subscribing to updates.
 */
import type { Page } from 'puppeteer';
import { byTestId, waitForText } from './dom.ts';

const LISTED = '[role="listbox"][aria-label="Resources"] [role="option"]';

export class ResourcesView {
  constructor(readonly page: Page) {}

  /** The URIs of the listed resources, once the list has loaded. */
  async uris(): Promise<string[]> {
    await this.page.waitForSelector(LISTED);
    return this.page.$$eval(LISTED, (els) =>
      els.map((el) => el.getAttribute('data-testid')?.replace(/^resource-/, '') ?? ''),
    );
  }

  /** Clicks the listed resource and waits for its content. */
  async select(uri: string): Promise<void> {
    await this.page.locator(byTestId(`resource-${uri}`)).click();
    await this.waitForShown(uri);
  }

  /** Waits until the view is titled with the resource `uri` (its content may still be on its way). */
  async waitForTitle(uri: string): Promise<void> {
    await waitForText(this.page, byTestId('resource-title'), uri, true);
  }

  /** Waits until the view shows the resource `uri` and its content. */
  async waitForShown(uri: string): Promise<void> {
    await this.waitForTitle(uri);
    await waitForText(this.page, `${byTestId('resource-item')} ${byTestId('resource-item-uri')}`, uri, true);
  }

  /** The URI in the view's address field. */
  uriInput(): Promise<string> {
    return this.page.$eval(byTestId('resource-uri'), (el) => (el as HTMLInputElement).value);
  }

  /** The selector of the element `testId` of the resource content shown. */
  inContent(testId: string): string {
    return `${byTestId('resource-content')} ${byTestId(testId)}`;
  }

  /** Waits for the element `testId` of the resource content shown to contain `text`; returns its text. */
  content(testId: string, text: string): Promise<string> {
    return waitForText(this.page, this.inContent(testId), text);
  }

  /** The Markdown content shown, as rendered: its first heading, its code spans and its whole text. */
  markdown(): Promise<{ heading: string | undefined; code: Array<string | null>; text: string | null }> {
    return this.page.$eval(byTestId('resource-markdown'), (el) => ({
      heading: el.querySelector('h1')?.textContent?.trim(),
      code: Array.from(el.querySelectorAll('code'), (code) => code.textContent),
      text: el.textContent,
    }));
  }

  /** Opens the template's form. */
  async selectTemplate(name: string): Promise<void> {
    await this.page.locator(byTestId(`template-${name}`)).click();
    await this.page.waitForSelector(byTestId('template-preview'));
  }

  templateTitle(): Promise<string | null> {
    return this.page.$eval(byTestId('template-title'), (el) => el.textContent);
  }

  async fillTemplateVariable(name: string, value: string): Promise<void> {
    await this.page.locator(byTestId(`template-var-${name}`)).fill(value);
  }

  /** Waits for the template form to preview `uri`. */
  templatePreview(uri: string): Promise<string> {
    return waitForText(this.page, byTestId('template-preview'), uri, true);
  }

  /** Waits for the template form to name `variable` among those still empty; returns its note. */
  templateEmpty(variable: string): Promise<string> {
    return waitForText(this.page, byTestId('template-empty'), variable);
  }

  /** Whether the template form says some variable is still empty. */
  async hasTemplateEmpty(): Promise<boolean> {
    return (await this.page.$(byTestId('template-empty'))) !== null;
  }

  /** Presses the template's Read and waits for the content of `uri`. */
  async readTemplate(uri: string): Promise<void> {
    await this.page.locator(byTestId('template-read')).click();
    await this.waitForShown(uri);
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

  /** Waits for the subscription note of the resource shown to read `text`. */
  updatesNote(text: string): Promise<string> {
    return waitForText(this.page, byTestId('resource-updates'), text, true);
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
}
