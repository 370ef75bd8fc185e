import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import { type ModernHttpServer, startModernHttp } from '../daemon/modern-http.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

const SERVER = 'modern-http';

// The Logs view with a 2026-07-28 server over Streamable HTTP: a tool call that takes three
// input_required rounds shows as one group, a request's MCP headers show when it is expanded, and a list
// result shows its cache hint. The panel lists the tools; the calls are made through the daemon's API.
describe('the Logs view at 2026-07-28', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let server: ModernHttpServer | undefined;
  let panel: PanelPage;

  beforeAll(async () => {
    [ext, daemon, server] = await Promise.all([
      launchWithTestExtension(),
      startDaemonForExtension(),
      startModernHttp(),
    ]);
    panel = await PanelPage.openPaired(ext.browser, ext.pageUrl('devtools-panel.html'), daemon);
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
    await server?.stop();
  });

  it('groups the rounds of a call and shows the headers each round was sent with', async () => {
    const api = daemon!.api.bind(daemon);
    expect(
      (await api('PUT', `/api/mcp/servers/${SERVER}`, { config: { transport: 'http', url: server!.url } }))
        .status,
    ).toBe(201);
    // The one tools/list is the panel's own, made when the server is selected. Listing through the API
    // as well raced the panel: when its first look at the daemon's servers (at the live channel's hello)
    // came after the server was added, the panel selected the server and listed its tools a second time.
    await panel.servers.waitFor(SERVER);
    await panel.servers.select(SERVER);
    expect(await panel.tools.names()).toContain('echo');
    await api('POST', '/api/mcp/tools/execute', {
      serverId: SERVER,
      toolName: 'echo',
      parameters: { message: 'hi', region: 'eu-west' },
    });
    // Two calls of three rounds each, one right after the other.
    for (const name of ['Ada', 'Grace']) {
      const asked = await api('POST', '/api/mcp/tools/execute', {
        serverId: SERVER,
        toolName: 'ask',
        parameters: {},
      });
      const named = await api('POST', '/api/mcp/tools/respond', {
        requestId: asked.body.requestId,
        response: { action: 'accept', content: { name } },
      });
      const done = await api('POST', '/api/mcp/tools/respond', {
        requestId: named.body.requestId,
        response: { action: 'accept', content: { ok: true } },
      });
      expect(done.status).toBe(200);
    }

    await panel.openTab('logs');
    await panel.logs.filterByMethod('tools/');
    const rows = await panel.logs.rows();
    expect(rows.map((row) => row.method)).toEqual(['tools/list', ...Array(7).fill('tools/call')]);
    const notes = await panel.page.$$eval('[data-testid="log-row"]', (els) =>
      els.map(
        (el) =>
          el
            .querySelector<HTMLElement>('[data-testid="log-round"], [data-testid="log-cache"]')
            ?.innerText.trim() ?? '',
      ),
    );
    expect(notes).toEqual([
      'ttl 60 s · scope public',
      '',
      'round 1 of tools/call ask',
      'round 2 of tools/call ask',
      'round 3 of tools/call ask',
      'round 1 of tools/call ask',
      'round 2 of tools/call ask',
      'round 3 of tools/call ask',
    ]);
    const grouped = await panel.page.$$eval('[data-testid="log-row"].in-call', (els) =>
      els.map((el) => el.classList.contains('call-start')),
    );
    // A bar for each call, from its first round: the second call's is not the first's going on.
    expect(grouped).toEqual([true, false, false, true, false, false]);

    const second = await panel.logs.expandRow(rows[3]!.index);
    expect(second).toContain('Round 2 of 3 of tools/call ask');
    expect(second).toContain('mcp-name: ask');
    expect(second).toContain('"inputResponses"');
    await panel.screenshot('logs-modern-rounds');
    const echo = await panel.logs.expandRow(rows[1]!.index);
    expect(echo).toContain('HTTP headers sent');
    expect(echo).toContain('mcp-param-region: eu-west');
  });
});
