import { describe, expect, it, vi } from 'vitest';
import { messages, startWithServers } from './execution-helpers.ts';
import type { TestDaemon } from './helpers.ts';

const execute = (d: TestDaemon, serverId: string, toolName: string, extra: object = {}) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId, toolName, parameters: {}, ...extra });

const respond = (d: TestDaemon, requestId: string, response: object) =>
  d.api('POST', '/api/mcp/tools/respond', { requestId, response });

const textOf = (result: { content: Array<{ text?: string }> }): string =>
  result.content.map((item) => item.text ?? '').join('\n');

/** The result the server sent for its tools/call of `toolName`, as the RPC log saw it. */
function loggedCallResult(d: TestDaemon, toolName: string): unknown {
  const call = messages(d, 'send').find(
    (m) => m.method === 'tools/call' && (m.params as { name: string }).name === toolName,
  );
  const answer = call && messages(d, 'receive').find((m) => m.id === call.id && 'result' in m);
  return answer?.result;
}

const waitForFreeLock = (d: TestDaemon): Promise<void> =>
  vi.waitFor(() => expect(d.daemon.executions.activeExecution).toBeUndefined(), {
    timeout: 20_000,
    interval: 20,
  });

describe('elicitation', () => {
  it('answers 202 with the elicitation, then 200 once accepted, with schema defaults applied', async () => {
    const d = await startWithServers();
    const asked = await execute(d, 'everything', 'trigger-elicitation-request');
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({
      status: 'elicitation_required',
      kind: 'elicitation',
      executionId: expect.any(String),
      requestId: expect.any(String),
      request: expect.objectContaining({
        message: 'Please provide inputs for the following fields:',
        requestedSchema: expect.objectContaining({ type: 'object', required: ['name'] }),
      }),
      timestamp: expect.any(String),
    });
    expect(new Date(asked.body.timestamp).toISOString()).toBe(asked.body.timestamp);
    expect(d.daemon.executions.activeExecution?.id).toBe(asked.body.executionId);

    const done = await respond(d, asked.body.requestId, { action: 'accept', content: { name: 'Ada' } });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(done.body.executionId).toBe(asked.body.executionId);
    const text = textOf(done.body.result);
    expect(text).toContain('- Name: Ada');
    // Not sent by us: the defaults of the requestedSchema, filled in by the SDK client.
    expect(text).toContain('- Favorite Integer: 42');
    expect(text).toContain('- Favorite Number: 3.14');
    expect(text).toContain('It was a dark and stormy night.');
    expect(d.daemon.executions.activeExecution).toBeUndefined();
  });

  it('sends an accept without content as empty content', async () => {
    const d = await startWithServers();
    const asked = await execute(d, 'fixture', 'elicit-parallel');
    const second = await respond(d, asked.body.requestId, { action: 'accept' });
    const done = await respond(d, second.body.requestId, { action: 'decline' });
    expect(textOf(done.body.result)).toBe('question 1: accept {}; question 2: decline');
  });

  it('passes decline on to the server', async () => {
    const d = await startWithServers();
    const asked = await execute(d, 'everything', 'trigger-elicitation-request');
    const done = await respond(d, asked.body.requestId, { action: 'decline' });
    expect(done.status).toBe(200);
    expect(textOf(done.body.result)).toContain('User declined to provide the requested information');
  });

  it('passes cancel on to the server', async () => {
    const d = await startWithServers();
    const asked = await execute(d, 'everything', 'trigger-elicitation-request');
    const done = await respond(d, asked.body.requestId, { action: 'cancel' });
    expect(done.status).toBe(200);
    expect(textOf(done.body.result)).toContain('User cancelled the elicitation dialog');
  });

  it('answers 202 again for a second elicitation raised after the first was answered', async () => {
    const d = await startWithServers();
    const first = await execute(d, 'fixture', 'elicit-twice');
    expect(first.status).toBe(202);
    expect(first.body.request.message).toBe('First question');

    const second = await respond(d, first.body.requestId, { action: 'accept', content: { answer: 'one' } });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({
      status: 'elicitation_required',
      executionId: first.body.executionId,
      request: { message: 'Second question' },
    });
    expect(second.body.requestId).not.toBe(first.body.requestId);

    // The first one was answered: it is no longer pending.
    expect((await respond(d, first.body.requestId, { action: 'cancel' })).status).toBe(404);

    const done = await respond(d, second.body.requestId, { action: 'decline' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', executionId: first.body.executionId });
    expect(textOf(done.body.result)).toBe('first: accept {"answer":"one"}; second: decline');
  });

  it('queues elicitations raised at the same time and delivers them one after another', async () => {
    const d = await startWithServers();
    const first = await execute(d, 'fixture', 'elicit-parallel');
    expect(first.status).toBe(202);
    expect(first.body.request.message).toBe('Parallel question 1');

    const second = await respond(d, first.body.requestId, { action: 'accept', content: { answer: 'x' } });
    expect(second.status).toBe(202);
    expect(second.body.request.message).toBe('Parallel question 2');
    expect(second.body.executionId).toBe(first.body.executionId);
    expect(second.body.requestId).not.toBe(first.body.requestId);

    const done = await respond(d, second.body.requestId, { action: 'cancel' });
    expect(done.status).toBe(200);
    expect(textOf(done.body.result)).toBe('question 1: accept {"answer":"x"}; question 2: cancel');
  });
});

describe('URL elicitation', () => {
  it('hands a url-mode elicitation to the caller and passes the answer on', async () => {
    const d = await startWithServers();
    const asked = await execute(d, 'everything', 'trigger-url-elicitation', {
      parameters: { url: 'https://example.com/authorize', message: 'Sign in first' },
    });
    expect(asked.status).toBe(202);
    expect(asked.body.request).toMatchObject({
      mode: 'url',
      url: 'https://example.com/authorize',
      message: 'Sign in first',
      elicitationId: expect.any(String),
    });
    const done = await respond(d, asked.body.requestId, { action: 'accept' });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(JSON.stringify(done.body.result)).toContain('accept');
  });

  it('hands the URL of a URL-elicitation-required error over, and reports the error when declined', async () => {
    const d = await startWithServers();
    const asked = await execute(d, 'everything', 'trigger-url-elicitation', {
      parameters: { url: 'https://example.com/authorize', errorPath: true },
    });
    expect(asked.status).toBe(202);
    expect(asked.body.request).toMatchObject({ mode: 'url', url: expect.stringMatching(/^https:\/\//) });
    expect(asked.body.retry).toMatchObject({ round: 1 });
    const failed = await respond(d, asked.body.requestId, { action: 'decline' });
    expect(failed.status).toBe(502);
    expect(failed.body.mcpError).toMatchObject({ code: -32042 });
    expect(failed.body.mcpError.data.elicitations).toEqual([
      expect.objectContaining({ mode: 'url', url: expect.stringMatching(/^https:\/\//) }),
    ]);
    await waitForFreeLock(d);
  });
});

describe('respond', () => {
  it('answers 404 when no execution is active', async () => {
    const d = await startWithServers();
    const response = await respond(d, 'nothing-pending', { action: 'cancel' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: expect.any(String), code: 'elicitation_not_found' });
  });

  it('answers 404 for a requestId that is not pending and leaves the elicitation waiting', async () => {
    const d = await startWithServers();
    const asked = await execute(d, 'fixture', 'elicit-twice');
    const wrong = await respond(d, 'not-a-request', { action: 'accept', content: {} });
    expect(wrong.status).toBe(404);
    expect(wrong.body.error).toContain('not-a-request');

    const second = await respond(d, asked.body.requestId, { action: 'decline' });
    expect(second.status).toBe(202);
    expect(second.body.request.message).toBe('Second question');
  });

  it('answers 400 naming each field of an invalid respond body', async () => {
    const d = await startWithServers();
    const missing = await d.api('POST', '/api/mcp/tools/respond', { response: { action: 'accept' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: 'requestId: is required',
      code: 'invalid_request',
      problems: [{ path: 'requestId', message: 'is required' }],
    });

    const wrong = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: 'r',
      response: { action: 'maybe', content: 'yes' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain('response.action: must be one of accept, decline, cancel');
    expect(wrong.body.error).toContain('response.content: must be object');
  });

  it('answers 400 to form content no ElicitResult can carry, and keeps the question open', async () => {
    const d = await startWithServers();
    const asked = await execute(d, 'fixture', 'elicit-twice');
    expect(asked.status).toBe(202);
    const nested = await respond(d, asked.body.requestId, {
      action: 'accept',
      content: { answer: { nested: 1 }, list: [1, 2] },
    });
    expect(nested.status).toBe(400);
    expect(nested.body.problems).toEqual([
      { path: 'response.content.answer', message: 'must be string,number,boolean,array' },
      { path: 'response.content.list.0', message: 'must be string' },
      { path: 'response.content.list.1', message: 'must be string' },
    ]);
    // Still asked: a value of the wrong type for the server's schema goes, to see what the server does.
    const typed = await respond(d, asked.body.requestId, { action: 'accept', content: { answer: 42 } });
    expect(typed.status).toBe(202);
    expect(typed.body.request.message).toBe('Second question');
    await d.api('POST', '/api/mcp/tools/cancel', { executionId: asked.body.executionId });
  });
});

describe('elicitation time-out', () => {
  it('answers an unanswered elicitation with cancel, so the execution ends and the lock frees', async () => {
    const d = await startWithServers({ elicitationTimeoutMs: 300 });
    const asked = await execute(d, 'fixture', 'elicit-twice');
    expect(asked.status).toBe(202);

    await waitForFreeLock(d);
    expect(loggedCallResult(d, 'elicit-twice')).toEqual({
      content: [{ type: 'text', text: 'first: cancel; second: cancel' }],
    });
    expect((await respond(d, asked.body.requestId, { action: 'accept', content: {} })).status).toBe(404);
    expect((await execute(d, 'fixture', 'ping')).status).toBe(200);
  });

  it('pauses the tool time-out while an elicitation waits', async () => {
    // Each elicitation waits far longer than the tool time-out; the tool must still run to its end.
    const d = await startWithServers({ elicitationTimeoutMs: 1500 });
    const asked = await execute(d, 'fixture', 'elicit-twice', { timeoutMs: 500 });
    expect(asked.status).toBe(202);

    await waitForFreeLock(d);
    expect(loggedCallResult(d, 'elicit-twice')).toEqual({
      content: [{ type: 'text', text: 'first: cancel; second: cancel' }],
    });
    expect(messages(d, 'send').some((m) => m.method === 'notifications/cancelled')).toBe(false);
  });
});
