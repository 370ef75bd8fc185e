import { describe, expect, it } from 'vitest';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { ROW } from './support/pages/tasks.ts';
import { runAsTaskToItsEnd, useTasksPanel } from './support/tasks-panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

const SHOTS = '/tmp/shots-tasks';

// Running MCP tasks from the panel against the tasks fixture: "Run as task" for a tool that may run as
// one, the list polled until the task ends, its result, a required-task tool run with plain Run (and its
// question answered), and Cancel. Each test goes on where the one before it stopped.
describe('MCP tasks in the panel', USER_FLOW, () => {
  const parts = useTasksPanel('tasks', 'tasks-server.ts', SHOTS);

  it('runs a tool as a task, polls it to its end and shows its result', async () => {
    await runAsTaskToItsEnd(parts, 'countdown');
    await parts.shot('task-result');
  });

  it('runs a required-task tool with plain Run: its question is asked and its result shown', async () => {
    const { panel, tasks } = parts;
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
    const { panel, tasks } = parts;
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
    await parts.shot('tasks-list');
  });

  it('fits the list in a narrow panel', async () => {
    const { panel } = parts;
    const viewport = panel.page.viewport();
    // The layout follows the width through a ResizeObserver, which runs only in a painted tab and only
    // at the next frames: measured once two have passed in the tab in front.
    await panel.page.bringToFront();
    await panel.page.setViewport({ width: 420, height: 800 });
    try {
      await panel.page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
      );
      await panel.page.$eval(byTestId('tasks-panel'), (el) => el.scrollIntoView());
      const overflow = await panel.page.$eval(
        byTestId('tasks-panel'),
        (el) => el.scrollWidth - el.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await panel.page.screenshot({ path: `${SHOTS}/tasks-narrow.png` });
    } finally {
      if (viewport) await panel.page.setViewport(viewport);
    }
  });
});
