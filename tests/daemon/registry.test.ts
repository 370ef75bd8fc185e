import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { StdioServerConfig } from '../../shared/servers.ts';
import { everythingStdio, startDaemon, type TestDaemon } from './helpers.ts';

async function daemon(overrides: Parameters<typeof startDaemon>[0] = {}): Promise<TestDaemon> {
  const d = await startDaemon(overrides);
  onTestFinished(() => d.close());
  return d;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inspector-test-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const MASK = '********';
const SECRET = 'sk-live-4f1d9c0b7e2a6358';

/** A STDIO "server" that prints its secret to stderr and exits 1 before any handshake. */
const leakyStdio = (): StdioServerConfig => ({
  transport: 'stdio',
  command: process.execPath,
  args: ['-e', 'console.error("booting with key " + process.env.API_SECRET); process.exit(1)'],
  env: { API_SECRET: SECRET },
});

/** Reads the log stream's replay until `until` shows up, then hangs up. */
async function readLogReplay(d: TestDaemon, until: string): Promise<string> {
  const controller = new AbortController();
  const response = await fetch(`${d.url}/api/mcp/rpc-logs?replay=100`, {
    headers: { 'X-Inspector-Token': d.token },
    signal: controller.signal,
  });
  const reader = response.body?.getReader();
  if (!reader) throw new Error('no body');
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (!text.includes(until)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    controller.abort();
  }
  return text;
}

describe('server registry CRUD', () => {
  it('answers 201 for a new server and 200 when it is replaced', async () => {
    const d = await daemon();
    const created = await d.api('PUT', '/api/mcp/servers/everything', {
      name: 'Everything',
      config: everythingStdio(),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 'everything',
      name: 'Everything',
      config: everythingStdio(),
      status: 'disconnected',
    });
    const replaced = await d.api('PUT', '/api/mcp/servers/everything', {
      config: { ...everythingStdio(), args: [...(everythingStdio().args ?? []), '--extra'] },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.name).toBe('everything');
    expect(replaced.body.config.args).toContain('--extra');
  });

  it('lists the servers and answers one by id', async () => {
    const d = await daemon();
    await d.api('PUT', '/api/mcp/servers/a', { config: everythingStdio() });
    await d.api('PUT', '/api/mcp/servers/b', { config: { transport: 'sse', url: 'http://127.0.0.1:9/sse' } });
    const list = await d.api('GET', '/api/mcp/servers/');
    expect(list.status).toBe(200);
    expect(list.body.servers.map((s: { id: string }) => s.id).sort()).toEqual(['a', 'b']);
    const one = await d.api('GET', '/api/mcp/servers/b');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: 'b',
      config: { transport: 'sse', url: 'http://127.0.0.1:9/sse' },
      status: 'disconnected',
    });
  });

  it('deletes a server, after which it answers 404', async () => {
    const d = await daemon();
    await d.api('PUT', '/api/mcp/servers/gone', { config: everythingStdio() });
    const deleted = await d.api('DELETE', '/api/mcp/servers/gone');
    expect(deleted.status).toBe(200);
    expect((await d.api('GET', '/api/mcp/servers/gone')).status).toBe(404);
    expect((await d.api('DELETE', '/api/mcp/servers/gone')).status).toBe(404);
    expect((await d.api('GET', '/api/mcp/servers/')).body.servers).toEqual([]);
    const file = JSON.parse(await readFile(join(d.dataDir, 'servers.json'), 'utf8'));
    expect(file).toEqual({ mcpServers: {} });
  });

  it.each(['-starts-with-dash', 'has%20space', 'a'.repeat(65), 'semi%3Bcolon'])(
    'refuses the invalid id %s with 400',
    async (id) => {
      const d = await daemon();
      const response = await d.api('PUT', `/api/mcp/servers/${id}`, { config: everythingStdio() });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/^id: /);
      expect((await d.api('GET', '/api/mcp/servers/')).body.servers).toEqual([]);
    },
  );

  it.each([
    ['a STDIO config without command', { transport: 'stdio', args: ['x'] }],
    ['an unknown transport', { transport: 'carrier-pigeon', url: 'http://127.0.0.1:9/mcp' }],
    ['a URL that is not http', { transport: 'http', url: 'file:///etc/passwd' }],
    ['env values that are not strings', { transport: 'stdio', command: 'node', env: { A: 1 } }],
  ])('refuses %s with 400 naming config', async (_label, config) => {
    const d = await daemon();
    const response = await d.api('PUT', '/api/mcp/servers/bad', { config });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^config\./);
    expect((await d.api('GET', '/api/mcp/servers/bad')).status).toBe(404);
  });

  it('refuses a PUT without config with 400', async () => {
    const d = await daemon();
    const response = await d.api('PUT', '/api/mcp/servers/bad', { name: 'no config' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('config: is required');
  });
});

describe('server secrets', () => {
  it('masks env and header values in PUT, GET and list responses', async () => {
    const d = await daemon();
    const stdio = await d.api('PUT', '/api/mcp/servers/local', {
      config: { ...everythingStdio(), env: { API_SECRET: SECRET } },
    });
    const remote = await d.api('PUT', '/api/mcp/servers/remote', {
      config: {
        transport: 'http',
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: `Bearer ${SECRET}` },
      },
    });
    expect(stdio.body.config.env).toEqual({ API_SECRET: MASK });
    expect(remote.body.config.headers).toEqual({ Authorization: MASK });
    const one = await d.api('GET', '/api/mcp/servers/local');
    expect(one.body.config.env).toEqual({ API_SECRET: MASK });
    const list = await d.api('GET', '/api/mcp/servers/');
    for (const response of [stdio, remote, one, list])
      expect(JSON.stringify(response.body)).not.toContain(SECRET);
  });

  it('keeps the secret out of lastError, the 502 answer and the log stream when the server prints it', async () => {
    const d = await daemon();
    await d.api('PUT', '/api/mcp/servers/leaky', { config: leakyStdio() });
    const connect = await d.api('POST', '/api/mcp/servers/leaky/connect');
    expect(connect.status).toBe(502);
    expect(connect.body.mcpError.code).toBe('PROCESS_EXITED');
    expect(connect.body.error).toContain(`booting with key ${MASK}`);
    expect(JSON.stringify(connect.body)).not.toContain(SECRET);

    const record = await d.api('GET', '/api/mcp/servers/leaky');
    expect(record.body.status).toBe('error');
    expect(record.body.lastError).toContain('exited with code 1');
    expect(record.body.lastError).toContain(`booting with key ${MASK}`);
    expect(JSON.stringify(record.body)).not.toContain(SECRET);
    expect(JSON.stringify((await d.api('GET', '/api/mcp/servers/')).body)).not.toContain(SECRET);

    const log = await readLogReplay(d, 'booting with key');
    expect(log).toContain(`booting with key ${MASK}`);
    expect(log).not.toContain(SECRET);
  });

  it('keeps the stored value when a PUT sends the mask back, and the child gets the real one', async () => {
    const d = await daemon();
    const first = await d.api('PUT', '/api/mcp/servers/everything', {
      config: { ...everythingStdio(), env: { PROBE_SECRET: SECRET } },
    });
    // The editor sends back what it was given: the masked config.
    const resent = await d.api('PUT', '/api/mcp/servers/everything', { config: first.body.config });
    expect(resent.status).toBe(200);
    expect(resent.body.config.env).toEqual({ PROBE_SECRET: MASK });

    const execution = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'everything',
      toolName: 'get-env',
    });
    expect(execution.status).toBe(200);
    const env = JSON.parse(execution.body.result.content[0].text);
    expect(env.PROBE_SECRET).toBe(SECRET);

    const stored = JSON.parse(await readFile(join(d.dataDir, 'servers.json'), 'utf8'));
    expect(stored.mcpServers.everything.env).toEqual({ PROBE_SECRET: SECRET });
    const record = await d.api('GET', '/api/mcp/servers/everything');
    expect(record.body.status).toBe('connected');
    expect(JSON.stringify(record.body)).not.toContain(SECRET);
  });

  it('stores a new value when a PUT sends one instead of the mask', async () => {
    const d = await daemon();
    await d.api('PUT', '/api/mcp/servers/everything', {
      config: { ...everythingStdio(), env: { PROBE_SECRET: SECRET } },
    });
    await d.api('PUT', '/api/mcp/servers/everything', {
      config: { ...everythingStdio(), env: { PROBE_SECRET: 'rotated-value-1234' } },
    });
    const stored = JSON.parse(await readFile(join(d.dataDir, 'servers.json'), 'utf8'));
    expect(stored.mcpServers.everything.env).toEqual({ PROBE_SECRET: 'rotated-value-1234' });
  });
});

describe('registry file', () => {
  it('is written in the mcpServers shape with mode 0600', async () => {
    const d = await daemon();
    await d.api('PUT', '/api/mcp/servers/local', {
      name: 'Local one',
      config: { ...everythingStdio(), env: { API_SECRET: SECRET }, cwd: tmpdir() },
    });
    await d.api('PUT', '/api/mcp/servers/remote', {
      config: { transport: 'sse', url: 'http://127.0.0.1:9/sse', headers: { 'X-Key': SECRET } },
    });
    const file = join(d.dataDir, 'servers.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      mcpServers: {
        local: {
          name: 'Local one',
          command: process.execPath,
          args: everythingStdio().args,
          env: { API_SECRET: SECRET },
          cwd: tmpdir(),
        },
        remote: { type: 'sse', url: 'http://127.0.0.1:9/sse', headers: { 'X-Key': SECRET } },
      },
    });
  });

  it('brings the servers back, disconnected, after a restart on the same data folder', async () => {
    const dataDir = await tempDir();
    const first = await daemon({ dataDir });
    await first.api('PUT', '/api/mcp/servers/everything', {
      name: 'Everything',
      config: { ...everythingStdio(), env: { API_SECRET: SECRET } },
    });
    await first.api('PUT', '/api/mcp/servers/remote', {
      config: { transport: 'http', url: 'http://127.0.0.1:9/mcp' },
    });
    expect((await first.api('POST', '/api/mcp/servers/everything/connect')).body.status).toBe('connected');
    await first.close();

    const second = await daemon({ dataDir });
    const list = await second.api('GET', '/api/mcp/servers/');
    expect(list.body.servers).toEqual([
      {
        id: 'everything',
        name: 'Everything',
        config: { ...everythingStdio(), env: { API_SECRET: MASK } },
        status: 'disconnected',
      },
      {
        id: 'remote',
        name: 'remote',
        config: { transport: 'http', url: 'http://127.0.0.1:9/mcp' },
        status: 'disconnected',
      },
    ]);
    const tools = await second.api('POST', '/api/mcp/tools/list', { serverId: 'everything' });
    expect(tools.status).toBe(200);
    expect(tools.body.tools.map((t: { name: string }) => t.name)).toContain('echo');
  });

  it('leaves no temporary files behind after many quick changes', async () => {
    const d = await daemon();
    const ids = Array.from({ length: 25 }, (_, i) => `server-${i}`);
    const answers = await Promise.all(
      ids.map((id) => d.api('PUT', `/api/mcp/servers/${id}`, { config: everythingStdio() })),
    );
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 201));
    await Promise.all(ids.slice(0, 10).map((id) => d.api('DELETE', `/api/mcp/servers/${id}`)));
    expect((await readdir(d.dataDir)).filter((name) => name.includes('.tmp'))).toEqual([]);
    const stored = JSON.parse(await readFile(join(d.dataDir, 'servers.json'), 'utf8'));
    expect(Object.keys(stored.mcpServers).sort()).toEqual(ids.slice(10).sort());
  });

  it('stays whole through many quick concurrent PUTs, and a restart reads every server back', async () => {
    const dataDir = await tempDir();
    const first = await daemon({ dataDir });
    const ids = Array.from({ length: 60 }, (_, i) => `server-${i}`);
    const answers = await Promise.all(
      ids.flatMap((id, i) => [
        first.api('PUT', `/api/mcp/servers/${id}`, { config: everythingStdio() }),
        // Every third server is replaced while the first writes are still going on.
        ...(i % 3 === 0
          ? [first.api('PUT', `/api/mcp/servers/${id}`, { name: `Renamed ${i}`, config: everythingStdio() })]
          : []),
      ]),
    );
    expect(answers.every((a) => a.status === 200 || a.status === 201)).toBe(true);
    await first.close();

    expect((await readdir(dataDir)).filter((name) => name.includes('.tmp'))).toEqual([]);
    const stored = JSON.parse(await readFile(join(dataDir, 'servers.json'), 'utf8'));
    expect(Object.keys(stored.mcpServers).sort()).toEqual([...ids].sort());
    const second = await daemon({ dataDir });
    const listed = (await second.api('GET', '/api/mcp/servers/')).body.servers as Array<{ id: string }>;
    expect(listed.map((s) => s.id).sort()).toEqual([...ids].sort());
  });

  it('removes a temporary file that an earlier run, killed mid-write, left in the data folder', async () => {
    const dataDir = await tempDir();
    const registry = { mcpServers: { kept: { command: process.execPath } } };
    await writeFile(join(dataDir, 'servers.json'), JSON.stringify(registry));
    await writeFile(join(dataDir, 'servers.json.0a1b2c3d4e5f.tmp'), '{"mcpServers": {"half-writ');
    await writeFile(join(dataDir, 'notes.tmp'), 'not ours');

    const d = await daemon({ dataDir });
    // daemon.pid: the running daemon's hold on the folder (data-lock.ts).
    expect((await readdir(dataDir)).sort()).toEqual(['daemon.pid', 'notes.tmp', 'servers.json']);
    expect((await d.api('GET', '/api/mcp/servers/')).body.servers.map((s: { id: string }) => s.id)).toEqual([
      'kept',
    ]);
  });
});

describe('importing mcpServers files', () => {
  const mcpServers = {
    everything: { command: process.execPath, args: everythingStdio().args, env: { API_SECRET: SECRET } },
    'remote-sse': { type: 'sse', url: 'http://127.0.0.1:9/sse' },
    'remote-http': {
      type: 'streamable-http',
      url: 'http://127.0.0.1:9/mcp',
      headers: { Authorization: `Bearer ${SECRET}` },
    },
    'remote-ws': { type: 'websocket', url: 'ws://127.0.0.1:9/ws' },
  };

  const expectImported = (servers: Array<{ id: string; config: Record<string, unknown> }>): void => {
    const byId = Object.fromEntries(servers.map((s) => [s.id, s.config]));
    expect(byId).toEqual({
      everything: { ...everythingStdio(), env: { API_SECRET: MASK } },
      'remote-sse': { transport: 'sse', url: 'http://127.0.0.1:9/sse' },
      'remote-http': { transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: MASK } },
      'remote-ws': { transport: 'websocket', url: 'ws://127.0.0.1:9/ws' },
    });
  };

  it('registers the servers of a configFile at start', async () => {
    const dir = await tempDir();
    const configFile = join(dir, 'claude_desktop_config.json');
    await writeFile(configFile, JSON.stringify({ mcpServers }));
    const d = await daemon({ configFile });
    const list = await d.api('GET', '/api/mcp/servers/');
    expectImported(list.body.servers);
    expect(JSON.stringify(list.body)).not.toContain(SECRET);

    const stored = JSON.parse(await readFile(join(d.dataDir, 'servers.json'), 'utf8'));
    expect(Object.keys(stored.mcpServers).sort()).toEqual(Object.keys(mcpServers).sort());
    const tools = await d.api('POST', '/api/mcp/tools/list', { serverId: 'everything' });
    expect(tools.status).toBe(200);
  });

  it('registers the servers posted to /servers/import', async () => {
    const d = await daemon();
    const response = await d.api('POST', '/api/mcp/servers/import', { mcpServers });
    expect(response.status).toBe(200);
    expectImported(response.body.servers);
    expect(JSON.stringify(response.body)).not.toContain(SECRET);
    expectImported((await d.api('GET', '/api/mcp/servers/')).body.servers);
  });

  it('refuses an import with bad entries with 400 naming each, and imports none of it', async () => {
    const d = await daemon();
    const response = await d.api('POST', '/api/mcp/servers/import', {
      mcpServers: {
        fine: { command: 'node' },
        empty: {},
        odd: { type: 'gopher', url: 'http://127.0.0.1:9/' },
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('"empty"');
    expect(response.body.error).toContain('"odd"');
    expect((await d.api('GET', '/api/mcp/servers/')).body.servers).toEqual([]);
  });

  it('refuses an import with an invalid id or without mcpServers with 400', async () => {
    const d = await daemon();
    const badId = await d.api('POST', '/api/mcp/servers/import', {
      mcpServers: { 'no spaces': { command: 'node' } },
    });
    expect(badId.status).toBe(400);
    const missing = await d.api('POST', '/api/mcp/servers/import', { servers: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('mcpServers: is required');
  });
});

/**
 * A Streamable HTTP server (node:http, JSON-RPC by hand) that answers every request but never answers
 * the POST that carries `notifications/roots/list_changed`.
 */
async function deafToRoots(): Promise<{ url: string; held: () => number }> {
  const waiting: ServerResponse[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; method?: string };
      if (message.method === 'notifications/roots/list_changed') return void waiting.push(res);
      if (message.id === undefined) return void res.writeHead(202).end();
      const result =
        message.method === 'initialize'
          ? { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'deaf', version: '1' } }
          : {};
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    held: () => waiting.length,
  };
}

describe('changes to the registry while a server does not answer', () => {
  it('add and remove other servers while a server has not taken its new roots', async () => {
    const d = await daemon();
    const deaf = await deafToRoots();
    const put = (id: string, config: object) => d.api('PUT', `/api/mcp/servers/${id}`, { config });
    expect((await put('deaf', { transport: 'http', url: deaf.url, era: 'legacy' })).status).toBe(201);
    expect((await d.api('POST', '/api/mcp/servers/deaf/connect')).status).toBe(200);
    const roots = d.api('PUT', '/api/mcp/servers/deaf/roots', { roots: [{ uri: 'file:///tmp' }] });
    await vi.waitFor(() => expect(deaf.held()).toBe(1), { timeout: 10_000, interval: 20 });

    // The roots are kept at once, and nothing else waits for the server to take the notification.
    expect((await d.api('GET', '/api/mcp/servers/deaf')).body.roots).toEqual([{ uri: 'file:///tmp' }]);
    expect((await put('other', everythingStdio())).status).toBe(201);
    expect((await d.api('DELETE', '/api/mcp/servers/other')).status).toBe(200);
    void roots.catch(() => {});
  });
});
