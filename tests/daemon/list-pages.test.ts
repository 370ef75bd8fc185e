import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';

let d: TestDaemon;

beforeAll(async () => {
  d = await startDaemon();
  await d.api('PUT', '/api/mcp/servers/paged', { config: fixtureStdio('paged-resources-server.ts') });
  // Five tools in pages of two.
  const many = fixtureStdio('many-tools-server.ts');
  await d.api('PUT', '/api/mcp/servers/many', {
    config: { ...many, args: [...(many.args ?? []), '5', 'tool', '2'] },
  });
});
afterAll(() => d?.close());

const names = (items: Array<{ name: string }>): string[] => items.map((item) => item.name);

describe('one page of a list, when asked for', () => {
  it('gives the first page of resources with its nextCursor, then each page after it', async () => {
    const first = await d.api('POST', '/api/mcp/resources/list', { serverId: 'paged', page: 'first' });
    expect(first.status).toBe(200);
    expect(names(first.body.resources)).toEqual(['Item 1', 'Item 2']);
    expect(first.body.nextCursor).toBe('2');

    const second = await d.api('POST', '/api/mcp/resources/list', { serverId: 'paged', cursor: '2' });
    expect(names(second.body.resources)).toEqual(['Item 3', 'Item 4']);
    expect(second.body.nextCursor).toBe('4');

    const last = await d.api('POST', '/api/mcp/resources/list', { serverId: 'paged', cursor: '4' });
    expect(names(last.body.resources)).toEqual(['Item 5']);
    expect(last.body).not.toHaveProperty('nextCursor');

    // Without either, every page still comes joined.
    const all = await d.api('POST', '/api/mcp/resources/list', { serverId: 'paged' });
    expect(all.body.resources).toHaveLength(5);
    expect(all.body).not.toHaveProperty('nextCursor');
  });

  it('pages resource templates and prompts the same way', async () => {
    const templates = await d.api('POST', '/api/mcp/resources/templates/list', {
      serverId: 'paged',
      cursor: '2',
    });
    expect(templates.status).toBe(200);
    expect(names(templates.body.resourceTemplates)).toEqual(['Group 3', 'Group 4']);
    expect(templates.body.nextCursor).toBe('4');

    const prompts = await d.api('POST', '/api/mcp/prompts/list', { serverId: 'paged', page: 'first' });
    expect(names(prompts.body.prompts)).toEqual(['prompt-1', 'prompt-2']);
    expect(prompts.body.nextCursor).toBe('2');
  });

  it('takes the cursor in the query of the per-server GET routes', async () => {
    const resources = await d.api('GET', '/api/mcp/servers/paged/resources?page=first');
    expect(resources.status).toBe(200);
    expect(resources.body.nextCursor).toBe('2');
    const prompts = await d.api('GET', '/api/mcp/servers/paged/prompts?cursor=4');
    expect(names(prompts.body.prompts)).toEqual(['prompt-5']);
    const tools = await d.api('GET', '/api/mcp/servers/many/tools?cursor=2');
    expect(names(tools.body.tools)).toEqual(['tool-0003', 'tool-0004']);
    expect(tools.body.nextCursor).toBe('4');
  });

  it('pages tools with their metadata, and a tool first seen on a later page can be called', async () => {
    const first = await d.api('POST', '/api/mcp/tools/list', { serverId: 'many', page: 'first' });
    expect(first.status).toBe(200);
    expect(names(first.body.tools)).toEqual(['tool-0001', 'tool-0002']);
    expect(first.body.nextCursor).toBe('2');
    expect(first.body.toolsMetadata).toEqual({});

    const last = await d.api('POST', '/api/mcp/tools/list', { serverId: 'many', cursor: '4' });
    expect(names(last.body.tools)).toEqual(['tool-0005']);
    expect(last.body).not.toHaveProperty('nextCursor');

    const called = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'many',
      toolName: 'tool-0003',
      parameters: { text: 'from page two' },
    });
    expect(called.status).toBe(200);
    expect(called.body.result.content[0].text).toBe('from page two');

    const all = await d.api('POST', '/api/mcp/tools/list', { serverId: 'many' });
    expect(all.body.tools).toHaveLength(5);
    expect(all.body).not.toHaveProperty('nextCursor');
  });

  it('refuses a cursor that is not a short non-empty string, or a cursor with page=first (400)', async () => {
    const bad = [
      { cursor: '' },
      { cursor: 2 },
      { cursor: 'x'.repeat(4097) },
      { page: 'last' },
      { cursor: '2', page: 'first' },
    ];
    for (const fields of bad) {
      const answer = await d.api('POST', '/api/mcp/resources/list', { serverId: 'paged', ...fields });
      expect(answer.status, JSON.stringify(fields).slice(0, 80)).toBe(400);
      expect(answer.body.code).toBe('invalid_request');
      expect(answer.body.problems.length).toBeGreaterThan(0);
    }
    const twice = await d.api('GET', '/api/mcp/servers/paged/resources?cursor=2&cursor=4');
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ code: 'invalid_request', problems: [{ path: 'cursor' }] });
  });

  it("answers 502 with the server's own error for a cursor it did not give", async () => {
    for (const [method, path] of [
      ['POST', '/api/mcp/resources/list'],
      ['POST', '/api/mcp/tools/list'],
    ] as const) {
      const serverId = path.includes('tools') ? 'many' : 'paged';
      const answer = await d.api(method, path, { serverId, cursor: '99' });
      expect(answer.status).toBe(502);
      expect(answer.body).toMatchObject({
        code: 'mcp_error',
        error: 'Unknown cursor: 99',
        mcpError: { name: 'McpError', code: -32602 },
      });
    }
    const viaGet = await d.api('GET', '/api/mcp/servers/paged/prompts?cursor=nowhere');
    expect(viaGet.status).toBe(502);
    expect(viaGet.body.mcpError.code).toBe(-32602);
  });
});

describe('a list of all pages from a server that never ends it', () => {
  const hostile = (id: string, ...args: string[]) => {
    const many = fixtureStdio('many-tools-server.ts');
    return d.api('PUT', `/api/mcp/servers/${id}`, {
      config: { ...many, args: [...(many.args ?? []), ...args] },
    });
  };

  it('stops at a nextCursor the server gave before, and says so', async () => {
    expect((await hostile('looping', '6', 'loop', '2', 'loop')).status).toBe(201);
    const listed = await d.api('POST', '/api/mcp/tools/list', { serverId: 'looping' });
    expect(listed.status).toBe(200);
    expect(names(listed.body.tools)).toEqual([
      'loop-0001',
      'loop-0002',
      'loop-0003',
      'loop-0004',
      'loop-0005',
      'loop-0006',
    ]);
    expect(listed.body.resultProblem).toBe(
      'page 3 gave a nextCursor that page 2 came with: stopped after 3 pages, 6 items',
    );
  });

  it('stops at 100,000 items of a server that gives a new cursor forever', async () => {
    expect((await hostile('endless', '2000', 'endless', '2000', 'endless')).status).toBe(201);
    const listed = await d.api('POST', '/api/mcp/tools/list', { serverId: 'endless' });
    expect(listed.status).toBe(200);
    expect(listed.body.tools).toHaveLength(100_000);
    expect(listed.body.resultProblem).toBe(
      'the list passed 100,000 items: stopped after 50 pages, 100000 items',
    );
  });

  it('ends a list of all pages with 502 when the server is removed during it, and does not start it again', async () => {
    expect((await hostile('removed', '3', 'gone', '1', 'endless')).status).toBe(201);
    // Only what this test adds to the log: reading back all it holds, every 10 ms, would slow the daemon.
    const from = d.daemon.bus.lastSeq;
    const initializes = () =>
      d.daemon.bus
        .since(from)
        .filter(
          (e) => e.serverId === 'removed' && e.direction === 'send' && e.message.method === 'initialize',
        ).length;
    const pages = () =>
      d.daemon.bus
        .since(from)
        .filter(
          (e) => e.serverId === 'removed' && e.direction === 'send' && e.message.method === 'tools/list',
        ).length;
    const listing = d.api('POST', '/api/mcp/tools/list', { serverId: 'removed' });
    await vi.waitFor(() => expect(pages()).toBeGreaterThan(20), { timeout: 10_000, interval: 10 });
    expect((await d.api('DELETE', '/api/mcp/servers/removed')).status).toBe(200);
    const listed = await listing;
    expect(listed.status).toBe(502);
    expect(listed.body.mcpError).toMatchObject({ code: 'DISCONNECTED' });
    expect(listed.body.error).toContain('The server was removed during the call.');
    expect(initializes()).toBe(1);
  });

  it('stops at 1,000 pages', async () => {
    expect((await hostile('tiny-pages', '3', 'tiny', '1', 'endless')).status).toBe(201);
    const listed = await d.api('POST', '/api/mcp/tools/list', { serverId: 'tiny-pages' });
    expect(listed.status).toBe(200);
    expect(listed.body.tools).toHaveLength(1_000);
    expect(listed.body.resultProblem).toBe(
      'the list passed 1,000 pages: stopped after 1000 pages, 1000 items',
    );
  });
});
