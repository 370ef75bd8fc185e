/**
 * The Server view (extension/servers/ServerInfo.vue and RootsEditor.vue): what the server says of
 * itself, ping, its log level, and the roots offered to it.
 */
import type { Page } from 'puppeteer';
import { byTestId, waitForText } from './dom.ts';

export class ServerInfoView {
  constructor(readonly page: Page) {}

  /** Waits for the server's name and version to contain `text`; returns them. */
  version(text: string): Promise<string> {
    return waitForText(this.page, byTestId('server-info-version'), text);
  }

  protocol(): Promise<string | undefined> {
    return this.page.$eval(byTestId('server-info-protocol'), (el) => el.textContent?.trim());
  }

  /** The era the connection negotiated, and the server's era setting. */
  era(): Promise<string | undefined> {
    return this.page.$eval(byTestId('server-info-era'), (el) => el.textContent?.replace(/\s+/g, ' ').trim());
  }

  instructions(): Promise<string> {
    return this.page.$eval(byTestId('server-info-instructions'), (el) => el.textContent ?? '');
  }

  /** Waits until the capability `name` is listed. */
  async waitForCapability(name: string): Promise<void> {
    await this.page.waitForSelector(byTestId(`server-capability-${name}`));
  }

  /** Presses Ping and returns what it says once the server answered. */
  async ping(): Promise<string> {
    await this.page.locator(byTestId('server-ping')).click();
    return waitForText(this.page, byTestId('server-ping-result'), 'answered in');
  }

  /**
   * Picks the server's log level and waits until the server has taken it: the select shows it and is no
   * longer busy (the select shows the pick at once; the daemon records it once the server answered).
   */
  async setLoggingLevel(level: string): Promise<void> {
    const select = byTestId('server-logging-level');
    await this.page.select(select, level);
    await this.page.waitForFunction(
      (sel: string, wanted: string) => {
        const box = document.querySelector<HTMLSelectElement>(sel);
        return box?.value === wanted && !box.hasAttribute('aria-busy');
      },
      {},
      select,
      level,
    );
  }

  /** Adds an empty root at the end of the list. */
  async addRoot(): Promise<void> {
    await this.page.locator(byTestId('root-add')).click();
  }

  async fillRoot(index: number, uri: string, name?: string): Promise<void> {
    await this.page.locator(byTestId(`root-uri-${index}`)).fill(uri);
    if (name !== undefined) await this.page.locator(byTestId(`root-name-${index}`)).fill(name);
  }

  /** Waits for the root at `index` to say what is wrong with it (containing `text`). */
  rootProblem(index: number, text: string): Promise<string> {
    return waitForText(this.page, byTestId(`root-${index}`), text);
  }

  async saveRootsEnabled(): Promise<boolean> {
    return this.page.$eval(byTestId('roots-save'), (el) => !(el as HTMLButtonElement).disabled);
  }

  /** Saves the roots and waits until the view says they are saved. */
  async saveRoots(): Promise<void> {
    await this.page.locator(byTestId('roots-save')).click();
    await this.page.waitForSelector(byTestId('roots-saved'));
  }
}
