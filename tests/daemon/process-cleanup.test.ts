import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { StdioServerConfig } from '../../shared/servers.ts';
import {
  childPids,
  DAEMON_COMMAND,
  fixtureStdio,
  isAlive,
  ROOT,
  startDaemon,
  stopProcess,
  type TestDaemon,
} from './helpers.ts';

const TOKEN = 'process-cleanup-token-0123456789';
/** An ended process stays visible until it is reaped; the wait for that is bounded, never timed. */
const GONE = { timeout: 15_000, interval: 50 };

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inspector-cleanup-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The fixture server that starts a helper with its stdio ignored; the helper's pid goes to `pidFile`. */
const helperSpawning = (pidFile: string): StdioServerConfig =>
  fixtureStdio('helper-spawning-server.ts', { HELPER_PID_FILE: pidFile });

/** Kills what a failed test leaves behind. */
function reap(pids: number[]): void {
  onTestFinished(() => {
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
}

/** Connects the server through the API and returns its pid and its helper's pid, both alive. */
async function connectHelperServer(
  call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>,
  pidFile: string,
): Promise<{ server: number; helper: number }> {
  const executed = await call('POST', '/api/mcp/tools/execute', { serverId: 'spawner', toolName: 'pid' });
  expect(executed.status).toBe(200);
  const server = Number(executed.body.result.content[0].text);
  const helper = Number(await readFile(pidFile, 'utf8'));
  reap([helper, server]);
  expect(isAlive(server)).toBe(true);
  expect(isAlive(helper)).toBe(true);
  return { server, helper };
}

describe('a STDIO server that started a helper with its stdio ignored', () => {
  it.each([
    ['it is deleted', (d: TestDaemon) => d.api('DELETE', '/api/mcp/servers/spawner').then(() => {})],
    ['the daemon closes', (d: TestDaemon) => d.close()],
  ])('ends together with its helper when %s', async (_when, end) => {
    const pidFile = join(await tempDir(), 'helper.pid');
    const d = await startDaemon();
    onTestFinished(() => d.close());
    expect((await d.api('PUT', '/api/mcp/servers/spawner', { config: helperSpawning(pidFile) })).status).toBe(
      201,
    );
    const pids = await connectHelperServer((method, path, body) => d.api(method, path, body), pidFile);

    await end(d);
    await vi.waitFor(() => expect(isAlive(pids.server)).toBe(false), GONE);
    await vi.waitFor(() => expect(isAlive(pids.helper)).toBe(false), GONE);
  });
});

/** The real command line with its own data folder and token, importing `config`; resolves once it listens. */
async function startCli(config: unknown): Promise<{ child: ChildProcess; url: string }> {
  const dir = await tempDir();
  const configFile = join(dir, 'config.json');
  await writeFile(configFile, JSON.stringify(config));
  const child = spawn(
    process.execPath,
    [
      ...DAEMON_COMMAND,
      '--port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      '--token',
      TOKEN,
      '--config',
      configFile,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  onTestFinished(() => stopProcess(child));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (text: string) => {
      output += text;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the daemon exited with ${code}: ${output}`)));
  });
  return { child, url };
}

describe('the command line on SIGTERM', () => {
  it('ends a STDIO server and the helper it started with its stdio ignored', async () => {
    const pidFile = join(await tempDir(), 'helper.pid');
    const { command, args, env, cwd } = helperSpawning(pidFile);
    const cli = await startCli({ mcpServers: { spawner: { command, args, env, cwd } } });
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${cli.url}${path}`, {
        method,
        headers: { 'X-Inspector-Token': TOKEN, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    const pids = await connectHelperServer(call, pidFile);

    const exited = new Promise<number | null>((resolve) => cli.child.once('exit', (code) => resolve(code)));
    cli.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await vi.waitFor(() => expect(isAlive(pids.server)).toBe(false), GONE);
    await vi.waitFor(() => expect(isAlive(pids.helper)).toBe(false), GONE);
  });
});

describe('a server replaced by requests that come at once', () => {
  it('answers each PUT with its own record, and leaves no process once the server is deleted', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    const marker = `raced-${process.pid}-${Date.now()}`;
    const base = fixtureStdio('tools-server.ts');
    const put = (tag: string) =>
      d.api('PUT', '/api/mcp/servers/raced', {
        config: { ...base, args: [...(base.args ?? []), marker, tag] },
      });
    for (let round = 0; round < 6; round++) {
      const [a, b, , c] = await Promise.all([
        put('a'),
        put('b'),
        d.api('POST', '/api/mcp/servers/raced/connect'),
        put('c'),
      ]);
      expect([a, b, c].map((answer) => answer.status).sort()).toEqual([200, 200, 201]);
      expect([a, b, c].map((answer) => answer.body.config.args.at(-1))).toEqual(['a', 'b', 'c']);
      reap(childPids(marker));
      expect((await d.api('DELETE', '/api/mcp/servers/raced')).status).toBe(200);
      await vi.waitFor(() => expect(childPids(marker)).toEqual([]), GONE);
    }
  });
});
