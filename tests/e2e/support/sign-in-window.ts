import type { Browser, Page } from 'puppeteer';
import { expect } from 'vitest';
import { waitForText } from './pages/dom.ts';

/** Resolves once `page` closes, or after `ms`. */
function closedWithin(page: Page, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    page.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Waits for the provider's pages in the browser's sign-in window (`identity.launchWebAuthFlow`, in
 * Chromium or Firefox) and says yes to each (its login, its consent) until the provider sends the window
 * back and the browser closes it. Returns the prompts; `onLogin` sees the window on its login page.
 */
export async function answerSignInWindow(
  browser: Browser,
  issuer: string,
  onLogin?: (signInWindow: Page) => Promise<unknown>,
): Promise<string[]> {
  const target = await browser.waitForTarget((t) => t.url().startsWith(`${issuer}/interaction/`));
  const signInWindow = (await target.page())!;
  const prompts: string[] = [];
  while (!signInWindow.isClosed() && prompts.length < 4) {
    try {
      prompts.push(await waitForText(signInWindow, '#prompt', ''));
      if (prompts.length === 1 && prompts[0] === 'login') await onLogin?.(signInWindow);
      await Promise.all([signInWindow.waitForNavigation(), signInWindow.locator('#accept').click()]);
    } catch (error) {
      // The provider's last answer sends the window to the redirect URI, and the browser closes it: the
      // navigation may fail a moment before the page knows it is closed.
      if (!signInWindow.isClosed()) await closedWithin(signInWindow, 5_000);
      if (!signInWindow.isClosed()) throw error;
    }
  }
  expect(signInWindow.isClosed()).toBe(true);
  return prompts;
}
