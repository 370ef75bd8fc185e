import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, type TestDaemon, TSX_LOADER } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { USER_FLOW } from './support/user-flow.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { ROW, TasksList } from './support/pages/tasks.ts';

const SHOTS = '/tmp/shots-tasks';

/** The tasks fixture (tests/fixtures/tasks-server.ts) through tsx, as a user types it into the editor. */
const TASKS_FIXTURE_COMMAND = {
  command: process.execPath,
  args: [...TSX_LOADER, join(FIXTURES, 'tasks-server.ts')],
  cwd: ROOT,
};

// Running MCP tasks from the panel against the tasks fixture: "Run as task" for a tool that may run as
// one, the list polled until the task ends, its result, a required-task tool run with plain Run (and its
// question answered), and Cancel. Each test goes on where the one before it stopped.
describe('MCP tasks in the panel', USER_FLOW, () => {
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
      'tasks',
      TASKS_FIXTURE_COMMAND.command,
      TASKS_FIXTURE_COMMAND.args,
      TASKS_FIXTURE_COMMAND.cwd,
    );
    await panel.servers.connect('tasks');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('runs a tool as a task, polls it to its end and shows its result', async () => {
    await panel.tools.select('countdown');
    expect(await tasks.support()).toBe('optional');
    expect(await tasks.checkbox()).toEqual({ checked: false, disabled: false });
    await panel.page.waitForSelector(byTestId('tasks-empty'));
    await tasks.tickRunAsTask();
    await panel.tools.fill('steps', '3');
    await panel.tools.fill('stepMs', '400');
    await panel.tools.run();
    await waitForText(panel.page, byTestId('run-task-created'), 'created');
    // Listed at once, still working, then polled until it completes.
    const taskId = await tasks.waitForStatus('working');
    expect(await tasks.waitForStatus('completed')).toBe(taskId);
    expect(await tasks.result(taskId, 'counted down from 3')).toContain('counted down from 3');
    await panel.page.$eval(byTestId('tasks-panel'), (el) => el.scrollIntoView());
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/task-result.png`, fullPage: true });
  });

  it('runs a required-task tool with plain Run: its question is asked and its result shown', async () => {
    await panel.tools.select('confirm-task');
    expect(await tasks.support()).toBe('required');
    expect(await tasks.checkbox()).toEqual({ checked: true, disabled: true });
    await waitForText(panel.page, byTestId('task-required-note'), 'Required by this tool');
    await panel.tools.fill('question', 'Ship it?');
    await panel.tools.run();
    expect(await panel.elicitation.message()).toContain('Ship it?');
    await panel.elicitation.answer({ answer: 'yes' });
    expect(await panel.tools.resultWith('answer: yes')).toContain('answer: yes');
    // Its task joins the list.
    await panel.page.waitForFunction((sel: string) => document.querySelectorAll(sel).length === 2, {}, ROW);
    expect((await tasks.rows()).map((row) => row.status)).toEqual(['completed', 'completed']);
  });

  it('cancels a running task from the list', async () => {
    const done = (await tasks.rows()).map((row) => row.taskId);
    await panel.tools.select('countdown');
    expect(await tasks.checkbox()).toEqual({ checked: true, disabled: false });
    await panel.tools.fill('steps', '100000');
    await panel.tools.run();
    const taskId = await tasks.waitForStatus('working', done);
    await tasks.cancel(taskId);
    await panel.page.waitForSelector(`${ROW}[data-task-id="${taskId}"][data-status="cancelled"]`);
    // The tasks that had ended keep their status: showing a tool's earlier run takes none of them back.
    const rows = await tasks.rows();
    expect(rows.filter((row) => done.includes(row.taskId)).map((row) => row.status)).toEqual([
      'completed',
      'completed',
    ]);
    await panel.page.$eval(byTestId('tasks-panel'), (el) => el.scrollIntoView());
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/tasks-list.png`, fullPage: true });
  });

  it('fits the list in a narrow panel', async () => {
    const viewport = panel.page.viewport();
    await panel.page.setViewport({ width: 420, height: 800 });
    try {
      await panel.page.$eval(byTestId('tasks-panel'), (el) => el.scrollIntoView());
      const overflow = await panel.page.$eval(
        byTestId('tasks-panel'),
        (el) => el.scrollWidth - el.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await panel.page.bringToFront();
      await panel.page.screenshot({ path: `${SHOTS}/tasks-narrow.png` });
    } finally {
      if (viewport) await panel.page.setViewport(viewport);
    }
  });
});
