import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, type TestDaemon, TSX_LOADER } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { PopupPage } from './support/pages/popup.ts';
import { USER_FLOW } from './support/user-flow.ts';

/** The modern fixture (tests/fixtures/modern-server.ts) through tsx, as a user types it into the editor. */
const MODERN_FIXTURE_COMMAND = {
  command: process.execPath,
  args: [...TSX_LOADER, join(FIXTURES, 'modern-server.ts')],
  cwd: ROOT,
};

const WARNING = "The server's result breaks the 2026-07-28 schema:";

// A 2026-07-28 server's result that breaks the revision's schema is shown as the server sent it, under a
// warning that says what is wrong: a tool result, a resource read and a prompt, in the DevTools panel.
describe('results that break the 2026-07-28 schema, shown in the panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let panel: PanelPage;

  beforeAll(async () => {
    [ext, daemon] = await Promise.all([launchWithTestExtension(), startDaemonForExtension()]);
    panel = await PanelPage.openPaired(ext.browser, ext.pageUrl('devtools-panel.html'), daemon);
    const { command, args, cwd } = MODERN_FIXTURE_COMMAND;
    await panel.servers.addStdio('modern', command, args, cwd);
    await panel.servers.connect('modern');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  /** The warning above the result in view, once it names `problem`. */
  const warning = (problem: string): Promise<string> =>
    waitForText(panel.page, byTestId('result-problem'), problem);

  it('shows the tool result as sent, under a warning naming the block the schema does not know', async () => {
    await panel.tools.select('broken');
    await panel.tools.run();
    const result = await panel.tools.resultWith('before the broken block');
    // The block of the unknown type is shown too, as JSON.
    expect(result).toContain('hologram');
    expect(await warning('content.1.type: expected one of')).toContain(WARNING);
    const order = await panel.page.$eval(byTestId('tool-result'), (el) => {
      const problem = el.querySelector('[data-testid="result-problem"]')!;
      const firstBlock = el.querySelector('[data-testid="content-text"]')!;
      return problem.compareDocumentPosition(firstBlock) & Node.DOCUMENT_POSITION_FOLLOWING;
    });
    expect(order).toBeTruthy();
    await panel.screenshot('modern-result-problem');
    await panel.screenshot('modern-result-problem-dark', { theme: 'dark' });

    // A well-formed result has no warning.
    await panel.tools.select('echo');
    await panel.tools.fill('message', 'fine');
    await panel.tools.run();
    await panel.tools.resultWith('Echo: fine');
    expect(await panel.page.$(byTestId('result-problem'))).toBeNull();
  });

  it('warns above a resource read and a prompt that break it too', async () => {
    await panel.openTab('resources');
    await panel.resources.select('fixture://broken');
    expect(await warning('contents.0.text')).toContain(WARNING);

    await panel.openTab('prompts');
    await panel.prompts.select('broken');
    const messages = await panel.prompts.get('who says this?');
    expect(messages).toEqual([{ role: 'unknown', text: expect.stringContaining('who says this?') }]);
    expect(await warning('messages.0.role')).toContain(WARNING);
    await panel.screenshot('modern-prompt-problem');
  });

  it('warns above the tool result in the toolbar popup too', async () => {
    const popup = await PopupPage.open(ext.browser, ext.pageUrl('popup.html'));
    await popup.selectServer('modern');
    await popup.selectTool('broken');
    await popup.run();
    expect(await popup.resultWith('before the broken block')).toContain('hologram');
    expect(await waitForText(popup.page, byTestId('result-problem'), 'content.1.type')).toContain(WARNING);
    await popup.screenshot('popup-modern-result-problem');
    await popup.close();
  });
});
