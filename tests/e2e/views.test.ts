import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LogModel } from '../../extension/logs/log-pairing.ts';
import type { RpcLogEntry } from '../../shared/logs.ts';
import type { TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension, TOOLS_FIXTURE_COMMAND } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

const FEATURES_DOC = 'demo://resource/static/document/features.md';
const TEXT_TEMPLATE = 'Dynamic Text Resource';

/** The rows a log holding exactly these entries shows: what the panel must show, no more, no less. */
function rowsOf(...runs: RpcLogEntry[][]): number {
  const model = new LogModel();
  for (const entries of runs) model.addAll(entries);
  return model.rowCount;
}

// One browser with the built extension and one daemon (restarted once) go through the Resources, Prompts
// and Logs tabs, tool progress and the live channel step by step: each test starts where the one before
// it stopped, as a user would.
describe('the Resources, Prompts and Logs views of the DevTools panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let dataDir: string;
  let panel: PanelPage;
  const message = 'hello from the e2e views test';

  beforeAll(async () => {
    // The daemon is restarted in the last test: it keeps this folder (servers.json) and the token.
    dataDir = await mkdtemp(join(tmpdir(), 'inspector-e2e-views-'));
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension({ dataDir });
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('pairs, adds server-everything over STDIO and connects to it', async () => {
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.pairing.pair(daemon!.url, daemon!.token);
    await panel.pairing.waitUntilPaired();
    expect(await panel.waitForLive()).toBe('live');
    await panel.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await panel.servers.connect('everything');
  });

  it('reads a static Markdown document from the list and shows it rendered', async () => {
    await panel.openTab('resources');
    const uris = await panel.resources.uris();
    expect(uris).toContain(FEATURES_DOC);
    expect(uris.every((uri) => uri.startsWith('demo://resource/static/document/'))).toBe(true);

    await panel.resources.select(FEATURES_DOC);
    expect(await panel.resources.content('resource-item-mime', 'text/markdown')).toBe('text/markdown');
    await panel.resources.content('resource-markdown', 'Everything Server - Features');
    // Rendered, not shown as source: the heading is an <h1>, the tool names <code>.
    const markdown = await panel.resources.markdown();
    expect(markdown.heading).toBe('Everything Server - Features');
    expect(markdown.code).toContain('echo');
    expect(markdown.text).not.toContain('# Everything');
    await panel.screenshot('resources-markdown');
    await panel.screenshot('resources-markdown-dark', { theme: 'dark' });

    // Its relative link to architecture.md names another resource of the server: it is read here.
    const architecture = FEATURES_DOC.replace('features.md', 'architecture.md');
    const pagesBefore = (await ext.browser.pages()).length;
    await panel.page
      .locator(`${panel.resources.inContent('resource-markdown')} a[data-resource-uri="${architecture}"]`)
      .click();
    await panel.resources.waitForShown(architecture);
    expect((await ext.browser.pages()).length).toBe(pagesBefore);
  });

  it('fills a resource template, previews the URI it makes and reads it', async () => {
    await panel.resources.selectTemplate(TEXT_TEMPLATE);
    expect(await panel.resources.templateTitle()).toBe(TEXT_TEMPLATE);
    await panel.resources.templatePreview('demo://resource/dynamic/text/');
    await panel.resources.templateEmpty('resourceId');

    await panel.resources.fillTemplateVariable('resourceId', '7');
    await panel.resources.templatePreview('demo://resource/dynamic/text/7');
    expect(await panel.resources.hasTemplateEmpty()).toBe(false);
    await panel.resources.readTemplate('demo://resource/dynamic/text/7');
    expect(
      await panel.resources.content('resource-text', 'Resource 7: This is a plaintext resource created at'),
    ).toMatch(/^Resource 7: This is a plaintext resource created at /);
    await panel.screenshot('resources-template');
  });

  it('counts the updates of a subscribed resource once the server sends them', async () => {
    await panel.resources.select(FEATURES_DOC);
    await panel.resources.subscribe();
    await panel.resources.updatesNote('Subscribed: no updates yet');

    // server-everything sends updates for subscribed URIs once at once, then every 5 s, after this tool.
    await panel.openTab('tools');
    await panel.tools.select('toggle-subscriber-updates');
    await panel.tools.run();
    await panel.tools.resultWith('Started simulated resource updated notifications');

    await panel.openTab('resources');
    await panel.resources.waitForTitle(FEATURES_DOC);
    const first = await panel.resources.waitForUpdates(0);
    // The next update is due within 5 s; 20 s leaves room for a slow machine.
    const later = await panel.resources.waitForUpdates(first, 20_000);
    expect(later).toBeGreaterThan(first);
    await panel.screenshot('resources-subscribed');

    // Quiet again for the tests that follow.
    await panel.resources.unsubscribe();
    await panel.openTab('tools');
    await panel.tools.select('toggle-subscriber-updates');
    await panel.tools.run();
    await panel.tools.resultWith('Stopped simulated resource updates');
  });

  it('gets args-prompt once its required argument is filled and shows the message with its role', async () => {
    await panel.openTab('prompts');
    await panel.prompts.select('args-prompt');
    // Four prompts fit: the list is as tall as its rows (of fractional heights), with no scroll bar. Rows
    // are measured a frame after they are drawn: the two heights are compared once that has happened.
    await expect
      .poll(() =>
        panel.page.$eval(
          'section[aria-label="Prompts"] .virtual-scroll',
          (el) => el.scrollHeight - el.clientHeight,
        ),
      )
      .toBe(0);
    expect(await panel.prompts.arguments()).toEqual([
      { name: 'city', required: true },
      { name: 'state', required: false },
    ]);
    expect(await panel.prompts.getEnabled()).toBe(false);
    expect(await panel.prompts.missing()).toBe('Required: city');

    await panel.prompts.fillArgument('city', 'Austin');
    await panel.prompts.waitForGetEnabled();
    await panel.prompts.fillArgument('state', 'Texas');
    expect(await panel.prompts.get("What's weather in Austin, Texas?")).toEqual([
      { role: 'user', text: "What's weather in Austin, Texas?" },
    ]);
    await panel.screenshot('prompts-args');
  });

  it('pairs the tools/call request of echo with its response in the log, with status and latency', async () => {
    await panel.openTab('tools');
    await panel.tools.select('echo');
    await panel.tools.fill('message', message);
    await panel.tools.run();
    await panel.tools.resultWith(`Echo: ${message}`);

    await panel.openTab('logs');
    await panel.logs.filterByMethod('tools/call');
    const rows = await panel.logs.rows();
    // toggle-subscriber-updates twice, then echo; each request is one row holding its response.
    expect(rows.map((row) => [row.kind, row.server, row.method])).toEqual([
      ['request', 'everything', 'tools/call'],
      ['request', 'everything', 'tools/call'],
      ['request', 'everything', 'tools/call'],
    ]);
    const echo = rows[2]!;
    expect(await panel.logs.rowStatus(echo.index, 'ok')).toBe('ok');
    const [shown] = await panel.logs.rows().then((all) => all.filter((row) => row.index === echo.index));
    expect(shown?.latency).toMatch(/^\d+ ms$/);

    const detail = await panel.logs.expandRow(echo.index);
    const [request, response] = detail.split(/^Response$/m);
    expect(request).toMatch(/^Request\n/);
    expect(request).toContain('"method": "tools/call"');
    expect(request).toContain('"name": "echo"');
    expect(request).toContain(`"message": "${message}"`);
    expect(response).toContain(`"text": "Echo: ${message}"`);
    await panel.screenshot('logs-paired');
    await panel.screenshot('logs-paired-dark', { theme: 'dark' });
  });

  it('filters the log by server and by method', async () => {
    await panel.openTab('tools');
    await panel.servers.addStdio(
      'fixture',
      TOOLS_FIXTURE_COMMAND.command,
      TOOLS_FIXTURE_COMMAND.args,
      TOOLS_FIXTURE_COMMAND.cwd,
    );
    await panel.servers.connect('fixture');
    await panel.tools.select('ping');
    await panel.tools.run();
    await panel.tools.resultWith('pong');

    await panel.openTab('logs');
    await panel.logs.filterByMethod('');
    await panel.logs.filterByServers(['fixture']);
    const fixtureRows = await panel.logs.rows();
    const count = await panel.logs.count();
    expect(count.shown).toBe(fixtureRows.length);
    expect(count.shown).toBeLessThan(count.total);
    expect(new Set(fixtureRows.map((row) => row.server))).toEqual(new Set(['fixture']));
    expect(fixtureRows.map((row) => row.method)).toEqual(
      expect.arrayContaining(['initialize', 'tools/list', 'tools/call']),
    );
    await panel.screenshot('logs-server-filter');

    await panel.logs.filterByMethod('tools/call');
    const fixtureCalls = await panel.logs.rows();
    expect(fixtureCalls.map((row) => [row.server, row.method])).toEqual([['fixture', 'tools/call']]);
    expect(await panel.logs.rowStatus(fixtureCalls[0]!.index, 'ok')).toBe('ok');

    await panel.logs.filterByServers(['everything']);
    const everythingCalls = await panel.logs.rows();
    expect(everythingCalls).toHaveLength(3);
    expect(everythingCalls.every((row) => row.server === 'everything' && row.method === 'tools/call')).toBe(
      true,
    );

    // Both servers checked is every server again.
    await panel.logs.filterByServers(['everything', 'fixture']);
    expect(await panel.logs.rows()).toHaveLength(4);
    await panel.logs.filterByServers([]);
    await panel.logs.filterByMethod('');
  });

  it('shows the progress of trigger-long-running-operation while it runs, then its result', async () => {
    await panel.servers.select('everything');
    await panel.openTab('tools');
    await panel.tools.select('trigger-long-running-operation');
    expect(await panel.tools.fieldValue('duration')).toBe('10');
    expect(await panel.tools.fieldValue('steps')).toBe('5');
    // One progress notification every 1.6 s.
    await panel.tools.fill('duration', '8');
    await panel.tools.fill('steps', '5');
    await panel.tools.run();

    expect(await panel.tools.progressText('2 / 5')).toMatch(/^2 \/ 5/);
    const bar = await panel.tools.progressBar();
    expect(bar.max).toBe(5);
    expect(bar.value).toBeGreaterThanOrEqual(2);
    await panel.screenshot('progress-mid-run');

    // Another server's tools while it runs, and back: the call is shown as it goes on, form and all.
    await panel.servers.select('fixture');
    await panel.tools.waitForSelected('ping');
    await panel.servers.select('everything');
    await panel.tools.waitForSelected('trigger-long-running-operation');
    expect(await panel.tools.fieldValue('duration')).toBe('8');
    expect(await panel.tools.runState()).toBe('running');
    expect(await panel.tools.progressText('/ 5')).toMatch(/^[2-5] \/ 5/);
    await panel.screenshot('progress-after-switching-back');

    expect(await panel.tools.resultWith('Long running operation completed.')).toContain(
      'Duration: 8 seconds, Steps: 5.',
    );
    expect(await panel.tools.runState()).toBe('completed');
    expect(await panel.tools.hasProgress()).toBe(false);
  });

  it('reconnects the live channel to a restarted daemon by itself and logs new calls once', async () => {
    const second = 'hello again after the restart';
    await panel.openTab('logs');
    await panel.logs.filterByMethod('tools/call');
    const callsBefore = (await panel.logs.rows()).length;
    await panel.logs.filterByMethod('');
    // The panel shows every entry the first daemon logged, each once.
    await vi.waitFor(
      async () => expect((await panel.logs.count()).total).toBe(rowsOf(daemon!.daemon.bus.since(0))),
      { timeout: 10_000, interval: 100 },
    );
    const before = await panel.logs.count();

    // close() shuts the live channel first, in the same tick: nothing logged after this reaches the panel.
    const firstRun = daemon!.daemon.bus.since(0);
    const { token } = daemon!;
    const port = Number(new URL(daemon!.url).port);
    await daemon!.close();
    daemon = undefined;
    expect(await panel.waitForLive(false)).toMatch(/^(offline|reconnecting…)$/);
    expect(await panel.logs.liveState()).not.toBe('● live');
    await panel.screenshot('logs-offline');

    // Same port, folder and token: the stored pairing still works, and the panel reconnects by itself.
    daemon = await startDaemonForExtension({ port, dataDir, token });
    expect(await panel.waitForLive()).toBe('live');
    await panel.logs.waitForLiveState('● live');

    await panel.openTab('tools');
    await panel.tools.select('echo');
    await panel.tools.fill('message', second);
    await panel.tools.run();
    await panel.tools.resultWith(`Echo: ${second}`);

    await panel.openTab('logs');
    // Every row the two daemons logged, each once: the old rows are not replayed, the new ones all come.
    await vi.waitFor(
      async () => {
        expect((await panel.logs.count()).total).toBe(rowsOf(firstRun, daemon!.daemon.bus.since(0)));
      },
      { timeout: 10_000, interval: 100 },
    );
    expect((await panel.logs.count()).total).toBeGreaterThan(before.total);

    await panel.logs.filterByMethod('tools/call');
    const calls = await panel.logs.rows();
    expect(calls).toHaveLength(callsBefore + 1);
    const last = calls[calls.length - 1]!;
    expect(await panel.logs.rowStatus(last.index, 'ok')).toBe('ok');
    const detail = await panel.logs.expandRow(last.index);
    expect(detail).toContain(`"message": "${second}"`);
    expect(detail).toContain(`"text": "Echo: ${second}"`);
    await panel.logs.filterByMethod('');
  });

  it('keeps a cleared log cleared, and the server selected, across a reload', async () => {
    await panel.openTab('logs');
    expect((await panel.logs.count()).total).toBeGreaterThan(0);
    await panel.page.locator(byTestId('log-clear')).click();
    expect(await panel.logs.count()).toEqual({ shown: 0, total: 0 });

    await panel.servers.select('fixture');

    // The reloaded panel gets the daemon's log replayed; the cleared part stays out. The server selected
    // before is selected again.
    await panel.reload();
    await panel.pairing.waitUntilPaired();
    await panel.page.waitForSelector(`${byTestId('server-fixture')}[aria-selected="true"]`);
    await panel.openTab('tools');
    await panel.tools.select('ping');
    await panel.tools.run();
    await panel.tools.resultWith('pong');
    await panel.openTab('logs');
    await panel.logs.waitForRow();
    await panel.screenshot('logs-after-clear-and-reload');
    // The calls of the tests before were cleared; the reloaded panel's own tools/list were not.
    await panel.logs.filterByMethod('tools/call');
    expect((await panel.logs.rows()).map((row) => [row.server, row.method])).toEqual([
      ['fixture', 'tools/call'],
    ]);
    await panel.logs.filterByMethod('');
  });

  it('pauses the log, counting the messages that arrive, and shows them on Resume', async () => {
    await panel.openTab('logs');
    const before = (await panel.logs.count()).total;
    await panel.page.locator(byTestId('log-pause')).click();
    await panel.openTab('tools');
    await panel.tools.run();
    await panel.tools.resultWith('pong');
    await panel.openTab('logs');
    // The request and its response: two messages, one row once shown.
    const label = await waitForText(panel.page, byTestId('log-pause'), 'Resume (+');
    expect(Number(/^Resume \(\+(\d+)\)$/.exec(label.trim())?.[1])).toBeGreaterThanOrEqual(2);
    expect((await panel.logs.count()).total).toBe(before);
    await panel.screenshot('logs-paused');
    await panel.page.locator(byTestId('log-pause')).click();
    await vi.waitFor(async () => expect((await panel.logs.count()).total).toBeGreaterThan(before), {
      timeout: 5_000,
    });
  });

  it('brings a row opened by keyboard at the foot of the log into view, its message with it', async () => {
    const { page } = panel;
    await page.setViewport({ width: 1280, height: 500 });
    await page.focus(`${byTestId('log-row')}[tabindex="0"]`);
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    // The opened row is in the log's view: whole when it fits, else from its top.
    const placed = () =>
      page.evaluate(() => {
        const row = document
          .querySelector('[data-testid="log-row"][aria-expanded="true"]')!
          .getBoundingClientRect();
        const view = document.querySelector('[data-testid="log-scroller"]')!.getBoundingClientRect();
        const fits = row.height <= view.height;
        return fits
          ? row.top >= view.top - 1 && row.bottom <= view.bottom + 1
          : Math.abs(row.top - view.top) <= 1;
      });
    await vi.waitFor(async () => expect(await placed()).toBe(true), { timeout: 5_000 });
    await panel.screenshot('logs-row-opened-at-foot');
    await page.setViewport({ width: 1280, height: 800 });
  });
});
