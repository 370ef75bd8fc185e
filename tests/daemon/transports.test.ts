import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { ServerConfig } from '../../shared/servers.ts';
import {
  childPids,
  EVERYTHING,
  everythingStdio,
  freePort,
  isAlive,
  startDaemon,
  startEverythingHttp,
  stopProcess,
  type TestDaemon,
  waitForHttp,
} from './helpers.ts';

interface RunningServer {
  config: ServerConfig;
  stop(): Promise<void>;
}

const TRANSPORTS: Array<{ name: string; start(): Promise<RunningServer> }> = [
  { name: 'STDIO', start: async () => ({ config: everythingStdio(), stop: async () => {} }) },
  {
    name: 'SSE',
    start: async () => {
      const server = await startEverythingHttp('sse');
      return { config: { transport: 'sse', url: server.url }, stop: server.stop };
    },
  },
  {
    name: 'Streamable HTTP',
    start: async () => {
      const server = await startEverythingHttp('streamableHttp');
      return { config: { transport: 'http', url: server.url }, stop: server.stop };
    },
  },
];

const echo = (d: TestDaemon, serverId: string, message: string) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId, toolName: 'echo', parameters: { message } });

const textOf = (result: { content?: Array<{ text?: string }> }): string =>
  (result.content ?? []).map((c) => c.text ?? '').join('\n');

describe.each(TRANSPORTS)('server-everything over $name', ({ start }) => {
  let d: TestDaemon;
  let server: RunningServer;

  beforeAll(async () => {
    server = await start();
    d = await startDaemon();
  });
  afterAll(async () => {
    await d?.close();
    await server?.stop();
  });

  const register = async (id: string): Promise<void> => {
    const put = await d.api('PUT', `/api/mcp/servers/${id}`, { config: server.config });
    expect(put.status).toBe(201);
  };

  it('connects and records the status, server info, capabilities and protocol version', async () => {
    await register('connect');
    const connected = await d.api('POST', '/api/mcp/servers/connect/connect');
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({
      id: 'connect',
      status: 'connected',
      serverInfo: { name: 'mcp-servers/everything' },
      capabilities: { tools: {}, resources: {}, prompts: {} },
    });
    expect(connected.body.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(connected.body.lastError).toBeUndefined();
    const stored = await d.api('GET', '/api/mcp/servers/connect');
    expect(stored.body).toEqual(connected.body);
  });

  it('lists echo among the tools', async () => {
    await register('list');
    const listed = await d.api('POST', '/api/mcp/tools/list', { serverId: 'list' });
    expect(listed.status).toBe(200);
    expect(listed.body.tools.map((t: { name: string }) => t.name)).toContain('echo');
  });

  it('executes echo and answers 200 with its text', async () => {
    await register('echo');
    const executed = await echo(d, 'echo', 'hello over the wire');
    expect(executed.status).toBe(200);
    expect(executed.body.status).toBe('completed');
    expect(textOf(executed.body.result)).toBe('Echo: hello over the wire');
  });

  it('completes the elicitation round trip of trigger-elicitation-request', async () => {
    await register('elicit');
    const asked = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'elicit',
      toolName: 'trigger-elicitation-request',
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      status: 'elicitation_required',
      request: { requestedSchema: { properties: { name: { type: 'string' } }, required: ['name'] } },
    });
    const answered = await d.api('POST', '/api/mcp/tools/respond', {
      requestId: asked.body.requestId,
      response: { action: 'accept', content: { name: 'Ada Lovelace' } },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'completed', executionId: asked.body.executionId });
    expect(textOf(answered.body.result)).toContain('Name: Ada Lovelace');
  });

  it('disconnects and records the server as disconnected', async () => {
    await register('disconnect');
    await d.api('POST', '/api/mcp/servers/disconnect/connect');
    const disconnected = await d.api('POST', '/api/mcp/servers/disconnect/disconnect');
    expect(disconnected.status).toBe(200);
    expect(disconnected.body.status).toBe('disconnected');
    expect(disconnected.body.serverInfo).toBeUndefined();
    // A disconnected server still answers: the next call connects again.
    expect((await echo(d, 'disconnect', 'again')).status).toBe(200);
  });

  it('connects lazily when tools/list is called on a server never connected', async () => {
    await register('lazy');
    expect((await d.api('GET', '/api/mcp/servers/lazy')).body.status).toBe('disconnected');
    const listed = await d.api('POST', '/api/mcp/tools/list', { serverId: 'lazy' });
    expect(listed.status).toBe(200);
    expect(listed.body.tools.length).toBeGreaterThan(0);
    expect((await d.api('GET', '/api/mcp/servers/lazy')).body.status).toBe('connected');
  });
});

describe('a STDIO server killed from outside', () => {
  it('goes to error with the signal in lastError, and the next call starts it again', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    await d.api('PUT', '/api/mcp/servers/victim', { config: everythingStdio() });
    const before = new Set(childPids(EVERYTHING));
    expect((await d.api('POST', '/api/mcp/servers/victim/connect')).body.status).toBe('connected');
    const spawned = childPids(EVERYTHING).filter((pid) => !before.has(pid));
    expect(spawned).toHaveLength(1);
    const pid = spawned[0]!;

    process.kill(pid, 'SIGKILL');
    await vi.waitFor(
      async () => expect((await d.api('GET', '/api/mcp/servers/victim')).body.status).toBe('error'),
      { timeout: 10_000, interval: 50 },
    );
    const record = (await d.api('GET', '/api/mcp/servers/victim')).body;
    expect(record.lastError).toContain('killed by SIGKILL');
    expect(record.serverInfo).toBeUndefined();

    const executed = await echo(d, 'victim', 'back to life');
    expect(executed.status).toBe(200);
    expect(textOf(executed.body.result)).toBe('Echo: back to life');
    expect((await d.api('GET', '/api/mcp/servers/victim')).body).toMatchObject({ status: 'connected' });
    const respawned = childPids(EVERYTHING).filter((p) => !before.has(p));
    expect(respawned).toHaveLength(1);
    expect(respawned[0]).not.toBe(pid);
    expect(isAlive(pid)).toBe(false);
  });
});

async function startStreamableHttpOn(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  await waitForHttp(`http://127.0.0.1:${port}/mcp`);
  return child;
}

describe('a Streamable HTTP server restarted on the same port', () => {
  it('is reached again by the call after the first failure', async () => {
    const port = await freePort();
    let server = await startStreamableHttpOn(port);
    onTestFinished(() => stopProcess(server));
    const d = await startDaemon();
    onTestFinished(() => d.close());
    await d.api('PUT', '/api/mcp/servers/restarted', {
      config: { transport: 'http', url: `http://127.0.0.1:${port}/mcp` },
    });
    expect((await echo(d, 'restarted', 'before')).status).toBe(200);

    await stopProcess(server);
    server = await startStreamableHttpOn(port);

    // The old session is gone: the first call may fail (502) and drops the connection...
    const first = await echo(d, 'restarted', 'first');
    if (first.status !== 200) {
      expect(first.status).toBe(502);
      expect(first.body.mcpError.message).toMatch(/^The connection to the server was lost during the call: /);
      expect((await d.api('GET', '/api/mcp/servers/restarted')).body.status).toBe('error');
    }
    // ...and the next one opens a new session.
    const next = await echo(d, 'restarted', 'after restart');
    expect(next.status).toBe(200);
    expect(textOf(next.body.result)).toBe('Echo: after restart');
    expect((await d.api('GET', '/api/mcp/servers/restarted')).body.status).toBe('connected');
  });
});
