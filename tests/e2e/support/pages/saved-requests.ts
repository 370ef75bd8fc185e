/**
 * The saved requests of the selected server (extension/saved-requests/SavedRequests.vue), beside the
 * tool form: saving the form under a title, the list, loading one back.
 */
import type { ElementHandle, Page } from 'puppeteer';
import { byTestId, waitForText } from './dom.ts';

export class SavedRequestsView {
  constructor(readonly page: Page) {}

  /** Waits until the form to save a request is shown (under a selected tool). */
  async waitForForm(): Promise<void> {
    await this.page.waitForSelector(byTestId('saved-title'));
  }

  /** Saves the tool form as it is under `title` and waits for it in the list. */
  async save(title: string): Promise<void> {
    await this.page.locator(byTestId('saved-title')).fill(title);
    await this.page.locator(byTestId('saved-save')).click();
    await waitForText(this.page, byTestId('saved-item-title'), title, true);
  }

  /** Imports a file through the Import button's file input. */
  async importFile(path: string): Promise<void> {
    const input = await this.page.waitForSelector(byTestId('saved-import'));
    await (input as ElementHandle<HTMLInputElement>).uploadFile(path);
  }

  /** The problem shown above the list once it contains `text`. */
  async problem(text: string): Promise<string> {
    return waitForText(this.page, byTestId('saved-problem'), text);
  }

  /** Titles of the saved requests of the selected server, once the list has loaded. */
  async titles(): Promise<string[]> {
    await this.page.waitForSelector(`${byTestId('saved-item')}, ${byTestId('saved-empty')}`);
    return this.page.$$eval(byTestId('saved-item-title'), (els) =>
      els.map((el) => (el as HTMLElement).innerText.trim()),
    );
  }

  /** Presses Load on the saved request with this title. */
  async load(title: string): Promise<void> {
    await (await this.button(title, 'saved-load')).click();
  }

  /**
   * Renames the saved request titled `title` through its Rename form, confirmed with a click on OK (as a
   * mouse user does): the new title and description are typed over the old ones.
   */
  async renameByClick(title: string, to: { title: string; description?: string }): Promise<void> {
    await (await this.button(title, 'saved-rename')).click();
    await this.page.locator(byTestId('saved-rename-title')).fill(to.title);
    if (to.description !== undefined) {
      await this.page.locator(byTestId('saved-rename-description')).fill(to.description);
    }
    await this.page.locator(byTestId('saved-rename-confirm')).click();
  }

  /** Leaves an open Rename form as it was. */
  async cancelRename(): Promise<void> {
    await this.page.locator(byTestId('saved-rename-cancel')).click();
  }

  /** How wide the title of the saved request titled `title` is drawn, in pixels. */
  async titleWidth(title: string): Promise<number> {
    const item = await this.item(title);
    return item.$eval(byTestId('saved-item-title'), (el) => el.getBoundingClientRect().width);
  }

  private async item(title: string): Promise<ElementHandle> {
    await waitForText(this.page, byTestId('saved-item-title'), title, true);
    for (const item of await this.page.$$(byTestId('saved-item'))) {
      const itemTitle = await item.$eval(byTestId('saved-item-title'), (el) =>
        (el as HTMLElement).innerText.trim(),
      );
      if (itemTitle === title) return item;
    }
    throw new Error(`no saved request titled "${title}"`);
  }

  private async button(title: string, testId: string): Promise<ElementHandle> {
    const button = await (await this.item(title)).$(byTestId(testId));
    if (!button) throw new Error(`saved request "${title}" has no ${testId} button`);
    return button;
  }
}
