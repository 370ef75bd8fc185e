/**
 * What every page object of the e2e tests shares: the `data-testid` selector, waiting for a text, marking
 * what is shown as stale so that the next wait is for something new, and saving a screenshot.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'puppeteer';
import { VIEWPORT } from '../browser.ts';
import { SCREENSHOT_DIR } from '../paths.ts';

export const byTestId = (id: string): string => `[data-testid="${id}"]`;

/**
 * Waits until an element matching `selector` contains `text` (or, `exact`, shows just that text); on
 * time-out says what the page showed instead.
 */
export async function waitForText(
  page: Page,
  selector: string,
  text: string,
  exact = false,
): Promise<string> {
  try {
    const handle = await page.waitForFunction(
      (sel: string, wanted: string, whole: boolean) =>
        Array.from(document.querySelectorAll<HTMLElement>(sel)).find((el) =>
          whole ? el.innerText.trim() === wanted : el.innerText.includes(wanted),
        )?.innerText,
      {},
      selector,
      text,
      exact,
    );
    return (await handle.jsonValue()) as string;
  } catch (error) {
    const shown = await page
      .$$eval(selector, (els) => els.map((el) => (el as HTMLElement).innerText))
      .catch(() => ['(page gone)']);
    throw new Error(`"${text}" never appeared in ${selector}; it showed: ${JSON.stringify(shown)}`, {
      cause: error,
    });
  }
}

/** Marks every element matching `selector` as stale: `fresh(selector)` then matches only newer ones. */
export async function markStale(page: Page, selector: string): Promise<void> {
  await page.$$eval(selector, (els) => els.forEach((el) => el.setAttribute('data-e2e-stale', '')));
}

/** The elements matching `selector` that `markStale` has not marked: those shown since. */
export const fresh = (selector: string): string => `${selector}:not([data-e2e-stale])`;

export interface ScreenshotOptions {
  theme?: 'light' | 'dark';
  height?: number;
}

/**
 * Saves the visible page to tests/e2e/screenshots/<name>.png, in the light or dark theme; `height` shrinks
 * the viewport for the shot, as a DevTools panel docked at the bottom of the window is.
 */
export async function saveScreenshot(
  page: Page,
  name: string,
  options: ScreenshotOptions = {},
): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  const viewport = page.viewport() ?? VIEWPORT;
  const theme = options.theme ?? 'light';
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }]);
  // The app picks its theme once, at mount (mount.ts): switch the attribute it set for the shot.
  const before = await page.evaluate((next: string) => {
    const previous = document.documentElement.dataset.theme;
    document.documentElement.dataset.theme = next;
    return previous ?? null;
  }, theme);
  if (options.height) await page.setViewport({ ...viewport, height: options.height });
  await page.bringToFront();
  await page.screenshot({ path });
  if (options.height) await page.setViewport(viewport);
  await page.evaluate((previous: string | null) => {
    if (previous === null) delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = previous;
  }, before);
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  return path;
}
