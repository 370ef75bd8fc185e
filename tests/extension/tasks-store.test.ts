// @vitest-environment node
/**
 * The tasks store against a real daemon and the tasks fixture: a finished task's result shows the task's
 * own time, by the server's clock, from the first moment it is shown.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { watch } from 'vue';
import { taskSpan, useTasksStore } from '../../extension/tools/tasks-store';
import { fixtureStdio, startDaemon, type TestDaemon } from '../daemon/helpers';
import { pairWith } from './daemon-pairing';

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startDaemon();
  const config = fixtureStdio('tasks-server.ts');
  expect((await daemon.api('PUT', '/api/mcp/servers/tasks', { config })).status).toBe(201);
});
afterAll(async () => {
  await daemon?.close();
});

beforeEach(async () => {
  setActivePinia(createPinia());
  await pairWith(daemon);
});

describe('tasks store', () => {
  it("shows a finished task's result with the task's own time, never the time its fetch took", async () => {
    const created = await daemon.api('POST', '/api/mcp/tools/execute', {
      serverId: 'tasks',
      toolName: 'countdown',
      parameters: { steps: 3, stepMs: 300 },
      task: {},
    });
    expect(created.body.status).toBe('task_created');
    const { taskId } = created.body.task;
    const finished = await vi.waitFor(
      async () => {
        const task = (await daemon.api('POST', '/api/mcp/tasks/get', { serverId: 'tasks', taskId })).body;
        expect(task.status).toBe('completed');
        return task;
      },
      { timeout: 10_000, interval: 100 },
    );
    const span = taskSpan(finished)!;
    const own = (span.finishedAt - span.startedAt) / 1000;
    expect(own).toBeGreaterThanOrEqual(0.8);

    const tasks = useTasksStore();
    await tasks.load('tasks');
    // Every time the result view could show, as the view would read it between two of its renders.
    const shown: number[] = [];
    const stop = watch(
      () => tasks.viewed?.run,
      (run) => run?.state === 'completed' && shown.push((run.finishedAt! - run.startedAt) / 1000),
      { deep: true },
    );
    await tasks.showResult(taskId);
    stop();
    expect(tasks.viewed?.run.state).toBe('completed');
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.every((seconds) => seconds === own)).toBe(true);
  });
});
