import type { HTTPRequest } from 'puppeteer';
import { expect } from 'vitest';
import type { PanelPage } from './pages/panel.ts';

/**
 * Connects server `everything` in `panel`, runs its `echo` with `message` and returns the
 * `Authorization` header of each request `sent` gained meanwhile (the page's requests to the daemon).
 */
export async function echoAsUser(panel: PanelPage, sent: HTTPRequest[], message: string): Promise<string[]> {
  const before = sent.length;
  await panel.servers.connect('everything');
  expect(await panel.tools.echo(message)).toContain(`Echo: ${message}`);
  return sent.slice(before).map((request) => request.headers().authorization ?? '');
}
