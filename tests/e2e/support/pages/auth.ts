/**
 * The Auth view (extension/oauth/AuthView.vue): the auth debugger's steps of a server's sign-ins, and its
 * Sign in, Step through, Next and Clear buttons.
 */
import type { Page } from 'puppeteer';
import { byTestId } from './dom.ts';

export interface ShownStep {
  kind: string;
  outcome: string;
  text: string;
}

export class AuthView {
  constructor(readonly page: Page) {}

  async steps(): Promise<ShownStep[]> {
    return this.page.$$eval(byTestId('auth-step'), (items) =>
      items.map((item) => ({
        kind: item.getAttribute('data-kind') ?? '',
        outcome: item.getAttribute('data-outcome') ?? '',
        text: (item as HTMLElement).innerText,
      })),
    );
  }

  /** Waits until a step of this kind (and outcome, when given) is shown; returns the steps. */
  async waitForStep(kind: string, outcome?: string): Promise<ShownStep[]> {
    const selector = `${byTestId('auth-step')}[data-kind="${kind}"]${outcome ? `[data-outcome="${outcome}"]` : ''}`;
    await this.page.waitForSelector(selector, { timeout: 30_000 });
    return this.steps();
  }

  async stepThrough(): Promise<void> {
    await this.page.locator(byTestId('auth-guided')).click();
  }

  /** Presses Next once it is offered (a request is held). */
  /**
   * Presses Next and waits until the step it held has gone out, so that the next look sees the step after
   * it (a second press on the same step would let the next one go unseen).
   */
  async next(): Promise<void> {
    const held = await this.page.$(`${byTestId('auth-step')}[data-outcome="waiting"]`);
    await this.page.locator(byTestId('auth-next')).click();
    if (held) {
      await this.page.waitForFunction(
        (step: Element) => !step.isConnected || step.getAttribute('data-outcome') !== 'waiting',
        {},
        held,
      );
    }
  }

  /** The text of the step the guided sign-in holds, once one is held. */
  async held(): Promise<string> {
    const handle = await this.page.waitForSelector(`${byTestId('auth-step')}[data-outcome="waiting"]`, {
      timeout: 30_000,
    });
    return (await handle!.evaluate((el) => (el as HTMLElement).innerText)) ?? '';
  }

  /** Whether the Next button is there (a guided sign-in holds a request). */
  hasNext(): Promise<boolean> {
    return this.page.$(byTestId('auth-next')).then((handle) => handle !== null);
  }

  /** The http(s) URL the Open sign-in page link opens, once it is offered. */
  async signInUrl(): Promise<string> {
    const handle = await this.page.waitForSelector(byTestId('auth-open-url'), { timeout: 30_000 });
    return (await handle!.evaluate((el) => (el as HTMLAnchorElement).href)) ?? '';
  }

  async openSignInPage(): Promise<void> {
    await this.page.locator(byTestId('auth-open-url')).click();
  }

  state(): Promise<string> {
    return this.page.$eval(byTestId('auth-state'), (el) => (el as HTMLElement).innerText.trim());
  }
}
