import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  FIXTURES,
  freePort,
  ROOT,
  startDaemon,
  stopProcess,
  TSX_LOADER,
  type TestDaemon,
} from './helpers.ts';
import { startModernHttp } from './modern-http.ts';

interface RemoteServer {
  child: ChildProcess;
  /** Resolves when the server has begun running a `wait` call. */
  callStarted: Promise<void>;
}

/** The remote fixture server in its own process on `port`, once it listens. */
async function startRemote(mode: 'http' | 'http-json' | 'sse', port: number): Promise<RemoteServer> {
  const child = spawn(
    process.execPath,
    [...TSX_LOADER, join(FIXTURES, 'remote-server.ts'), mode, String(port)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  onTestFinished(() => stopProcess(child));
  let output = '';
  const seen = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (output.includes(text)) resolve();
      };
      child.stdout?.on('data', check);
      child.once('exit', () => reject(new Error(`remote fixture exited before "${text}"`)));
      check();
    });
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    output += chunk;
  });
  await seen('listening on');
  return { child, callStarted: seen('wait: started') };
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

const wait = (d: TestDaemon, ms: number, progress = false) =>
  d.api('POST', '/api/mcp/tools/execute', {
    serverId: 'remote',
    toolName: 'wait',
    parameters: { ms, progress },
  });

/** Whether the daemon has received a progress notification, so the call's answer stream is open. */
const progressArrived = (d: TestDaemon): boolean =>
  d.daemon.bus
    .last(100)
    .some((e) => e.direction === 'receive' && e.message.method === 'notifications/progress');

describe.each([
  { name: 'Streamable HTTP', answers: 'an event stream', mode: 'http', progress: true },
  { name: 'Streamable HTTP', answers: 'JSON', mode: 'http-json', progress: false },
  { name: 'SSE', answers: 'its event stream', mode: 'sse', progress: true },
] as const)('a $name server answering with $answers that dies during a call', ({ mode, progress }) => {
  it('fails the call with 502, records the error, and is reached again once it is back', async () => {
    const port = await freePort();
    const server = await startRemote(mode, port);
    // Far longer than the test may run: only noticing the lost connection can end the call in time.
    const d = await startDaemon({ toolTimeoutMs: 120_000 });
    onTestFinished(() => d.close());
    const config =
      mode === 'sse'
        ? { transport: 'sse', url: `http://127.0.0.1:${port}/sse` }
        : { transport: 'http', url: `http://127.0.0.1:${port}/mcp` };
    expect((await d.api('PUT', '/api/mcp/servers/remote', { config })).status).toBe(201);
    expect((await d.api('POST', '/api/mcp/servers/remote/connect')).body.status).toBe('connected');

    const call = wait(d, 10 * 60_000, progress);
    await server.callStarted;
    if (progress) await vi.waitFor(() => expect(progressArrived(d)).toBe(true), { interval: 20 });
    await killed(server.child);

    const failed = await call;
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatch(/^The connection to the server was lost during the call: /);
    expect(failed.body.mcpError).toMatchObject({ code: 'CONNECTION_LOST', message: failed.body.error });
    const record = (await d.api('GET', '/api/mcp/servers/remote')).body;
    expect(record.status).toBe('error');
    expect(record.lastError).toMatch(
      /^The connection to the server was lost \(.+\); it is opened again on the next call\.$/,
    );

    await startRemote(mode, port);
    const next = await wait(d, 0);
    expect(next.status).toBe(200);
    expect(next.body.result.content[0].text).toBe('waited 0 ms');
    expect((await d.api('GET', '/api/mcp/servers/remote')).body.status).toBe('connected');
  });
});

describe('a 2026-07-28 server over Streamable HTTP that dies during a call', () => {
  it('is found lost by a server/discover probe (the modern era has no ping), failing the call with 502', async () => {
    const server = await startModernHttp();
    onTestFinished(() => server.stop());
    const d = await startDaemon({ toolTimeoutMs: 120_000 });
    onTestFinished(() => d.close());
    const config = { transport: 'http', url: server.url, era: 'modern' };
    expect((await d.api('PUT', '/api/mcp/servers/remote', { config })).status).toBe(201);
    expect((await d.api('POST', '/api/mcp/servers/remote/connect')).body.era).toBe('modern');

    const call = wait(d, 10 * 60_000, true);
    await vi.waitFor(() => expect(progressArrived(d)).toBe(true), { interval: 20 });
    await killed(server.child);

    const failed = await call;
    expect(failed.status).toBe(502);
    expect(failed.body.mcpError).toMatchObject({ code: 'CONNECTION_LOST' });
    const record = (await d.api('GET', '/api/mcp/servers/remote')).body;
    expect(record.status).toBe('error');
    expect(record.lastError).toMatch(/a server\/discover then failed/);
  });
});
