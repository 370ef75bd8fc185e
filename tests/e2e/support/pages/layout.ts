/**
 * The app's layout controls (extension/app/InspectorApp.vue with layout-store.ts): the splitters beside
 * the server list and the tool list, and the button that collapses the server list.
 */
import type { Page } from 'puppeteer';
import { byTestId } from './dom.ts';

export type Splitter = 'sidebar' | 'list';

const SIDEBAR = '#server-sidebar';
const TOGGLE = byTestId('sidebar-toggle');
const splitter = (name: Splitter): string => byTestId(`${name}-splitter`);

export class AppLayout {
  constructor(readonly page: Page) {}

  /** The splitter's role, as assistive technology reads it. */
  splitterRole(name: Splitter): Promise<string | null> {
    return this.page.$eval(splitter(name), (el) => el.getAttribute('role'));
  }

  /** The width the splitter says it sets, in pixels (`aria-valuenow`), once it is shown. */
  async splitterValue(name: Splitter): Promise<number> {
    await this.page.waitForSelector(splitter(name));
    return this.page.$eval(splitter(name), (el) => Number(el.getAttribute('aria-valuenow')));
  }

  /** Focuses the splitter and presses `key` `times` times. */
  async pressOnSplitter(name: Splitter, key: 'ArrowLeft' | 'ArrowRight', times: number): Promise<void> {
    await this.page.focus(splitter(name));
    for (let i = 0; i < times; i++) await this.page.keyboard.press(key);
  }

  /** Drags the splitter `dx` pixels to the right with the mouse, in two moves of a few steps each. */
  async dragSplitter(name: Splitter, dx: number): Promise<void> {
    const handle = (await this.page.$eval(splitter(name), (el) =>
      el.getBoundingClientRect().toJSON(),
    )) as DOMRect;
    const x = handle.left + handle.width / 2;
    const y = handle.top + 100;
    await this.page.mouse.move(x, y);
    await this.page.mouse.down();
    await this.page.mouse.move(x + dx / 2, y, { steps: 4 });
    await this.page.mouse.move(x + dx, y, { steps: 4 });
    await this.page.mouse.up();
  }

  /** The rendered widths of the server list and the tool list. */
  widths(): Promise<{ sidebar: number; list: number }> {
    return this.page.evaluate((sidebar: string) => {
      const width = (sel: string) => document.querySelector(sel)?.getBoundingClientRect().width ?? NaN;
      return { sidebar: width(sidebar), list: width('.split-list') };
    }, SIDEBAR);
  }

  /** What the web page keeps of the layout in its localStorage. */
  stored(): Promise<unknown> {
    return this.page.evaluate(() => JSON.parse(localStorage.getItem('layout') ?? 'null'));
  }

  /** Whether the collapse button says the server list is expanded. */
  async sidebarExpanded(): Promise<boolean> {
    return (await this.page.$eval(TOGGLE, (el) => el.getAttribute('aria-expanded'))) === 'true';
  }

  /** Presses the button that collapses or expands the server list. */
  async toggleSidebar(): Promise<void> {
    await this.page.locator(TOGGLE).click();
  }

  /** Whether the server list is in the page at all (it is not while unpaired). */
  async hasSidebar(): Promise<boolean> {
    return (await this.page.$(SIDEBAR)) !== null;
  }

  /** Waits until the server list is shown (or, `shown: false`, hidden). */
  async waitForSidebar(shown: boolean): Promise<void> {
    await this.page.waitForSelector(SIDEBAR, shown ? { visible: true } : { hidden: true });
  }
}
