/**
 * The inspected page's WebMCP tools in the panel inside real DevTools (extension/webmcp/WebMcpView.vue),
 * reached from the server list's "This page (WebMCP)": the tool list, the form, Run in page, the result.
 * The panel is a frame of the DevTools window, so this drives a `Frame`.
 */
import type { Frame } from 'puppeteer';
import { byTestId } from './dom.ts';

const DETAIL = 'section.split-detail';

export class WebMcpView {
  constructor(readonly panel: Frame) {}

  private click(selector: string): Promise<void> {
    return this.panel.$eval(selector, (el) => (el as HTMLElement).click());
  }

  /** Picks "This page (WebMCP)" in the server list; the Tools tab shows its tools. */
  async open(): Promise<void> {
    await this.click(byTestId('server-webmcp'));
    await this.panel.waitForSelector(`${byTestId('server-webmcp')}[aria-selected="true"]`);
  }

  /** What the sidebar entry says: the number of tools, or that there is no WebMCP. */
  status(): Promise<string> {
    return this.panel.$eval(byTestId('webmcp-status'), (el) => (el as HTMLElement).innerText.trim());
  }

  /** The view's own words when it lists nothing: no WebMCP, or the page cannot be asked. */
  async stateText(): Promise<{ state: string; text: string }> {
    await this.panel.waitForSelector(`${byTestId('webmcp-state')}:not([data-state="checking"])`);
    return this.panel.$eval(byTestId('webmcp-state'), (el) => ({
      state: el.getAttribute('data-state') ?? '',
      text: (el as HTMLElement).innerText,
    }));
  }

  /** The listed tools' names, once they are exactly `names` (the list follows the page live). */
  async waitForNames(names: string[]): Promise<string[]> {
    const handle = await this.panel.waitForFunction(
      (sel: string, wanted: string) => {
        const shown = Array.from(document.querySelectorAll(sel), (el) => el.getAttribute('data-tool'));
        return JSON.stringify(shown) === wanted ? shown : undefined;
      },
      { timeout: 20_000 },
      byTestId('webmcp-tool'),
      JSON.stringify(names),
    );
    return (await handle.jsonValue()) as string[];
  }

  async select(name: string): Promise<void> {
    await this.click(`${byTestId('webmcp-tool')}[data-tool="${name}"]`);
    await this.panel.waitForFunction(
      (sel: string, wanted: string) => document.querySelector(sel)?.textContent === wanted,
      {},
      byTestId('webmcp-title'),
      name,
    );
  }

  /** The selected tool's description, origin line and annotation badges, as shown. */
  detail(): Promise<{ description: string; origin: string; hints: string[]; schema: string }> {
    return this.panel.evaluate(
      (ids: Record<string, string>) => {
        const text = (sel: string) => (document.querySelector<HTMLElement>(sel)?.innerText ?? '').trim();
        return {
          description: text(ids.description!),
          origin: text(ids.origin!),
          hints: Array.from(document.querySelectorAll<HTMLElement>(`${ids.hints} li`), (el) =>
            el.innerText.trim(),
          ),
          schema: document.querySelector(ids.schema!)?.textContent ?? '',
        };
      },
      {
        description: byTestId('webmcp-description'),
        origin: byTestId('webmcp-origin'),
        hints: byTestId('webmcp-hints'),
        schema: byTestId('webmcp-schema'),
      },
    );
  }

  /** Types into the form's field for the parameter at `path`. */
  async fill(path: string, value: string): Promise<void> {
    const field = await this.panel.waitForSelector(`${DETAIL} ${byTestId(`field-${path}`)}`);
    await field!.evaluate((el, text) => {
      const input = el as HTMLInputElement;
      input.value = text;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, value);
  }

  /** Runs the selected tool in the page and returns the result's text once the run has ended. */
  async run(): Promise<{ state: string; result: string }> {
    await this.click(byTestId('webmcp-run'));
    const handle = await this.panel.waitForFunction(
      (statusSel: string) => {
        const state = document.querySelector(statusSel)?.getAttribute('data-state');
        return state && state !== 'running' ? state : undefined;
      },
      { timeout: 20_000 },
      byTestId('run-status'),
    );
    const state = (await handle.jsonValue()) as string;
    const result = await this.panel
      .$eval(byTestId('webmcp-result'), (el) => (el as HTMLElement).innerText)
      .catch(() => '');
    return { state, result };
  }
}
