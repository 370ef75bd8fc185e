/** Sampling answered by the person through execute/respond, and the roots offered per server. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { messages, startWithServers } from './execution-helpers.ts';
import { everythingStdio, startDaemon, type TestDaemon } from './helpers.ts';

const execute = (d: TestDaemon, toolName: string, parameters: object = {}) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId: 'everything', toolName, parameters });

const respond = (d: TestDaemon, requestId: string, response: object) =>
  d.api('POST', '/api/mcp/tools/respond', { requestId, response });

const textOf = (result: { content: Array<{ text?: string }> }): string =>
  result.content.map((item) => item.text ?? '').join('\n');

describe('sampling', () => {
  it('asks the person with kind "sampling", refuses a reply that is no CreateMessageResult, and sends a good one', async () => {
    const d = await startWithServers();
    const asked = await execute(d, 'trigger-sampling-request', {
      prompt: 'a haiku about tests',
      maxTokens: 20,
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      status: 'elicitation_required',
      kind: 'sampling',
      request: {
        systemPrompt: 'You are a helpful test server.',
        maxTokens: 20,
        messages: [
          { role: 'user', content: { type: 'text', text: expect.stringContaining('a haiku about tests') } },
        ],
      },
    });

    const wrong = await respond(d, asked.body.requestId, {
      action: 'accept',
      content: { role: 'robot', content: { type: 'text', text: 'x' } },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.problems).toEqual(
      expect.arrayContaining([
        { path: 'response.content.model', message: 'is required' },
        { path: 'response.content.role', message: 'must be one of user, assistant' },
      ]),
    );

    // The request is still open after a refused reply.
    const answered = await respond(d, asked.body.requestId, {
      action: 'accept',
      content: {
        role: 'assistant',
        content: { type: 'text', text: 'Green bars at dawn' },
        model: 'written-by-hand',
        stopReason: 'endTurn',
      },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('completed');
    const text = textOf(answered.body.result);
    expect(text).toContain('Green bars at dawn');
    expect(text).toContain('written-by-hand');
    // The server's request and the reply are in the log.
    expect(messages(d, 'receive').some((m) => m.method === 'sampling/createMessage')).toBe(true);
  });

  it('rejects the request for the server when the person declines', async () => {
    const d = await startWithServers();
    const asked = await execute(d, 'trigger-sampling-request', { prompt: 'no', maxTokens: 5 });
    expect(asked.body.kind).toBe('sampling');
    const declined = await respond(d, asked.body.requestId, { action: 'decline' });
    expect(declined.status).toBe(200);
    expect(declined.body.result.isError).toBe(true);
    expect(textOf(declined.body.result)).toContain('The user rejected the sampling request');
    const answer = messages(d, 'send').find((m) => 'error' in m && (m.error as { code: number }).code === -1);
    expect(answer).toBeDefined();
  });
});

describe('roots', () => {
  async function rootsSeenByServer(d: TestDaemon): Promise<string> {
    const listed = await execute(d, 'get-roots-list');
    expect(listed.status).toBe(200);
    return textOf(listed.body.result);
  }

  it('answers roots/list with the roots set for the server, and tells it when they change', async () => {
    const d = await startWithServers();
    const set = await d.api('PUT', '/api/mcp/servers/everything/roots', {
      roots: [{ uri: 'file:///tmp/project-one', name: 'Project one' }],
    });
    expect(set.status).toBe(200);
    expect(set.body.roots).toEqual([{ uri: 'file:///tmp/project-one', name: 'Project one' }]);
    const first = await rootsSeenByServer(d);
    expect(first).toContain('file:///tmp/project-one');
    expect(first).toContain('Project one');

    await d.api('PUT', '/api/mcp/servers/everything/roots', { roots: [{ uri: 'file:///tmp/project-two' }] });
    expect(messages(d, 'send').some((m) => m.method === 'notifications/roots/list_changed')).toBe(true);
    // The server asks for the list again when told it changed.
    await vi.waitFor(
      () => expect(messages(d, 'receive').filter((m) => m.method === 'roots/list').length).toBeGreaterThan(1),
      { timeout: 10_000, interval: 20 },
    );
    const second = await rootsSeenByServer(d);
    expect(second).toContain('file:///tmp/project-two');
    expect(second).not.toContain('project-one');
  });

  it('keeps the roots across a new config and a daemon restart, and refuses roots that are not file:// URIs', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'inspector-roots-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const first = await startDaemon({ dataDir });
    await first.api('PUT', '/api/mcp/servers/everything', { config: everythingStdio() });
    const refused = await first.api('PUT', '/api/mcp/servers/everything/roots', {
      roots: [{ uri: 'https://example.com/' }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.problems).toEqual([
      { path: 'roots.0.uri', message: 'must match pattern "^file://"' },
    ]);

    const roots = [{ uri: 'file:///home/dev/app', name: 'App' }];
    expect((await first.api('PUT', '/api/mcp/servers/everything/roots', { roots })).status).toBe(200);
    const renamed = await first.api('PUT', '/api/mcp/servers/everything', {
      name: 'Everything',
      config: everythingStdio(),
    });
    expect(renamed.body.roots).toEqual(roots);
    await first.close();

    const second = await startDaemon({ dataDir });
    try {
      expect((await second.api('GET', '/api/mcp/servers/everything')).body.roots).toEqual(roots);
    } finally {
      await second.close();
    }
  });
});
