/**
 * The host-context fixture (tests/fixtures/host-context-server.ts) in the DevTools panel at 1400 px: a
 * browser with the extension, a daemon with the fixture registered as `context`, the panel paired and
 * connected; and a tool of it run until its widget has painted the context it was given.
 */
import { join } from 'node:path';
import type { Frame } from 'puppeteer';
import { expect } from 'vitest';
import { FIXTURES, ROOT, TSX_LOADER, type TestDaemon } from '../../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './browser.ts';
import { startDaemonForExtension } from './daemon.ts';
import { PanelPage } from './pages/panel.ts';

export const CONTEXT_VIEWPORT = { width: 1400, height: 1000 };

const CONTEXT_SERVER = {
  transport: 'stdio',
  command: process.execPath,
  args: [...TSX_LOADER, join(FIXTURES, 'host-context-server.ts')],
  cwd: ROOT,
};

export async function openContextPanel(): Promise<{
  ext: ExtensionBrowser;
  daemon: TestDaemon;
  panel: PanelPage;
}> {
  const ext = await launchWithTestExtension();
  const daemon = await startDaemonForExtension();
  const { status } = await daemon.api('PUT', '/api/mcp/servers/context', { config: CONTEXT_SERVER });
  expect(status).toBe(201);
  const panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
  await panel.page.setViewport(CONTEXT_VIEWPORT);
  await panel.pairing.pair(daemon.url, daemon.token);
  await panel.pairing.waitUntilPaired();
  await panel.servers.connect('context');
  return { ext, daemon, panel };
}

/** Runs `tool` (`context-widget` or `context-app`) and answers its widget's frame once it has painted. */
export async function showContextWidget(panel: PanelPage, tool: string): Promise<Frame> {
  const { widget } = panel;
  await panel.tools.select(tool);
  await widget.markStale();
  await panel.tools.run();
  await panel.tools.result();
  const frame = await widget.frame('#theme');
  await frame.waitForFunction(() => document.getElementById('theme')?.textContent !== '');
  return frame;
}
