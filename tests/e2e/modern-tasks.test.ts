import { describe, expect, it } from 'vitest';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { ROW } from './support/pages/tasks.ts';
import { runAsTaskToItsEnd, useTasksPanel } from './support/tasks-panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

// The panel's tasks work the same with a 2026-07-28 server whose tasks are the tasks extension: its
// tools say nothing of tasks, so each may be asked to run as one, and the server decides. Its tasks send
// no status notifications: the panel polls them with tasks/get.
describe('MCP tasks of a 2026-07-28 server in the panel', USER_FLOW, () => {
  const parts = useTasksPanel('modern', 'modern-tasks-server.ts', '/tmp/shots-modern-tasks');

  it('runs a tool as a task, polls it to its end and shows its result', async () => {
    await runAsTaskToItsEnd(parts, 'slow_compute');
    await parts.shot('task-result');
  });

  it('runs a tool the server only runs as a task with plain Run, and lists its task', async () => {
    const { panel, tasks } = parts;
    await panel.tools.select('required_job');
    expect(await tasks.checkbox()).toEqual({ checked: false, disabled: false });
    await panel.tools.run();
    expect(await panel.tools.resultWith('job done')).toContain('job done');
    await panel.page.waitForFunction((sel: string) => document.querySelectorAll(sel).length === 2, {}, ROW);
    expect((await tasks.rows()).map((row) => row.status)).toEqual(['completed', 'completed']);
    await parts.shot('tasks-list');
  });

  it("shows a task's result that breaks the 2026-07-28 schema as sent, under a warning saying what is wrong", async () => {
    const { panel, tasks } = parts;
    const listed = (await tasks.rows()).map((row) => row.taskId);
    await panel.tools.select('broken_job');
    await tasks.tickRunAsTask();
    await panel.tools.run();
    await waitForText(panel.page, byTestId('run-task-created'), 'created');
    const taskId = await tasks.waitForStatus('completed', listed);
    expect(await tasks.result(taskId, 'the job is done')).toContain('the job is done');
    const view = `${byTestId('task-result-view')} ${byTestId('result-problem')}`;
    expect(await waitForText(panel.page, view, 'content.1.type: expected one of')).toContain(
      "The server's result breaks the 2026-07-28 schema:",
    );
    // The block the schema does not know is still shown, as the server sent it.
    expect(await panel.page.$eval(byTestId('task-result-view'), (el) => el.textContent)).toContain(
      'a block no revision defines',
    );
    await parts.shot('task-result-problem');
    await panel.page.click(byTestId('task-result-close'));
  });
});
