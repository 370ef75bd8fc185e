import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdio, fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';

const STATIC_URI = 'demo://resource/static/document/features.md';
const TEMPLATED_URI = 'demo://resource/dynamic/text/7';

let d: TestDaemon;

beforeAll(async () => {
  d = await startDaemon();
  await d.api('PUT', '/api/mcp/servers/everything', { config: everythingStdio() });
  await d.api('PUT', '/api/mcp/servers/paged', { config: fixtureStdio('paged-resources-server.ts') });
});
afterAll(() => d?.close());

const uris = (body: { resources: Array<{ uri: string }> }): string[] => body.resources.map((r) => r.uri);
const promptText = (content: { messages: Array<{ content: { text?: string } }> }): string =>
  content.messages.map((m) => m.content.text ?? '').join('\n');

describe('resources', () => {
  it("lists server-everything's static documents", async () => {
    const listed = await d.api('POST', '/api/mcp/resources/list', { serverId: 'everything' });
    expect(listed.status).toBe(200);
    expect(uris(listed.body)).toContain(STATIC_URI);
    expect(listed.body.nextCursor).toBeUndefined();
  });

  it('follows nextCursor until the last page', async () => {
    const listed = await d.api('POST', '/api/mcp/resources/list', { serverId: 'paged' });
    expect(listed.status).toBe(200);
    expect(uris(listed.body)).toEqual([1, 2, 3, 4, 5].map((n) => `paged://item/${n}`));
    expect(listed.body.nextCursor).toBeUndefined();
  });

  it('lists the resource templates', async () => {
    const listed = await d.api('POST', '/api/mcp/resources/templates/list', { serverId: 'everything' });
    expect(listed.status).toBe(200);
    expect(listed.body.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate)).toContain(
      'demo://resource/dynamic/text/{resourceId}',
    );
  });

  it('reads a static resource', async () => {
    const read = await d.api('POST', '/api/mcp/resources/read', { serverId: 'everything', uri: STATIC_URI });
    expect(read.status).toBe(200);
    const [content] = read.body.content.contents;
    expect(content).toMatchObject({ uri: STATIC_URI, mimeType: 'text/markdown' });
    expect(content.text.length).toBeGreaterThan(0);
  });

  it('reads a resource made from a template', async () => {
    const read = await d.api('POST', '/api/mcp/resources/read', {
      serverId: 'everything',
      uri: TEMPLATED_URI,
    });
    expect(read.status).toBe(200);
    const [content] = read.body.content.contents;
    expect(content.uri).toBe(TEMPLATED_URI);
    expect(content.text).toMatch(/^Resource 7: /);
  });

  it("answers 502 with the server's mcpError for an unknown URI", async () => {
    const read = await d.api('POST', '/api/mcp/resources/read', {
      serverId: 'everything',
      uri: 'demo://resource/nowhere',
    });
    expect(read.status).toBe(502);
    expect(read.body.error).toContain('demo://resource/nowhere');
    expect(read.body.mcpError).toMatchObject({ name: 'McpError', code: -32602 });
  });
});

describe('prompts', () => {
  it('lists the prompts with their arguments', async () => {
    const listed = await d.api('POST', '/api/mcp/prompts/list', { serverId: 'everything' });
    expect(listed.status).toBe(200);
    const args = listed.body.prompts.find((p: { name: string }) => p.name === 'args-prompt');
    expect(listed.body.prompts.map((p: { name: string }) => p.name)).toContain('simple-prompt');
    expect(args.arguments).toContainEqual(expect.objectContaining({ name: 'city', required: true }));
  });

  it('gets a prompt without arguments', async () => {
    const got = await d.api('POST', '/api/mcp/prompts/get', {
      serverId: 'everything',
      name: 'simple-prompt',
    });
    expect(got.status).toBe(200);
    expect(promptText(got.body.content)).toBe('This is a simple prompt without arguments.');
  });

  it('gets a prompt with arguments, a number value turned into a string', async () => {
    const got = await d.api('POST', '/api/mcp/prompts/get', {
      serverId: 'everything',
      name: 'args-prompt',
      args: { city: 1984, state: 'Oceania' },
    });
    expect(got.status).toBe(200);
    expect(promptText(got.body.content)).toBe("What's weather in 1984, Oceania?");
  });

  it('answers 404 for an unknown prompt', async () => {
    const got = await d.api('POST', '/api/mcp/prompts/get', {
      serverId: 'everything',
      name: 'no-such-prompt',
    });
    expect(got.status).toBe(404);
    expect(got.body.error).toContain('no-such-prompt');
  });

  it("answers 502 with the server's explanation when a required argument is missing", async () => {
    const got = await d.api('POST', '/api/mcp/prompts/get', {
      serverId: 'everything',
      name: 'args-prompt',
      args: { state: 'Oceania' },
    });
    expect(got.status).toBe(502);
    expect(got.body.mcpError.code).toBe(-32602);
    expect(got.body.error).toMatch(/Invalid arguments for prompt args-prompt/);
    expect(got.body.error).toContain('city');
  });
});

describe('per-server REST routes', () => {
  it('GET /servers/:id/resources lists every page', async () => {
    const listed = await d.api('GET', '/api/mcp/servers/paged/resources');
    expect(listed.status).toBe(200);
    expect(uris(listed.body)).toHaveLength(5);
  });

  it('GET /servers/:id/resources/:uri reads a percent-encoded URI', async () => {
    const read = await d.api(
      'GET',
      `/api/mcp/servers/everything/resources/${encodeURIComponent(TEMPLATED_URI)}`,
    );
    expect(read.status).toBe(200);
    expect(read.body.content.contents[0].uri).toBe(TEMPLATED_URI);
    const fixture = await d.api(
      'GET',
      `/api/mcp/servers/paged/resources/${encodeURIComponent('paged://item/4')}`,
    );
    expect(fixture.body.content.contents[0].text).toBe('Contents of Item 4');
  });

  it('GET /servers/:id/prompts lists the prompts', async () => {
    const listed = await d.api('GET', '/api/mcp/servers/everything/prompts');
    expect(listed.status).toBe(200);
    expect(listed.body.prompts.map((p: { name: string }) => p.name)).toContain('args-prompt');
  });

  it('POST /servers/:id/prompts/:name/get passes the args', async () => {
    const got = await d.api('POST', '/api/mcp/servers/everything/prompts/args-prompt/get', {
      args: { city: 'Paris' },
    });
    expect(got.status).toBe(200);
    expect(promptText(got.body.content)).toBe("What's weather in Paris?");
    const unknown = await d.api('POST', '/api/mcp/servers/everything/prompts/no-such-prompt/get', {});
    expect(unknown.status).toBe(404);
  });
});
