/**
 * The panel's MCP tasks against a fixture server: Chromium with the test extension, paired with a
 * daemon, and the fixture added in the editor as a user types it and connected. Used for both eras'
 * tasks (the 2025-11-25 experimental ones and the 2026-07-28 extension), which the panel shows alike.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { FIXTURES, ROOT, type TestDaemon, TSX_LOADER } from '../../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './browser.ts';
import { startDaemonForExtension } from './daemon.ts';
import { byTestId, waitForText } from './pages/dom.ts';
import { PanelPage } from './pages/panel.ts';
import { TasksList } from './pages/tasks.ts';

export interface TasksPanel {
  ext: ExtensionBrowser;
  daemon: TestDaemon;
  panel: PanelPage;
  tasks: TasksList;
  /** Brings the task list into view and saves a full-page screenshot `name`.png in the file's folder. */
  shot(name: string): Promise<void>;
}

/**
 * Sets the panel up before the file's tests, with tests/fixtures/`fixture` as server `serverId`, and
 * closes everything after them; screenshots go to `shots`. The fields are set once the set-up ran.
 */
export function useTasksPanel(serverId: string, fixture: string, shots: string): TasksPanel {
  const parts = {
    async shot(name: string) {
      await parts.panel.page.$eval(byTestId('tasks-panel'), (el) => el.scrollIntoView());
      await parts.panel.page.bringToFront();
      await parts.panel.page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
    },
  } as TasksPanel;
  beforeAll(async () => {
    await mkdir(shots, { recursive: true });
    parts.ext = await launchWithTestExtension();
    parts.daemon = await startDaemonForExtension();
    parts.panel = await PanelPage.openPaired(
      parts.ext.browser,
      parts.ext.pageUrl('devtools-panel.html'),
      parts.daemon,
    );
    parts.tasks = new TasksList(parts.panel.page);
    const args = [...TSX_LOADER, join(FIXTURES, fixture)];
    await parts.panel.servers.addStdio(serverId, process.execPath, args, ROOT);
    await parts.panel.servers.connect(serverId);
  });
  afterAll(async () => {
    await parts.ext?.browser.close();
    await parts.daemon?.close();
  });
  return parts;
}

/**
 * Ticks "Run as task" for `tool` (a countdown of `steps` and `stepMs`, which may run as a task), runs
 * it, and checks the task is listed while working, polled until it completes, and its result shown.
 */
export async function runAsTaskToItsEnd({ panel, tasks }: TasksPanel, tool: string): Promise<void> {
  await panel.tools.select(tool);
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
  // The task's own time (three steps of 400 ms), not how long fetching its result took.
  const took = await waitForText(panel.page, `${byTestId('task-result-view')} .ok`, 'Completed in');
  expect(Number(/Completed in ([\d.]+) s/.exec(took)?.[1])).toBeGreaterThanOrEqual(1.1);
}
