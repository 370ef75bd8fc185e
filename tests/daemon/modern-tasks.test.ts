/**
 * MCP tasks at the modern era (2026-07-28): the `io.modelcontextprotocol/tasks` extension through the
 * daemon's task API, against the hand-written extension fixture (tests/fixtures/modern-tasks-server.ts).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { messages } from './execution-helpers.ts';
import { fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';

const TASKS = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

async function startWithModernTasks(): Promise<TestDaemon> {
  const d = await startDaemon();
  onTestFinished(() => d.close());
  for (const [id, config] of [
    ['modern', fixtureStdio('modern-tasks-server.ts')],
    ['plain-modern', fixtureStdio('modern-server.ts', { FIXTURE_SUBSCRIBE: 'off' })],
  ] as const) {
    expect(
      (await d.api('PUT', `/api/mcp/servers/${id}`, { config: { ...config, era: 'modern' } })).status,
    ).toBe(201);
  }
  return d;
}

const execute = (d: TestDaemon, body: object) => d.api('POST', '/api/mcp/tools/execute', body);
const tasksApi = (d: TestDaemon, what: 'list' | 'get' | 'result' | 'cancel', body: object) =>
  d.api('POST', `/api/mcp/tasks/${what}`, body);

const textOf = (result: { content: Array<{ text?: string }> }): string =>
  result.content.map((item) => item.text ?? '').join('\n');

/** Asks `tasks/get` until the task's status is one of `statuses`. */
async function pollUntil(d: TestDaemon, taskId: string, statuses: string[]) {
  for (;;) {
    const got = await tasksApi(d, 'get', { serverId: 'modern', taskId });
    expect(got.status).toBe(200);
    if (statuses.includes(got.body.status)) return got.body;
    await new Promise((resolve) => setTimeout(resolve, got.body.pollInterval ?? 100));
  }
}

type Sent = { method?: string; params?: Record<string, any> };
const sent = (d: TestDaemon, method: string): Sent[] =>
  (messages(d, 'send') as Sent[]).filter((m) => m.method === method);
const declaresTasks = (message: Sent): boolean =>
  Boolean(message.params?._meta?.[CLIENT_CAPABILITIES]?.extensions?.[TASKS]);

describe('MCP tasks at the modern era (the tasks extension)', () => {
  it('runs a tool as a task: the extension declared on that call only, polled, its result, listed', async () => {
    const d = await startWithModernTasks();

    // A plain call does not declare the extension: the server runs the tool at once.
    const plain = await execute(d, {
      serverId: 'modern',
      toolName: 'slow_compute',
      parameters: { steps: 2, stepMs: 10 },
    });
    expect(plain.status).toBe(200);
    expect(textOf(plain.body.result)).toBe('counted down from 2 at once');
    const plainCall = sent(d, 'tools/call')[0]!;
    expect(plainCall.params?._meta?.[CLIENT_CAPABILITIES]).toBeDefined();
    expect(declaresTasks(plainCall)).toBe(false);
    // Nor does the client's standing declaration.
    const record = (await d.api('GET', '/api/mcp/servers/modern')).body;
    expect(record.era).toBe('modern');
    expect(record.clientCapabilities.extensions[TASKS]).toBeUndefined();

    const created = await execute(d, {
      serverId: 'modern',
      toolName: 'slow_compute',
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
        ttl: 600_000,
        pollInterval: 100,
        createdAt: expect.any(String),
      }),
    });
    expect(d.daemon.executions.activeExecution).toBeUndefined();
    const call = sent(d, 'tools/call')[1]!;
    expect(declaresTasks(call)).toBe(true);
    // The 2025-11-25 `task` param is not the modern way: the server decides.
    expect(call.params).not.toHaveProperty('task');
    // The log shows the CreateTaskResult as the server sent it.
    const received = messages(d, 'receive') as Array<{ result?: Record<string, unknown> }>;
    expect(received.some((m) => m.result?.resultType === 'task')).toBe(true);

    const taskId: string = created.body.task.taskId;
    const done = await pollUntil(d, taskId, ['completed']);
    expect(done).toMatchObject({ taskId, status: 'completed', result: { content: [{ type: 'text' }] } });
    expect(sent(d, 'tasks/get').every(declaresTasks)).toBe(true);

    const result = await tasksApi(d, 'result', { serverId: 'modern', taskId });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ status: 'completed', taskId });
    expect(textOf(result.body.result)).toBe('counted down from 3');
    // There is no tasks/result at the modern era: the result came inlined in tasks/get.
    expect(sent(d, 'tasks/result')).toEqual([]);

    const list = await tasksApi(d, 'list', { serverId: 'modern' });
    expect(list.status).toBe(200);
    expect(list.body.tasks).toEqual([expect.objectContaining({ taskId, status: 'completed' })]);
    expect(sent(d, 'tasks/list')).toEqual([]);
  });

  it('cancels a running task, again without complaint, and has no result for it', async () => {
    const d = await startWithModernTasks();
    const created = await execute(d, {
      serverId: 'modern',
      toolName: 'slow_compute',
      parameters: { steps: 100_000, stepMs: 50 },
      runAsTask: true,
    });
    expect(created.body.status).toBe('task_created');
    const taskId: string = created.body.task.taskId;
    const cancelled = await tasksApi(d, 'cancel', { serverId: 'modern', taskId });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ taskId, status: 'cancelled' });
    expect(declaresTasks(sent(d, 'tasks/cancel')[0]!)).toBe(true);
    // The extension's cancel is idempotent: the task as it is.
    const again = await tasksApi(d, 'cancel', { serverId: 'modern', taskId });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('cancelled');
    const result = await tasksApi(d, 'result', { serverId: 'modern', taskId });
    expect(result.status).toBe(502);
    expect(result.body).toMatchObject({ code: 'upstream_failed', mcpError: { code: 'TASK_CANCELLED' } });
  });

  it('runs a required-task tool through a plain execute: refused without the extension, then a task waited for', async () => {
    const d = await startWithModernTasks();
    const run = await execute(d, {
      serverId: 'modern',
      toolName: 'required_job',
      parameters: { stepMs: 300 },
    });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', taskId: expect.any(String) });
    expect(textOf(run.body.result)).toBe('job done');
    expect(d.daemon.executions.activeExecution).toBeUndefined();
    const calls = sent(d, 'tools/call');
    expect(calls.map(declaresTasks)).toEqual([false, true]);
    expect(sent(d, 'tasks/get').length).toBeGreaterThan(0);
    const list = await tasksApi(d, 'list', { serverId: 'modern' });
    expect(list.body.tasks).toEqual([
      expect.objectContaining({ taskId: run.body.taskId, status: 'completed' }),
    ]);
  });

  it('asks the person what the task asks (input_required), under the lock, and delivers the answer with tasks/update', async () => {
    const d = await startWithModernTasks();
    const created = await execute(d, {
      serverId: 'modern',
      toolName: 'confirm_delete',
      parameters: { filename: 'notes.txt' },
      runAsTask: true,
    });
    const taskId: string = created.body.task.taskId;
    const asked = await tasksApi(d, 'result', { serverId: 'modern', taskId });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      status: 'elicitation_required',
      kind: 'elicitation',
      request: { message: 'Delete notes.txt?' },
    });
    expect(d.daemon.executions.activeExecution).toMatchObject({ toolName: 'confirm_delete' });
    const answered = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: asked.body.requestId,
      response: { action: 'accept', content: { confirm: true } },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'completed', taskId });
    expect(textOf(answered.body.result)).toBe('deleted notes.txt (accept)');
    const update = sent(d, 'tasks/update')[0]!;
    expect(declaresTasks(update)).toBe(true);
    expect(update.params).toMatchObject({
      taskId,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    });
  });

  it("answers a failed task's result with the error it failed with", async () => {
    const d = await startWithModernTasks();
    const run = await execute(d, { serverId: 'modern', toolName: 'failing_job', runAsTask: true });
    const taskId: string = run.body.task.taskId;
    const failed = await pollUntil(d, taskId, ['failed']);
    expect(failed.error).toEqual({ code: -32603, message: 'The job broke down' });
    const result = await tasksApi(d, 'result', { serverId: 'modern', taskId });
    expect(result.status).toBe(502);
    expect(result.body).toMatchObject({ code: 'mcp_error', mcpError: { code: -32603 } });
  });

  it("passes a task's result that breaks the 2026-07-28 schema on as sent, naming what breaks it", async () => {
    const d = await startWithModernTasks();
    const broken = {
      content: [
        { type: 'text', text: 'the job is done' },
        { type: 'hologram', data: 'a block no revision defines' },
      ],
    };
    const problem = 'content.1.type: expected one of "text", "image", "audio", "resource_link", "resource"';

    // Asked for once the task has ended: from what tasks/get inlined.
    const ended = await execute(d, { serverId: 'modern', toolName: 'broken_job', runAsTask: true });
    const endedId: string = ended.body.task.taskId;
    await pollUntil(d, endedId, ['completed']);
    const asked = await tasksApi(d, 'result', { serverId: 'modern', taskId: endedId });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ status: 'completed', taskId: endedId, resultProblem: problem });
    expect(asked.body.result).toEqual(broken);

    // Waited for under the lock while the task works.
    const working = await execute(d, {
      serverId: 'modern',
      toolName: 'broken_job',
      parameters: { stepMs: 400 },
      runAsTask: true,
    });
    const workingId: string = working.body.task.taskId;
    const waited = await tasksApi(d, 'result', { serverId: 'modern', taskId: workingId });
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({ status: 'completed', taskId: workingId, resultProblem: problem });
    expect(waited.body.result).toEqual(broken);
    expect(sent(d, 'tasks/get').filter((m) => m.params?.taskId === workingId).length).toBeGreaterThan(1);

    // A task's well-formed result names no problem.
    const fine = await execute(d, {
      serverId: 'modern',
      toolName: 'slow_compute',
      parameters: { steps: 1, stepMs: 10 },
      runAsTask: true,
    });
    const fineId: string = fine.body.task.taskId;
    await pollUntil(d, fineId, ['completed']);
    const good = await tasksApi(d, 'result', { serverId: 'modern', taskId: fineId });
    expect(good.status).toBe(200);
    expect(textOf(good.body.result)).toBe('counted down from 1');
    expect(good.body).not.toHaveProperty('resultProblem');
  });

  it('refuses what a task asks that is malformed before the person sees it, and cancels the task', async () => {
    const d = await startWithModernTasks();
    /** What each flavour of the fixture's `malformed_ask` asks, and what the daemon says is wrong. */
    const flavours: Record<string, string> = {
      'elicitation-empty':
        'input request "ask" (elicitation/create) is malformed: its "params.message" is missing',
      'elicitation-schema-string':
        'input request "ask" (elicitation/create) is malformed: its "params.requestedSchema" is "yes/no", not an object',
      'sampling-messages-missing':
        'input request "ask" (sampling/createMessage) is malformed: its "params.messages" is missing',
      'unknown-method': 'input request "ask" must be elicitation/create, sampling/createMessage, roots/list',
    };
    for (const [flavour, problem] of Object.entries(flavours)) {
      const created = await execute(d, {
        serverId: 'modern',
        toolName: 'malformed_ask',
        parameters: { flavour },
        runAsTask: true,
      });
      expect(created.status, flavour).toBe(200);
      const taskId: string = created.body.task.taskId;
      const result = await tasksApi(d, 'result', { serverId: 'modern', taskId });
      expect(result.status, flavour).toBe(502);
      expect(result.body, flavour).toMatchObject({
        code: 'upstream_failed',
        error: `The server sent an invalid task: ${problem}`,
        mcpError: { code: 'INVALID_TASK' },
      });
      // Nothing was put to the person, and the task does not wait on the server for an answer.
      expect(d.daemon.executions.activeExecution, flavour).toBeUndefined();
      await expect.poll(() => sent(d, 'tasks/cancel').some((m) => m.params?.taskId === taskId)).toBe(true);
      const cancelled = await pollUntil(d, taskId, ['cancelled']);
      expect(cancelled.status, flavour).toBe('cancelled');
    }
  });

  it('refuses a hostile task, an unknown one, and tasks of a server without the extension', async () => {
    const d = await startWithModernTasks();
    for (const flavour of ['taskId', 'status', 'pollIntervalMs']) {
      const hostile = await execute(d, {
        serverId: 'modern',
        toolName: 'hostile_task',
        parameters: { flavour },
        runAsTask: true,
      });
      expect(hostile.status).toBe(502);
      expect(hostile.body).toMatchObject({
        code: 'upstream_failed',
        error: expect.stringContaining(flavour),
        mcpError: { code: 'INVALID_TASK' },
      });
      expect(d.daemon.executions.activeExecution).toBeUndefined();
    }
    const unknown = await tasksApi(d, 'get', { serverId: 'modern', taskId: 'no-such-task' });
    expect(unknown.status).toBe(502);
    expect(unknown.body).toMatchObject({ code: 'mcp_error', mcpError: { code: -32602 } });

    const noExtension = await execute(d, { serverId: 'plain-modern', toolName: 'echo', runAsTask: true });
    expect(noExtension.status).toBe(400);
    expect(noExtension.body.code).toBe('invalid_request');
    const noList = await tasksApi(d, 'list', { serverId: 'plain-modern' });
    expect(noList.status).toBe(400);
    expect(noList.body.error).toContain('io.modelcontextprotocol/tasks extension');
  });
});
