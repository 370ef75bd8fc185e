import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'puppeteer';
import { SCREENSHOT_DIR } from '../../e2e/support/paths.ts';

/** Saves the visible page to tests/e2e/screenshots/<name>.png (git-ignored), as Firefox draws it. */
export async function firefoxScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.bringToFront();
  await page.screenshot({ path });
  return path;
}
