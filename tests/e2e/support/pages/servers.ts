/**
 * The server list (extension/servers/ServerSidebar.vue) and its editor: adding a server, selecting and
 * connecting one, reading its status.
 */
import type { Page } from 'puppeteer';
import { byTestId, waitForText } from './dom.ts';

export class ServersSidebar {
  constructor(readonly page: Page) {}

  /**
   * Adds a STDIO server through the editor, as a user types it in (picking its MCP era when given), and
   * waits for it in the list.
   */
  async addStdio(id: string, command: string, args: string[], cwd?: string, era?: string): Promise<void> {
    await this.page.locator(byTestId('server-add')).click();
    await this.page.locator(byTestId('editor-mode-stdio')).click();
    await this.page.locator(byTestId('editor-id')).fill(id);
    await this.page.locator(byTestId('editor-command')).fill(command);
    await this.page.locator(byTestId('editor-args')).fill(args.join('\n'));
    if (cwd) await this.page.locator(byTestId('editor-cwd')).fill(cwd);
    if (era) await this.page.select(byTestId('editor-era'), era);
    await this.page.locator(byTestId('editor-save')).click();
    await this.page.waitForSelector(byTestId('server-editor'), { hidden: true });
    await this.page.waitForSelector(byTestId(`server-${id}`));
  }

  /** Waits until the list shows the server `id`. */
  async waitFor(id: string): Promise<void> {
    await this.page.waitForSelector(byTestId(`server-${id}`));
  }

  /** Waits for the list to say there is no server yet. */
  async waitForEmpty(): Promise<void> {
    await this.page.waitForSelector(byTestId('servers-empty'));
  }

  /** Waits until the server's status reads `status` exactly ("connected" is not "disconnected"). */
  async waitForStatus(id: string, status: string): Promise<void> {
    await waitForText(this.page, `${byTestId(`server-${id}`)} ${byTestId('server-status')}`, status, true);
  }

  async status(id: string): Promise<string> {
    return this.page.$eval(`${byTestId(`server-${id}`)} ${byTestId('server-status')}`, (el) =>
      (el as HTMLElement).innerText.trim(),
    );
  }

  /**
   * Selects the server in the list (its views then show in the tabs), by its name line: the middle of a
   * selected item is its buttons (Edit, in Firefox's layout).
   */
  async select(id: string): Promise<void> {
    const item = byTestId(`server-${id}`);
    await this.page.locator(`${item} strong`).click();
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
    await this.select(id);
    await this.page.waitForSelector(`${button}, ${item} .dot.connected`);
    await this.page.$eval(
      item,
      (el, sel) => el.querySelector<HTMLButtonElement>(sel)?.click(),
      byTestId('server-connect'),
    );
    await this.waitForStatus(id, 'connected');
  }

  /** Waits for the explanation of the selected server's failure to contain `text`; returns it. */
  failure(text: string): Promise<string> {
    return waitForText(this.page, byTestId('server-failure'), text);
  }

  /** The error the failure explanation quotes. */
  failureError(): Promise<string | null> {
    return this.page.$eval(byTestId('server-failure-error'), (el) => el.textContent);
  }

  /** Whether a failure is explained beside the views. */
  async hasFailure(): Promise<boolean> {
    return (await this.page.$(byTestId('server-failure'))) !== null;
  }

  /** Follows the failure explanation's link to the server's log. */
  async openFailureLogs(): Promise<void> {
    await this.page.locator(byTestId('server-failure-logs')).click();
  }
}
