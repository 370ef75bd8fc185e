import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdio, type TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

// A tool that fails with -32042 (URL elicitation required) until its URL was visited: the panel shows
// the URL, the user opens it in a new tab, the server says it is complete, and Done retries the call.
describe('URL elicitation required in the panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let panel: PanelPage;

  beforeAll(async () => {
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    const config = fixtureStdio('url-elicitation-server.ts');
    expect((await daemon.api('PUT', '/api/mcp/servers/web', { config })).status).toBe(201);
    panel = await PanelPage.openPaired(ext.browser, ext.pageUrl('devtools-panel.html'), daemon);
    await panel.servers.connect('web');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('shows the URL, says the call is retried, marks it completed by the server, and retries on Done', async () => {
    await panel.tools.select('connect-account');
    await panel.tools.run();
    expect(await panel.elicitation.message()).toBe('Connect your account to continue');
    const retry = await waitForText(panel.page, panel.elicitation.inDialog('elicit-retry'), 'retry 1 of 3');
    expect(retry).toContain('open the link and finish there, then choose Done');
    const accept = panel.elicitation.inDialog('elicit-accept');
    expect(await panel.page.$eval(accept, (el) => (el as HTMLElement).innerText)).toBe(
      'Done, retry the call',
    );
    await panel.screenshot('panel-url-elicitation');
    await panel.screenshot('panel-url-elicitation-docked', { height: 400 });

    // The user opens the link: the fixture's page marks the step done and the server says so.
    const opened = new Promise((resolve) => ext.browser.once('targetcreated', resolve));
    await panel.page.locator(panel.elicitation.inDialog('elicit-open')).click();
    await opened;
    await waitForText(panel.page, panel.elicitation.inDialog('elicit-completed'), 'Completed by the server');
    await panel.screenshot('panel-url-elicitation-completed');
    await panel.screenshot('panel-url-elicitation-completed-dark', { theme: 'dark' });

    await panel.elicitation.press('accept');
    expect(await panel.tools.resultWith('Account connected')).toContain('Account connected');
  });

  it("ends the call with the server's error when the user declines", async () => {
    await panel.tools.run();
    await panel.elicitation.message();
    expect(await panel.page.$(panel.elicitation.inDialog('elicit-completed'))).toBeNull();
    await panel.elicitation.press('decline');
    const error = await waitForText(panel.page, byTestId('run-error'), 'declined');
    expect(error).toContain('The user declined the URL elicitation, so the call was not retried.');
    await panel.screenshot('panel-url-elicitation-declined');
  });
});
