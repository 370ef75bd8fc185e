import { describe, expect, it } from 'vitest';
import {
  configFromDraft,
  draftFromConfig,
  emptyDraft,
  parseMcpServersJson,
  parsePairs,
} from '../../extension/servers/server-form';

describe('server editor fields', () => {
  it('turns a STDIO draft into a config with one argument per line and KEY=value env', () => {
    const draft = {
      ...emptyDraft(),
      id: 'everything',
      command: ' npx ',
      args: '-y\n@modelcontextprotocol/server-everything\n\n',
      env: 'API_KEY=abc=def\nDEBUG=1',
      cwd: '/tmp',
    };
    expect(configFromDraft(draft)).toEqual({
      problems: [],
      config: {
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-everything'],
        env: { API_KEY: 'abc=def', DEBUG: '1' },
        cwd: '/tmp',
      },
    });
  });

  it('turns a remote draft into a config with Name: value headers', () => {
    const draft = {
      ...emptyDraft(),
      id: 'remote',
      transport: 'sse' as const,
      url: 'http://localhost:3001/sse',
      headers: 'Authorization: Bearer x:y',
    };
    expect(configFromDraft(draft).config).toEqual({
      transport: 'sse',
      url: 'http://localhost:3001/sse',
      headers: { Authorization: 'Bearer x:y' },
    });
  });

  it('lists every problem: a bad id, a missing command, an env line without =', () => {
    const { config, problems } = configFromDraft({ ...emptyDraft(), id: '-bad id', env: 'NOVALUE' });
    expect(config).toBeUndefined();
    expect(problems).toEqual([
      'Id: letters, digits, ".", "_" or "-", starting with a letter or digit',
      'Command is required',
      'Environment: "NOVALUE" has no "="',
    ]);
  });

  it('refuses a URL that is not http or https', () => {
    const draft = { ...emptyDraft(), id: 'x', transport: 'http' as const, url: 'file:///etc/passwd' };
    expect(configFromDraft(draft).problems).toEqual(['URL must start with http:// or https://']);
  });

  it('round-trips a stored config through the editor unchanged', () => {
    const config = {
      transport: 'stdio' as const,
      command: 'node',
      args: ['server.js', '--port', '1'],
      env: { TOKEN: '********' },
    };
    const draft = draftFromConfig('srv', 'My server', config);
    expect(draft.name).toBe('My server');
    expect(configFromDraft(draft).config).toEqual(config);
  });

  it('keeps a WebSocket server a WebSocket server, with its headers and era', () => {
    const config = {
      transport: 'websocket' as const,
      url: 'ws://localhost:3001/',
      headers: { 'X-Key': '********' },
      era: 'legacy' as const,
    };
    const draft = draftFromConfig('ws', 'ws', config);
    expect(draft).toMatchObject({ transport: 'websocket', era: 'legacy' });
    expect(configFromDraft(draft).config).toEqual(config);
    expect(configFromDraft({ ...draft, url: 'http://localhost:3001/' }).problems).toEqual([
      'URL must start with ws:// or wss://',
    ]);
  });

  it('stores the era only when it is not auto, the default', () => {
    const draft = { ...emptyDraft(), id: 'x', command: 'node' };
    expect(draft.era).toBe('auto');
    expect(configFromDraft(draft).config).toEqual({ transport: 'stdio', command: 'node' });
    expect(configFromDraft({ ...draft, era: 'modern' }).config).toEqual({
      transport: 'stdio',
      command: 'node',
      era: 'modern',
    });
    expect(draftFromConfig('x', 'x', { transport: 'http', url: 'http://h/mcp' }).era).toBe('auto');
  });

  it('parses pairs and names the lines it cannot read', () => {
    expect(parsePairs('A: 1\nbroken\n: x', ':')).toEqual({
      values: { A: '1' },
      problems: ['"broken" has no ":"', '": x" has no ":"'],
    });
  });
});

describe('pasted mcpServers JSON', () => {
  it('accepts the full file shape and the inner map alone', () => {
    const inner = { everything: { command: 'npx' } };
    expect(parseMcpServersJson(JSON.stringify({ mcpServers: inner })).mcpServers).toEqual(inner);
    expect(parseMcpServersJson(JSON.stringify(inner)).mcpServers).toEqual(inner);
  });

  it('explains invalid JSON and an empty map', () => {
    expect(parseMcpServersJson('{ nope').problem).toMatch(/^Not valid JSON/);
    expect(parseMcpServersJson('{"mcpServers":{}}').problem).toMatch(/at least one server/);
    expect(parseMcpServersJson('[1]').problem).toBe('Expected a JSON object');
  });
});
