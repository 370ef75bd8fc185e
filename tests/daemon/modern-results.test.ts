import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import type { ServerConfig } from '../../shared/servers.ts';
import { fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';

// A 2026-07-28 server's result that breaks the revision's schema reaches the caller as the server sent
// it, with `resultProblem` saying what is wrong; a result with nothing to show stays an error that says
// why. The fixture sends results its SDK would refuse (modern-server.ts, `broken`).

const fixture = (era: ServerConfig['era'], env?: Record<string, string>): ServerConfig => ({
  ...fixtureStdio('modern-server.ts', env),
  era,
});

/** What the `broken` tool sends by default: a content block of a type no revision defines. */
const HOLOGRAM_RESULT = {
  resultType: 'complete',
  content: [
    { type: 'text', text: 'before the broken block' },
    { type: 'hologram', data: 'a block no revision defines' },
  ],
};

describe('results that break the 2026-07-28 schema', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon();
    const servers: Array<[string, ServerConfig]> = [
      ['modern', fixture('modern')],
      ['legacy', fixture('legacy')],
      ['broken-list', fixture('modern', { FIXTURE_BREAK_LIST: 'on' })],
    ];
    for (const [id, config] of servers) {
      expect((await d.api('PUT', `/api/mcp/servers/${id}`, { config })).status).toBe(201);
    }
  });
  afterAll(() => d?.close());

  const callBroken = (serverId: string, send?: unknown) =>
    d.api('POST', '/api/mcp/tools/execute', {
      serverId,
      toolName: 'broken',
      parameters: send === undefined ? {} : { send },
    });

  /** The results the daemon received from a server, in order. */
  const received = (serverId: string): unknown[] =>
    d.daemon.bus
      .last(10_000)
      .filter((e): e is RpcMessageEntry => e.serverId === serverId && e.direction === 'receive')
      .map((e) => (e.message as { result?: unknown }).result);

  it('answers a tool call with the result as the server sent it and names what breaks the schema', async () => {
    const response = await callBroken('modern');
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('completed');
    expect(response.body.result).toEqual(HOLOGRAM_RESULT);
    expect(response.body.resultProblem).toBe(
      'content.1.type: expected one of "text", "image", "audio", "resource_link", "resource"',
    );
    expect(received('modern')).toContainEqual(HOLOGRAM_RESULT);

    // A well-formed result has no problem, and loses its resultType as the SDK lifts it.
    const echo = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'modern',
      toolName: 'echo',
      parameters: { message: 'fine' },
    });
    expect(echo.status).toBe(200);
    expect(echo.body.result.content).toEqual([{ type: 'text', text: 'Echo: fine' }]);
    expect(echo.body).not.toHaveProperty('resultProblem');
  });

  it('names a missing field of a known block kind, and a result without resultType is taken as complete', async () => {
    const sent = { content: [{ type: 'text' }] };
    const response = await callBroken('modern', sent);
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual(sent);
    expect(response.body.resultProblem).toBe(
      'content.0.text: Invalid input: expected string, received undefined',
    );
  });

  it('names the first 20 issues of a result broken in many places, and how many more', async () => {
    const sent = { content: Array.from({ length: 30 }, () => ({ type: 'text' })) };
    const response = await callBroken('modern', sent);
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual(sent);
    const issues = (response.body.resultProblem as string).split('; ');
    expect(issues).toHaveLength(21);
    expect(issues[19]).toBe('content.19.text: Invalid input: expected string, received undefined');
    expect(issues[20]).toBe('and 10 more');
  });

  it('passes resources/read and prompts/get results on the same way, with the same field', async () => {
    const read = await d.api('POST', '/api/mcp/resources/read', {
      serverId: 'modern',
      uri: 'fixture://broken',
    });
    expect(read.status).toBe(200);
    expect(read.body.content.contents).toEqual([{ uri: 'fixture://broken', mimeType: 'text/plain' }]);
    expect(read.body.resultProblem).toBe(
      'contents.0.text: Invalid input: expected string, received undefined, or contents.0.blob: Invalid input: expected string, received undefined',
    );

    const prompt = await d.api('POST', '/api/mcp/prompts/get', { serverId: 'modern', name: 'broken' });
    expect(prompt.status).toBe(200);
    expect(prompt.body.content.messages).toEqual([{ content: { type: 'text', text: 'who says this?' } }]);
    expect(prompt.body.resultProblem).toBe(
      'messages.0.role: Invalid option: expected one of "user"|"assistant"',
    );
  });

  it('lists what a list page sent, with its problem beside the items', async () => {
    const list = await d.api('POST', '/api/mcp/tools/list', { serverId: 'broken-list' });
    expect(list.status).toBe(200);
    expect(list.body.tools).toContainEqual({ name: 'broken', description: 'Listed without its inputSchema' });
    expect(list.body.resultProblem).toMatch(/^tools\.\d+\.inputSchema: /);

    const page = await d.api('POST', '/api/mcp/tools/list', { serverId: 'broken-list', page: 'first' });
    expect(page.status).toBe(200);
    expect(page.body.resultProblem).toBe(list.body.resultProblem);
  });

  it('keeps the error, saying which rule the result breaks, when there is no result to show', async () => {
    const cases: Array<[unknown, string, string]> = [
      [
        'just a string',
        'mcp_error',
        "The server's result is a JSON string, not an object as every MCP result is; the log shows what it sent",
      ],
      [
        { resultType: 7 },
        'INVALID_RESULT',
        "The server's tools/call result breaks the 2026-07-28 schema: non-string resultType",
      ],
      [
        { resultType: 'input_required' },
        'INVALID_RESULT',
        "The server's tools/call result breaks the 2026-07-28 schema: input_required carries neither inputRequests nor requestState",
      ],
    ];
    for (const [send, code, message] of cases) {
      const response = await callBroken('modern', send);
      expect(response.status).toBe(502);
      expect(response.body.error).toContain(message);
      if (code === 'mcp_error') expect(response.body.code).toBe('mcp_error');
      else expect(response.body.mcpError.code).toBe(code);
      expect(response.body).not.toHaveProperty('result');
    }
    // The connection is fine: the next call answers.
    expect((await callBroken('modern')).status).toBe(200);
  });

  it('leaves a 2025-11-25 result unchecked, as before: no problem named', async () => {
    const sent = { content: [{ type: 'hologram' }] };
    const response = await callBroken('legacy', sent);
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual(sent);
    expect(response.body).not.toHaveProperty('resultProblem');
  });
});
