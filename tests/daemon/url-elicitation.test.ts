import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ElicitationRequired, ExecutionCompleted } from '../../shared/api.ts';
import type { ErrorBody } from '../../shared/errors.ts';
import { messages } from './execution-helpers.ts';
import { fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';
import { openLive } from './live-helpers.ts';

/** A daemon with the URL-elicitation fixture as `web`. */
async function startWithFixture(): Promise<TestDaemon> {
  const d = await startDaemon();
  onTestFinished(() => d.close());
  const config = fixtureStdio('url-elicitation-server.ts');
  expect((await d.api('PUT', '/api/mcp/servers/web', { config })).status).toBe(201);
  return d;
}

const execute = (d: TestDaemon, toolName: string, parameters: object = {}, timeoutMs?: number) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId: 'web', toolName, parameters, timeoutMs });

const respond = (d: TestDaemon, requestId: string, action: string) =>
  d.api('POST', '/api/mcp/tools/respond', { requestId, response: { action } });

/** What the person does at the URL: the fixture marks the step done when its page is fetched. */
async function visit(elicitation: ElicitationRequired): Promise<void> {
  const page = await fetch(String(elicitation.request.url));
  expect(page.status).toBe(200);
}

/** How many times the daemon sent tools/call for this tool. */
const callsOf = (d: TestDaemon, toolName: string): number =>
  messages(d, 'send').filter(
    (m) => m.method === 'tools/call' && (m.params as { name: string }).name === toolName,
  ).length;

describe('URL elicitation required (-32042)', () => {
  it('hands the URL to the caller, and retries the call once the user accepts', async () => {
    const d = await startWithFixture();
    const asked = await execute(d, 'connect-account');
    expect(asked.status).toBe(202);
    const elicitation = asked.body as ElicitationRequired;
    expect(elicitation).toEqual({
      status: 'elicitation_required',
      kind: 'elicitation',
      executionId: expect.any(String),
      requestId: expect.any(String),
      request: {
        mode: 'url',
        elicitationId: expect.stringMatching(/^connect-account-/),
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/visit\//),
        message: 'Connect your account to continue',
      },
      timestamp: expect.any(String),
      retry: { round: 1, maxRounds: 3, index: 1, count: 1 },
    });
    expect(d.daemon.executions.activeExecution?.id).toBe(elicitation.executionId);
    await visit(elicitation);

    const done = await respond(d, elicitation.requestId, 'accept');
    expect(done.status).toBe(200);
    const completed = done.body as ExecutionCompleted;
    expect(completed.status).toBe('completed');
    expect(completed.executionId).toBe(elicitation.executionId);
    expect(completed.result.content).toEqual([{ type: 'text', text: 'Account connected' }]);
    expect(callsOf(d, 'connect-account')).toBe(2);
    expect(d.daemon.executions.activeExecution).toBeUndefined();
  });

  it("puts the server's elicitation/complete on the live channel and the elicitation there too", async () => {
    const d = await startWithFixture();
    const live = await openLive(d);
    onTestFinished(() => live.close());
    const asked = await execute(d, 'connect-account');
    const elicitation = asked.body as ElicitationRequired;
    const announced = await live.until(
      (all) => all.find((m) => m.type === 'elicitation'),
      'the elicitation message',
    );
    expect(announced).toEqual({
      type: 'elicitation',
      serverId: 'web',
      toolName: 'connect-account',
      elicitation: { ...elicitation },
    });
    await visit(elicitation);
    const complete = await live.until(
      (all) =>
        all.find((m) => m.type === 'notification' && m.method === 'notifications/elicitation/complete'),
      'notifications/elicitation/complete',
    );
    expect(complete).toMatchObject({
      serverId: 'web',
      params: { elicitationId: elicitation.request.elicitationId },
    });
    expect((await respond(d, elicitation.requestId, 'accept')).status).toBe(200);
  });

  it('hands several URLs one by one, and retries once all are accepted', async () => {
    const d = await startWithFixture();
    const first = (await execute(d, 'connect-two')).body as ElicitationRequired;
    expect(first.retry).toEqual({ round: 1, maxRounds: 3, index: 1, count: 2 });
    expect(first.request.message).toBe('Sign in to the first service');
    await visit(first);
    const second = (await respond(d, first.requestId, 'accept')).body as ElicitationRequired;
    expect(second.status).toBe('elicitation_required');
    expect(second.retry).toEqual({ round: 1, maxRounds: 3, index: 2, count: 2 });
    expect(second.request.message).toBe('Sign in to the second service');
    expect(callsOf(d, 'connect-two')).toBe(1);
    await visit(second);
    const done = await respond(d, second.requestId, 'accept');
    expect(done.status).toBe(200);
    expect(done.body.result.content[0].text).toBe('Both services connected');
  });

  it('asks again when the user accepts without finishing at the URL', async () => {
    const d = await startWithFixture();
    const first = (await execute(d, 'connect-account')).body as ElicitationRequired;
    const again = (await respond(d, first.requestId, 'accept')).body as ElicitationRequired;
    expect(again.status).toBe('elicitation_required');
    expect(again.retry).toMatchObject({ round: 2 });
    expect(again.request.url).toBe(first.request.url);
    await visit(again);
    const done = await respond(d, again.requestId, 'accept');
    expect(done.body.result.content[0].text).toBe('Account connected');
    expect(callsOf(d, 'connect-account')).toBe(3);
  });

  it('pauses the tool time-out while the user is at the URL', async () => {
    const d = await startWithFixture();
    const asked = (await execute(d, 'connect-account', {}, 300)).body as ElicitationRequired;
    // The person takes longer at the URL than the call may run without progress.
    await sleep(900);
    expect(d.daemon.executions.activeExecution?.id).toBe(asked.executionId);
    await visit(asked);
    const done = await respond(d, asked.requestId, 'accept');
    expect(done.status).toBe(200);
    expect(done.body.result.content[0].text).toBe('Account connected');
  });

  it("answers a decline with the server's error, saying the call was not retried", async () => {
    const d = await startWithFixture();
    const asked = (await execute(d, 'connect-two')).body as ElicitationRequired;
    const declined = await respond(d, asked.requestId, 'decline');
    expect(declined.status).toBe(502);
    const body = declined.body as ErrorBody;
    expect(body.code).toBe('mcp_error');
    expect(body.error).toBe(
      'The user declined the URL elicitation, so the call was not retried. The server said: URL elicitations required',
    );
    expect(body.mcpError).toMatchObject({
      name: 'McpError',
      code: -32042,
      data: { elicitations: [expect.objectContaining({ mode: 'url' }), expect.anything()] },
    });
    expect(callsOf(d, 'connect-two')).toBe(1);
    expect(d.daemon.executions.activeExecution).toBeUndefined();
  });

  it('answers a cancel the same way', async () => {
    const d = await startWithFixture();
    const asked = (await execute(d, 'connect-account')).body as ElicitationRequired;
    const cancelled = await respond(d, asked.requestId, 'cancel');
    expect(cancelled.status).toBe(502);
    expect(cancelled.body.error).toMatch(/^The URL elicitation was cancelled, so the call was not retried\./);
    expect(cancelled.body.mcpError.code).toBe(-32042);
  });

  it('ends the wait when the call is cancelled', async () => {
    const d = await startWithFixture();
    const asked = (await execute(d, 'connect-account')).body as ElicitationRequired;
    const cancel = await d.api('POST', '/api/mcp/tools/cancel', { executionId: asked.executionId });
    expect(cancel.status).toBe(200);
    await expect.poll(() => d.daemon.executions.activeExecution).toBeUndefined();
    expect((await respond(d, asked.requestId, 'accept')).status).toBe(404);
  });

  it('stops after 3 retries with the error and why', async () => {
    const d = await startWithFixture();
    let outcome = await execute(d, 'always-required');
    const rounds: number[] = [];
    while (outcome.status === 202) {
      const elicitation = outcome.body as ElicitationRequired;
      rounds.push(elicitation.retry?.round ?? 0);
      await visit(elicitation);
      outcome = await respond(d, elicitation.requestId, 'accept');
    }
    expect(rounds).toEqual([1, 2, 3]);
    expect(outcome.status).toBe(502);
    expect(outcome.body.error).toBe(
      'The server still asked for URL elicitation after 3 retries, so the call was not retried again. The server said: URL elicitation required',
    );
    expect(outcome.body.mcpError.code).toBe(-32042);
    expect(callsOf(d, 'always-required')).toBe(4);
  });

  it('returns the error as it came when its elicitations do not hold up', async () => {
    const d = await startWithFixture();
    // A javascript: URL, a thousand elicitations, a 100 000-character message, none, a form-mode entry.
    const kinds = ['javascript-url', 'many', 'long-message', 'no-elicitations', 'form-mode'];
    for (const kind of kinds) {
      const failed = await execute(d, 'hostile', { kind });
      expect(failed.status, kind).toBe(502);
      expect(failed.body.code).toBe('mcp_error');
      expect(failed.body.error).toBe(`Hostile ${kind}`);
      expect(failed.body.mcpError.code).toBe(-32042);
      expect(d.daemon.executions.activeExecution).toBeUndefined();
    }
    expect(callsOf(d, 'hostile')).toBe(kinds.length);
  });
});
