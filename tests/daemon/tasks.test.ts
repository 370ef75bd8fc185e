/**
 * MCP tasks (2025-11-25, experimental) through the daemon, against real servers: the tasks fixture
 * (tests/fixtures/tasks-server.ts) and server-everything's `simulate-research-query`.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { messages } from './execution-helpers.ts';
import {
  DAEMON_COMMAND,
  everythingStdio,
  fixtureStdio,
  ROOT,
  startDaemon,
  stopProcess,
  type TestDaemon,
} from './helpers.ts';
import { openLive } from './live-helpers.ts';

async function startWithTaskServers(): Promise<TestDaemon> {
  const d = await startDaemon();
  onTestFinished(() => d.close());
  for (const [id, config] of [
    ['tasks', fixtureStdio('tasks-server.ts')],
    ['everything', everythingStdio()],
    ['plain', fixtureStdio('tools-server.ts')],
  ] as const) {
    expect((await d.api('PUT', `/api/mcp/servers/${id}`, { config })).status).toBe(201);
  }
  return d;
}

const execute = (d: TestDaemon, body: object) => d.api('POST', '/api/mcp/tools/execute', body);
const tasksApi = (d: TestDaemon, what: 'list' | 'get' | 'result' | 'cancel', body: object) =>
  d.api('POST', `/api/mcp/tasks/${what}`, body);

const textOf = (result: { content: Array<{ text?: string }> }): string =>
  result.content.map((item) => item.text ?? '').join('\n');

/** Asks `tasks/get` until the task's status is one of `statuses`. */
async function pollUntil(d: TestDaemon, serverId: string, taskId: string, statuses: string[]) {
  for (;;) {
    const got = await tasksApi(d, 'get', { serverId, taskId });
    expect(got.status).toBe(200);
    if (statuses.includes(got.body.status)) return got.body;
    await new Promise((resolve) => setTimeout(resolve, got.body.pollInterval ?? 100));
  }
}

describe('MCP tasks', () => {
  it('lists what each tool supports', async () => {
    const d = await startWithTaskServers();
    const tools = (await d.api('POST', '/api/mcp/tools/list', { serverId: 'tasks' })).body.tools;
    const support = Object.fromEntries(
      tools.map((t: { name: string; execution?: { taskSupport?: string } }) => [
        t.name,
        t.execution?.taskSupport,
      ]),
    );
    expect(support).toMatchObject({ countdown: 'optional', 'confirm-task': 'required' });
    const everything = (await d.api('POST', '/api/mcp/tools/list', { serverId: 'everything' })).body.tools;
    expect(everything.find((t: { name: string }) => t.name === 'simulate-research-query').execution).toEqual({
      taskSupport: 'required',
    });
  });

  it('runs a tool as a task: created at once, polled, its result, listed; status notifications are live and logged', async () => {
    const d = await startWithTaskServers();
    const live = await openLive(d);
    onTestFinished(() => live.close());
    const created = await execute(d, {
      serverId: 'tasks',
      toolName: 'countdown',
      parameters: { steps: 3, stepMs: 100 },
      task: { ttl: 60_000 },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      status: 'task_created',
      executionId: expect.any(String),
      task: expect.objectContaining({
        taskId: expect.any(String),
        status: 'working',
        ttl: 60_000,
        pollInterval: 100,
        createdAt: expect.any(String),
      }),
    });
    // The task runs on the server: the lock is free while it does.
    expect(d.daemon.executions.activeExecution).toBeUndefined();
    const taskId: string = created.body.task.taskId;
    const sent = messages(d, 'send').find((m) => (m as { method?: string }).method === 'tools/call');
    expect(sent).toMatchObject({ params: { name: 'countdown', task: { ttl: 60_000 } } });

    const done = await pollUntil(d, 'tasks', taskId, ['completed']);
    expect(done).toMatchObject({ taskId, status: 'completed' });

    const result = await tasksApi(d, 'result', { serverId: 'tasks', taskId });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ status: 'completed', taskId });
    expect(textOf(result.body.result)).toBe('counted down from 3');

    const list = await tasksApi(d, 'list', { serverId: 'tasks' });
    expect(list.status).toBe(200);
    expect(list.body.tasks).toEqual([expect.objectContaining({ taskId, status: 'completed' })]);

    const status = await live.until((all) =>
      all.find(
        (m) =>
          m.type === 'notification' &&
          m.method === 'notifications/tasks/status' &&
          m.params?.taskId === taskId &&
          m.params?.status === 'completed',
      ),
    );
    expect(status).toMatchObject({ serverId: 'tasks' });
    expect(
      messages(d, 'receive').some((m) => (m as { method?: string }).method === 'notifications/tasks/status'),
    ).toBe(true);
  });

  it('takes runAsTask: true for task: {}', async () => {
    const d = await startWithTaskServers();
    const created = await execute(d, {
      serverId: 'tasks',
      toolName: 'countdown',
      parameters: { steps: 1, stepMs: 0 },
      runAsTask: true,
    });
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('task_created');
    await pollUntil(d, 'tasks', created.body.task.taskId, ['completed']);
  });

  it('cancels a running task', async () => {
    const d = await startWithTaskServers();
    const created = await execute(d, {
      serverId: 'tasks',
      toolName: 'countdown',
      parameters: { steps: 100_000, stepMs: 50 },
      task: {},
    });
    const taskId: string = created.body.task.taskId;
    const cancelled = await tasksApi(d, 'cancel', { serverId: 'tasks', taskId });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ taskId, status: 'cancelled' });
    expect((await tasksApi(d, 'get', { serverId: 'tasks', taskId })).body.status).toBe('cancelled');
    // A task that ended cannot be cancelled again: the server says so.
    const again = await tasksApi(d, 'cancel', { serverId: 'tasks', taskId });
    expect(again.status).toBe(502);
    expect(again.body).toMatchObject({ code: 'mcp_error', mcpError: { code: -32602 } });
  });

  it('runs a required-task tool through a plain execute and answers its result', async () => {
    const d = await startWithTaskServers();
    const run = await execute(d, {
      serverId: 'everything',
      toolName: 'simulate-research-query',
      parameters: { topic: 'tides' },
    });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', taskId: expect.any(String) });
    expect(textOf(run.body.result)).toContain('# Research Report: tides');
    expect(d.daemon.executions.activeExecution).toBeUndefined();
    const list = await tasksApi(d, 'list', { serverId: 'everything' });
    expect(list.body.tasks).toEqual([
      expect.objectContaining({ taskId: run.body.taskId, status: 'completed' }),
    ]);
  });

  it('holds the lock while waiting for a required task, which asks the person through the usual elicitation', async () => {
    const d = await startWithTaskServers();
    const asked = await execute(d, {
      serverId: 'tasks',
      toolName: 'confirm-task',
      parameters: { question: 'Proceed?' },
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      status: 'elicitation_required',
      kind: 'elicitation',
      request: { message: 'Proceed?' },
    });
    expect(d.daemon.executions.activeExecution).toMatchObject({
      serverId: 'tasks',
      toolName: 'confirm-task',
    });
    const busy = await execute(d, {
      serverId: 'tasks',
      toolName: 'plain-echo',
      parameters: { message: 'x' },
    });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('execution_busy');

    const answered = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: asked.body.requestId,
      response: { action: 'accept', content: { answer: 'yes' } },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'completed', taskId: expect.any(String) });
    expect(textOf(answered.body.result)).toBe('answer: yes');
    expect(d.daemon.executions.activeExecution).toBeUndefined();
  });

  it("keeps waiting for a required task past the call time-out while the task's status changes", async () => {
    const d = await startDaemon({ toolTimeoutMs: 1500 });
    onTestFinished(() => d.close());
    await d.api('PUT', '/api/mcp/servers/tasks', { config: fixtureStdio('tasks-server.ts') });
    // Six steps of 300 ms outlast the 1.5 s time-out; each step's status notification restarts it.
    const run = await execute(d, {
      serverId: 'tasks',
      toolName: 'slow-required',
      parameters: { steps: 6, stepMs: 300 },
    });
    expect(run.status).toBe(200);
    expect(textOf(run.body.result)).toBe('6 steps done');
    // Silence beyond the time-out still ends the wait, and the task with it.
    const silent = await execute(d, {
      serverId: 'tasks',
      toolName: 'slow-required',
      parameters: { steps: 1, stepMs: 60_000 },
    });
    expect(silent.status).toBe(504);
    expect(silent.body.code).toBe('tool_timeout');
    const list = await tasksApi(d, 'list', { serverId: 'tasks' });
    const waited = list.body.tasks.find((t: { taskId: string }) => t.taskId !== run.body.taskId);
    await pollUntil(d, 'tasks', waited.taskId, ['cancelled']);
  });

  it('cancelling the execution of a required task cancels the task on the server', async () => {
    const d = await startWithTaskServers();
    const asked = await execute(d, { serverId: 'tasks', toolName: 'confirm-task', parameters: {} });
    expect(asked.status).toBe(202);
    const cancelled = await d.api('POST', '/api/mcp/tools/cancel', { executionId: asked.body.executionId });
    expect(cancelled.status).toBe(200);
    const list = await tasksApi(d, 'list', { serverId: 'tasks' });
    const taskId: string = list.body.tasks[0].taskId;
    await pollUntil(d, 'tasks', taskId, ['cancelled']);
    expect(d.daemon.executions.activeExecution).toBeUndefined();
  });

  it('waits for the result of a background task under the lock, with its elicitation', async () => {
    const d = await startWithTaskServers();
    const created = await execute(d, {
      serverId: 'tasks',
      toolName: 'confirm-task',
      parameters: { question: 'Later?' },
      task: {},
    });
    expect(created.status).toBe(200);
    const taskId: string = created.body.task.taskId;
    expect(d.daemon.executions.activeExecution).toBeUndefined();

    const asked = await tasksApi(d, 'result', { serverId: 'tasks', taskId });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ status: 'elicitation_required', request: { message: 'Later?' } });
    expect(d.daemon.executions.activeExecution).toMatchObject({ toolName: 'confirm-task' });
    const answered = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: asked.body.requestId,
      response: { action: 'decline' },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'completed', taskId });
    expect(textOf(answered.body.result)).toBe('answer: decline');
  });

  it('refuses with a clear 4xx what cannot be a task', async () => {
    const d = await startWithTaskServers();
    const notTask = await execute(d, {
      serverId: 'tasks',
      toolName: 'plain-echo',
      parameters: { message: 'x' },
      task: {},
    });
    expect(notTask.status).toBe(400);
    expect(notTask.body).toMatchObject({
      code: 'invalid_request',
      error: 'Tool "plain-echo" cannot run as a task: its execution.taskSupport is "forbidden"',
      problems: [{ path: 'task', message: expect.any(String) }],
    });
    expect(d.daemon.executions.activeExecution).toBeUndefined();
    expect(messages(d, 'send').some((m) => (m as { method?: string }).method === 'tools/call')).toBe(false);

    // A server without the tasks capability.
    const noCapability = await execute(d, { serverId: 'plain', toolName: 'ping', runAsTask: true });
    expect(noCapability.status).toBe(400);
    expect(noCapability.body.code).toBe('invalid_request');
    const noList = await tasksApi(d, 'list', { serverId: 'plain' });
    expect(noList.status).toBe(400);
    expect(noList.body).toMatchObject({
      code: 'invalid_request',
      error: expect.stringContaining('does not declare the tasks.list capability'),
    });

    const badBody = await tasksApi(d, 'get', { serverId: 'tasks' });
    expect(badBody.status).toBe(400);
    expect(badBody.body.problems).toEqual([{ path: 'taskId', message: expect.any(String) }]);
    const badTtl = await execute(d, { serverId: 'tasks', toolName: 'countdown', task: { ttl: -1 } });
    expect(badTtl.status).toBe(400);
    expect(badTtl.body.problems[0].path).toBe('task.ttl');

    const unknown = await tasksApi(d, 'get', { serverId: 'tasks', taskId: 'no-such-task' });
    expect(unknown.status).toBe(502);
    expect(unknown.body).toMatchObject({ code: 'mcp_error', error: expect.stringContaining('not found') });
    const noServer = await tasksApi(d, 'list', { serverId: 'nobody' });
    expect(noServer.status).toBe(404);
    expect(noServer.body.code).toBe('server_not_found');
  });
});

/** Runs `inspector-daemon ARGS…` to its end, its output piped. */
function inspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    for (const name of ['INSPECTOR_TOKEN', 'INSPECTOR_CONFIG', 'INSPECTOR_DATA_DIR']) delete env[name];
    const child = spawn(process.execPath, [...DAEMON_COMMAND, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => stopProcess(child));
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('required-task tools on the command line through a daemon', () => {
  it('runs one through a daemon', async () => {
    const d = await startWithTaskServers();
    const run = await inspector([
      'tools',
      'call',
      'simulate-research-query',
      '--args',
      '{"topic":"reefs"}',
      '--daemon',
      d.url,
      '--token',
      d.token,
      '--server',
      'everything',
      '--json',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(textOf(JSON.parse(run.stdout))).toContain('# Research Report: reefs');
  });
});
