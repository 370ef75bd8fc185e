import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, type TestDaemon, TSX_LOADER } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { ROW, TasksList } from './support/pages/tasks.ts';
import { USER_FLOW } from './support/user-flow.ts';

const SHOTS = '/tmp/shots-modern-tasks';

/** The modern tasks fixture (tests/fixtures/modern-tasks-server.ts), as a user types it into the editor. */
const FIXTURE_COMMAND = {
  command: process.execPath,
  args: [...TSX_LOADER, join(FIXTURES, 'modern-tasks-server.ts')],
  cwd: ROOT,
};

// The panel's tasks work the same with a 2026-07-28 server whose tasks are the tasks extension: its
// tools say nothing of tasks, so each may be asked to run as one, and the server decides.
describe('MCP tasks of a 2026-07-28 server in the panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let panel: PanelPage;
  let tasks: TasksList;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    tasks = new TasksList(panel.page);
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    await panel.servers.addStdio(
      'modern',
      FIXTURE_COMMAND.command,
      FIXTURE_COMMAND.args,
      FIXTURE_COMMAND.cwd,
    );
    await panel.servers.connect('modern');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('runs a tool as a task, polls it to its end and shows its result', async () => {
    await panel.tools.select('slow_compute');
    expect(await tasks.support()).toBe('optional');
    await panel.page.waitForSelector(byTestId('tasks-empty'));
    await tasks.tickRunAsTask();
    await panel.tools.fill('steps', '3');
    await panel.tools.fill('stepMs', '400');
    await panel.tools.run();
    await waitForText(panel.page, byTestId('run-task-created'), 'created');
    const taskId = await tasks.waitForStatus('working');
    // Tasks of the extension send no status notifications: the panel polls them with tasks/get.
    expect(await tasks.waitForStatus('completed')).toBe(taskId);
    expect(await tasks.result(taskId, 'counted down from 3')).toContain('counted down from 3');
    await panel.page.$eval(byTestId('tasks-panel'), (el) => el.scrollIntoView());
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/task-result.png`, fullPage: true });
  });

  it('runs a tool the server only runs as a task with plain Run, and lists its task', async () => {
    await panel.tools.select('required_job');
    expect(await tasks.checkbox()).toEqual({ checked: false, disabled: false });
    await panel.tools.run();
    expect(await panel.tools.resultWith('job done')).toContain('job done');
    await panel.page.waitForFunction((sel: string) => document.querySelectorAll(sel).length === 2, {}, ROW);
    expect((await tasks.rows()).map((row) => row.status)).toEqual(['completed', 'completed']);
    await panel.page.$eval(byTestId('tasks-panel'), (el) => el.scrollIntoView());
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/tasks-list.png`, fullPage: true });
  });
});
