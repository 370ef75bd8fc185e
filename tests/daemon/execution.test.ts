import { describe, expect, it } from 'vitest';
import { startWithServers } from './execution-helpers.ts';
import type { TestDaemon } from './helpers.ts';

const FIXTURE_TOOLS = [
  'bad-structured',
  'crash',
  'elicit-parallel',
  'elicit-twice',
  'ping',
  'slow',
  'widget',
];

const execute = (d: TestDaemon, serverId: string, toolName: string, parameters: object = {}) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId, toolName, parameters });

const respond = (d: TestDaemon, requestId: string, response: object) =>
  d.api('POST', '/api/mcp/tools/respond', { requestId, response });

const textOf = (result: { content: Array<{ text?: string }> }): string =>
  result.content.map((item) => item.text ?? '').join('\n');

describe('tool execution', () => {
  it('answers 200 completed with the tool result and frees the lock', async () => {
    const d = await startWithServers();
    const first = await execute(d, 'everything', 'echo', { message: 'hello' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      status: 'completed',
      executionId: expect.any(String),
      result: { content: [{ type: 'text', text: 'Echo: hello' }] },
    });
    expect(d.daemon.executions.activeExecution).toBeUndefined();

    const second = await execute(d, 'everything', 'echo', { message: 'again' });
    expect(second.status).toBe(200);
    expect(second.body.executionId).not.toBe(first.body.executionId);
  });

  it('passes structuredContent through unchanged even when it breaks the outputSchema', async () => {
    const d = await startWithServers();
    const list = await d.api('POST', '/api/mcp/tools/list', { serverId: 'fixture' });
    const tool = list.body.tools.find((t: { name: string }) => t.name === 'bad-structured');
    expect(tool.outputSchema).toMatchObject({ properties: { count: { type: 'number' } } });

    const response = await execute(d, 'fixture', 'bad-structured');
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('completed');
    expect(response.body.result.structuredContent).toEqual({ count: 'many' });
    expect(response.body.result.isError).toBeUndefined();
  });

  it('answers 502 when the server process dies, records why, and starts it again on the next call', async () => {
    const d = await startWithServers();
    const crashed = await execute(d, 'fixture', 'crash');
    expect(crashed.status).toBe(502);
    expect(crashed.body.error).toEqual(expect.any(String));
    expect(crashed.body.mcpError).toMatchObject({ message: expect.any(String) });
    expect(d.daemon.executions.activeExecution).toBeUndefined();

    const record = await d.api('GET', '/api/mcp/servers/fixture');
    expect(record.body.status).toBe('error');
    expect(record.body.lastError).toContain('exited with code 3');
    expect(record.body.lastError).toContain('crash: giving up on purpose');

    const list = await d.api('POST', '/api/mcp/tools/list', { serverId: 'fixture' });
    expect(list.status).toBe(200);
    expect(list.body.tools.map((t: { name: string }) => t.name).sort()).toEqual(FIXTURE_TOOLS);
    expect((await d.api('GET', '/api/mcp/servers/fixture')).body.status).toBe('connected');
    expect((await execute(d, 'fixture', 'ping')).body.result).toEqual({
      content: [{ type: 'text', text: 'pong' }],
    });
  });

  it('answers 404 for an unknown tool and leaves the lock free', async () => {
    const d = await startWithServers();
    const response = await execute(d, 'everything', 'no-such-tool');
    expect(response.status).toBe(404);
    expect(response.body.error).toContain('no-such-tool');
    expect(d.daemon.executions.activeExecution).toBeUndefined();
    expect((await execute(d, 'everything', 'echo', { message: 'x' })).status).toBe(200);
  });

  it('answers 404 for an unknown server', async () => {
    const d = await startWithServers();
    const executed = await execute(d, 'nowhere', 'echo');
    expect(executed.status).toBe(404);
    expect(executed.body.error).toContain('nowhere');
    expect((await d.api('POST', '/api/mcp/tools/list', { serverId: 'nowhere' })).status).toBe(404);
  });

  it('answers 400 naming each field of an invalid execute body', async () => {
    const d = await startWithServers();
    const missing = await d.api('POST', '/api/mcp/tools/execute', { serverId: 'everything' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: 'toolName: is required',
      code: 'invalid_request',
      problems: [{ path: 'toolName', message: 'is required' }],
    });

    const wrong = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'everything',
      toolName: 5,
      parameters: 'nope',
      timeoutMs: -1,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain('toolName: must be string');
    expect(wrong.body.error).toContain('parameters: must be object');
    expect(wrong.body.error).toContain('timeoutMs: must be >= 1');
    expect(d.daemon.executions.activeExecution).toBeUndefined();
  });
});

describe('tool listing', () => {
  it('follows nextCursor to the last page and maps tool names to their _meta', async () => {
    const d = await startWithServers();
    const list = await d.api('POST', '/api/mcp/tools/list', { serverId: 'fixture' });
    expect(list.status).toBe(200);
    expect(list.body.tools.map((t: { name: string }) => t.name).sort()).toEqual(FIXTURE_TOOLS);
    expect(list.body.nextCursor).toBeUndefined();
    expect(list.body.toolsMetadata).toEqual({
      slow: { 'example/kind': 'slow' },
      widget: { 'openai/outputTemplate': 'ui://widget/x.html' },
    });

    const cursors = d.daemon.bus
      .last(200)
      .flatMap((e) =>
        e.direction === 'send' && e.message.method === 'tools/list'
          ? [(e.message.params as { cursor?: string } | undefined)?.cursor]
          : [],
      );
    expect(cursors).toEqual([undefined, '2', '4', '6']);
  });
});

describe('per-server REST', () => {
  it('lists a server’s tools with GET /servers/:id/tools', async () => {
    const d = await startWithServers();
    const list = await d.api('GET', '/api/mcp/servers/fixture/tools');
    expect(list.status).toBe(200);
    expect(list.body.tools.map((t: { name: string }) => t.name).sort()).toEqual(FIXTURE_TOOLS);
    expect(list.body.toolsMetadata.widget).toEqual({ 'openai/outputTemplate': 'ui://widget/x.html' });
  });

  it('calls a tool with POST /servers/:id/tools/:name/call like execute', async () => {
    const d = await startWithServers();
    const response = await d.api('POST', '/api/mcp/servers/everything/tools/echo/call', {
      parameters: { message: 'rest' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'completed',
      executionId: expect.any(String),
      result: { content: [{ type: 'text', text: 'Echo: rest' }] },
    });
  });

  it('answers 202 from the per-server call while an elicitation waits, and respond finishes it', async () => {
    const d = await startWithServers();
    const first = await d.api('POST', '/api/mcp/servers/fixture/tools/elicit-twice/call', {});
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      status: 'elicitation_required',
      request: { message: 'First question' },
    });

    const second = await respond(d, first.body.requestId, { action: 'decline' });
    expect(second.status).toBe(202);
    expect(second.body.executionId).toBe(first.body.executionId);

    const done = await respond(d, second.body.requestId, { action: 'accept', content: { answer: 'b' } });
    expect(done.status).toBe(200);
    expect(textOf(done.body.result)).toBe('first: decline; second: accept {"answer":"b"}');
  });

  it('answers 404 for an unknown tool or server and 400 for a bad body on the per-server call', async () => {
    const d = await startWithServers();
    expect((await d.api('POST', '/api/mcp/servers/fixture/tools/nope/call', {})).status).toBe(404);
    expect((await d.api('POST', '/api/mcp/servers/nowhere/tools/ping/call', {})).status).toBe(404);
    const bad = await d.api('POST', '/api/mcp/servers/fixture/tools/ping/call', { parameters: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('parameters: must be object');
    expect(d.daemon.executions.activeExecution).toBeUndefined();
  });
});
