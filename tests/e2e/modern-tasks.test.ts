import { describe, expect, it } from 'vitest';
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
});
