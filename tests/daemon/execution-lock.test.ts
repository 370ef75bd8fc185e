import { describe, expect, it, vi } from 'vitest';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import { messages, startWithServers } from './execution-helpers.ts';
import type { TestDaemon } from './helpers.ts';

const BUSY = 'Another execution is already in progress';

const execute = (d: TestDaemon, serverId: string, toolName: string, extra: object = {}) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId, toolName, ...extra });

const cancel = (d: TestDaemon, executionId: string) =>
  d.api('POST', '/api/mcp/tools/cancel', { executionId });

const stderrLines = (d: TestDaemon): string[] =>
  d.daemon.bus.last(1000).flatMap((e) => (e.direction === 'stderr' ? [e.message] : []));

/** The tools/call request for `toolName` once the daemon has sent it to the server. */
async function sentCall(d: TestDaemon, toolName: string): Promise<RpcMessageEntry['message']> {
  return vi.waitFor(
    () => {
      const call = messages(d, 'send').find(
        (m) => m.method === 'tools/call' && (m.params as { name: string }).name === toolName,
      );
      if (!call) throw new Error(`tools/call ${toolName} not sent yet`);
      return call;
    },
    { timeout: 20_000, interval: 20 },
  );
}

describe('execution lock', () => {
  it('answers 409 with the active execution while another execution awaits an elicitation', async () => {
    const d = await startWithServers();
    const waiting = await execute(d, 'fixture', 'elicit-twice');
    expect(waiting.status).toBe(202);

    const busy = await execute(d, 'everything', 'echo', { parameters: { message: 'x' } });
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({
      error: BUSY,
      code: 'execution_busy',
      activeExecution: { id: waiting.body.executionId, serverId: 'fixture', toolName: 'elicit-twice' },
    });

    // The refused call changed nothing: the first execution goes on to the end, then the lock is free.
    const second = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: waiting.body.requestId,
      response: { action: 'cancel' },
    });
    expect(second.status).toBe(202);
    const done = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: second.body.requestId,
      response: { action: 'cancel' },
    });
    expect(done.status).toBe(200);
    expect(d.daemon.executions.activeExecution).toBeUndefined();
    expect((await execute(d, 'everything', 'echo', { parameters: { message: 'x' } })).status).toBe(200);
  });

  it('answers 409 while a slow tool runs, on execute and on the per-server call', async () => {
    const d = await startWithServers();
    const running = execute(d, 'fixture', 'slow', { parameters: { ms: 60_000 } });
    await sentCall(d, 'slow');
    const active = d.daemon.executions.activeExecution;
    expect(active).toMatchObject({ serverId: 'fixture', toolName: 'slow' });

    const busy = await execute(d, 'fixture', 'ping');
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({ error: BUSY, code: 'execution_busy', activeExecution: active });
    const busyRest = await d.api('POST', '/api/mcp/servers/everything/tools/echo/call', {});
    expect(busyRest.status).toBe(409);
    expect(busyRest.body.activeExecution).toEqual(active);

    expect((await cancel(d, active!.id)).status).toBe(200);
    expect((await running).body).toEqual({ status: 'cancelled', executionId: active!.id });
  });
});

describe('tool time-out', () => {
  it('answers 504, tells the server, and releases the lock', async () => {
    const d = await startWithServers();
    const timedOut = await execute(d, 'fixture', 'slow', { parameters: { ms: 60_000 }, timeoutMs: 300 });
    expect(timedOut.status).toBe(504);
    expect(timedOut.body).toEqual({
      error: 'Tool "slow" did not finish within 300 ms without progress',
      code: 'tool_timeout',
    });
    expect(d.daemon.executions.activeExecution).toBeUndefined();

    const call = await sentCall(d, 'slow');
    expect(messages(d, 'send')).toContainEqual(
      expect.objectContaining({
        method: 'notifications/cancelled',
        params: expect.objectContaining({ requestId: call.id }),
      }),
    );
    const next = await execute(d, 'fixture', 'ping');
    expect(next.status).toBe(200);
    expect(next.body.status).toBe('completed');
  });

  it('uses the daemon’s toolTimeoutMs when the request names none', async () => {
    const d = await startWithServers({ toolTimeoutMs: 300 });
    const timedOut = await execute(d, 'fixture', 'slow', { parameters: { ms: 60_000 } });
    expect(timedOut.status).toBe(504);
    expect(d.daemon.executions.activeExecution).toBeUndefined();
  });

  it('restarts the time-out on every progress notification', async () => {
    const d = await startWithServers();
    const withProgress = await execute(d, 'fixture', 'slow', {
      parameters: { ms: 2000, progressEveryMs: 100 },
      timeoutMs: 800,
    });
    expect(withProgress.status).toBe(200);
    expect(withProgress.body.result).toEqual({ content: [{ type: 'text', text: 'slept 2000 ms' }] });
    expect(messages(d, 'receive').some((m) => m.method === 'notifications/progress')).toBe(true);

    // The same call without progress runs into the same time-out.
    const silent = await execute(d, 'fixture', 'slow', { parameters: { ms: 2000 }, timeoutMs: 800 });
    expect(silent.status).toBe(504);
  });
});

describe('cancel', () => {
  it('ends a running tool: the waiting execute answers cancelled and the server hears of it', async () => {
    const d = await startWithServers();
    const running = execute(d, 'fixture', 'slow', { parameters: { ms: 60_000 } });
    const call = await sentCall(d, 'slow');
    const active = await d.api('GET', '/api/mcp/tools/active');
    expect(active.body.activeExecution).toEqual({
      id: expect.any(String),
      serverId: 'fixture',
      toolName: 'slow',
    });
    const executionId: string = active.body.activeExecution.id;

    const cancelled = await cancel(d, executionId);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ status: 'cancelled', executionId });
    const answered = await running;
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ status: 'cancelled', executionId });

    expect(messages(d, 'send')).toContainEqual(
      expect.objectContaining({
        method: 'notifications/cancelled',
        params: expect.objectContaining({ requestId: call.id }),
      }),
    );
    // The fixture writes this line when its handler's abort signal fires.
    await vi.waitFor(() => expect(stderrLines(d).some((l) => l.startsWith('slow: cancelled'))).toBe(true), {
      timeout: 20_000,
    });
    expect(d.daemon.executions.activeExecution).toBeUndefined();
    expect((await d.api('GET', '/api/mcp/tools/active')).body).toEqual({ activeExecution: null });
    expect((await execute(d, 'fixture', 'ping')).status).toBe(200);
  });

  it('tells the question a call waits on to whoever asks for the active call, who can answer it', async () => {
    const d = await startWithServers();
    const waiting = await execute(d, 'fixture', 'elicit-twice');
    expect(waiting.status).toBe(202);
    // The client that got the 202 went away: another finds the question with the active call.
    const active = (await d.api('GET', '/api/mcp/tools/active')).body.activeExecution;
    expect(active).toEqual({
      id: waiting.body.executionId,
      serverId: 'fixture',
      toolName: 'elicit-twice',
      elicitation: waiting.body,
    });
    const next = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: active.elicitation.requestId,
      response: { action: 'accept', content: { answer: 'from another client' } },
    });
    expect(next.status).toBe(202);
    expect(next.body.requestId).not.toBe(waiting.body.requestId);
    expect((await d.api('GET', '/api/mcp/tools/active')).body.activeExecution.elicitation).toEqual(next.body);
    await cancel(d, waiting.body.executionId);
  });

  it('ends an execution that awaits an elicitation and frees the lock', async () => {
    const d = await startWithServers();
    const waiting = await execute(d, 'fixture', 'elicit-twice');
    expect(waiting.status).toBe(202);

    const cancelled = await cancel(d, waiting.body.executionId);
    expect(cancelled.body).toEqual({ status: 'cancelled', executionId: waiting.body.executionId });
    await vi.waitFor(() => expect(d.daemon.executions.activeExecution).toBeUndefined(), { timeout: 20_000 });
    const stale = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: waiting.body.requestId,
      response: { action: 'accept', content: {} },
    });
    expect(stale.status).toBe(404);
    expect((await execute(d, 'fixture', 'ping')).status).toBe(200);
  });

  it('answers 404 for an execution id that is not active', async () => {
    const d = await startWithServers();
    const idle = await cancel(d, 'no-such-execution');
    expect(idle.status).toBe(404);
    expect(idle.body.error).toContain('no-such-execution');

    const waiting = await execute(d, 'fixture', 'elicit-twice');
    expect(waiting.status).toBe(202);
    expect((await cancel(d, 'another-execution')).status).toBe(404);
    expect(d.daemon.executions.activeExecution?.id).toBe(waiting.body.executionId);
  });

  it('answers 400 when executionId is missing', async () => {
    const d = await startWithServers();
    const response = await d.api('POST', '/api/mcp/tools/cancel', {});
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'executionId: is required',
      code: 'invalid_request',
      problems: [{ path: 'executionId', message: 'is required' }],
    });
  });
});
