/**
 * The inspector app, as the DevTools panel (opened as a tab), the options page or the web page the daemon
 * serves: the same Vue app (extension/app/InspectorApp.vue) with the same `data-testid`s. It owns the
 * app's frame (loading, tabs, the live channel's word, screenshots; its layout controls in `layout`) and composes one page object per
 * view: `panel.tools.run()`, `panel.logs.rows()`.
 */
import type { Browser, Page } from 'puppeteer';
import { AuthView } from './auth.ts';
import { byTestId, saveScreenshot, type ScreenshotOptions } from './dom.ts';
import { ElicitationDialog } from './elicitation-dialog.ts';
import { AppLayout } from './layout.ts';
import { LogsView } from './logs.ts';
import { PairingForm } from './pairing.ts';
import { PromptsView } from './prompts.ts';
import { ResourcesView } from './resources.ts';
import { SamplingDialog } from './sampling-dialog.ts';
import { SavedRequestsView } from './saved-requests.ts';
import { ServerInfoView } from './server-info.ts';
import { ServersSidebar } from './servers.ts';
import { ToolsView } from './tools.ts';
import { WidgetView } from './widget.ts';

export type Tab = 'tools' | 'resources' | 'prompts' | 'server' | 'auth' | 'logs';

export class PanelPage {
  readonly layout: AppLayout;
  readonly pairing: PairingForm;
  readonly servers: ServersSidebar;
  readonly tools: ToolsView;
  readonly elicitation: ElicitationDialog;
  readonly sampling: SamplingDialog;
  readonly savedRequests: SavedRequestsView;
  readonly widget: WidgetView;
  readonly resources: ResourcesView;
  readonly prompts: PromptsView;
  readonly serverInfo: ServerInfoView;
  readonly auth: AuthView;
  readonly logs: LogsView;

  constructor(readonly page: Page) {
    this.layout = new AppLayout(page);
    this.pairing = new PairingForm(page);
    this.servers = new ServersSidebar(page);
    this.tools = new ToolsView(page);
    this.elicitation = new ElicitationDialog(page);
    this.sampling = new SamplingDialog(page);
    this.savedRequests = new SavedRequestsView(page);
    this.widget = new WidgetView(page);
    this.resources = new ResourcesView(page);
    this.prompts = new PromptsView(page);
    this.serverInfo = new ServerInfoView(page);
    this.auth = new AuthView(page);
    this.logs = new LogsView(page);
  }

  static async open(browser: Browser, url: string): Promise<PanelPage> {
    const page = await browser.newPage();
    const panel = new PanelPage(page);
    await panel.goto(url);
    return panel;
  }

  /** Opens the page and pairs it with the daemon, as a user does the first time. */
  static async openPaired(
    browser: Browser,
    url: string,
    daemon: { url: string; token: string },
  ): Promise<PanelPage> {
    const panel = await PanelPage.open(browser, url);
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    return panel;
  }

  /** Loads the page and waits until the app has read its stored pairing. */
  async goto(url: string): Promise<void> {
    await this.page.goto(url);
    await this.appReady();
  }

  async reload(): Promise<void> {
    await this.page.reload();
    await this.appReady();
  }

  private async appReady(): Promise<void> {
    await this.page.waitForSelector(`${byTestId('pairing-form')}, ${byTestId('daemon-url')}`);
  }

  async close(): Promise<void> {
    await this.page.close();
  }

  async openTab(tab: Tab): Promise<void> {
    await this.page.locator(byTestId(`tab-${tab}`)).click();
    await this.waitForTab(tab);
  }

  /** Waits until `tab` is the selected tab (as after following a link to another view). */
  async waitForTab(tab: Tab): Promise<void> {
    await this.page.waitForSelector(`${byTestId(`tab-${tab}`)}[aria-selected="true"]`);
  }

  /**
   * Waits for the top bar's word for the live channel to be `live` (or, `live: false`, anything else:
   * `reconnecting…`, `offline`); returns it. The channel retries with a backoff of up to 5 s.
   */
  async waitForLive(live = true): Promise<string> {
    const handle = await this.page.waitForFunction(
      (sel: string, wanted: boolean) => {
        const text = document.querySelector<HTMLElement>(sel)?.innerText.trim();
        return text !== undefined && (text === 'live') === wanted ? text : undefined;
      },
      { timeout: 30_000 },
      byTestId('live-state'),
      live,
    );
    return (await handle.jsonValue()) as string;
  }

  /**
   * Saves the visible page to tests/e2e/screenshots/<name>.png, in the light or dark theme; `height` shrinks
   * the viewport for the shot, as a DevTools panel docked at the bottom of the window is.
   */
  screenshot(name: string, options: ScreenshotOptions = {}): Promise<string> {
    return saveScreenshot(this.page, name, options);
  }
}
