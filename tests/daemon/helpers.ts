import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { type IncomingHttpHeaders, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDaemon, type Daemon } from '../../daemon/app.ts';
import { type DaemonOptions, defaultOptions } from '../../daemon/options.ts';
import { expect } from 'vitest';
import type { ServerConfig, StdioServerConfig } from '../../shared/servers.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FIXTURES = join(ROOT, 'tests/fixtures');
export const TSX_LOADER = ['--import', 'tsx'];
/**
 * The node arguments that run the daemon's command line from source (daemon/main.ts through tsx), as
 * `npm run daemon` does: tests never run a stale build. The packed bin is tested in tests/package.
 */
export const DAEMON_COMMAND = [...TSX_LOADER, join(ROOT, 'daemon/main.ts')];

export const everythingStdio = (): StdioServerConfig => ({
  transport: 'stdio',
  command: process.execPath,
  args: [EVERYTHING, 'stdio'],
});

/** A fixture server in tests/fixtures, run over STDIO through tsx. */
export const fixtureStdio = (file: string, env?: Record<string, string>): StdioServerConfig => ({
  transport: 'stdio',
  command: process.execPath,
  args: [...TSX_LOADER, join(FIXTURES, file)],
  cwd: ROOT,
  ...(env && { env }),
});

/** A fixture server in tests/fixtures as a `--stdio` value of the command line: node through tsx, paths quoted. */
export const fixtureStdioLine = (file: string): string =>
  `"${process.execPath}" --import tsx "${join(FIXTURES, file)}"`;

/**
 * tests/fixtures/modern-server.ts over STDIO: a server of `both` eras, or of the 2026-07-28 one only,
 * with the server's `era` setting and the fixture's environment when given.
 */
export const modernStdio = (
  mode: 'both' | 'modern' = 'both',
  { era, env }: { era?: ServerConfig['era']; env?: Record<string, string> } = {},
): StdioServerConfig => {
  const config = fixtureStdio('modern-server.ts', env);
  return { ...config, args: [...(config.args ?? []), mode], ...(era && { era }) };
};

/** Registers `config` as server `id` (which must be new) and connects it: the connect answer, whatever it is. */
export async function registerAndConnect(
  d: TestDaemon,
  id: string,
  config: ServerConfig,
): Promise<ApiResponse<any>> {
  const put = await d.api('PUT', `/api/mcp/servers/${id}`, { config });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
  return d.api('POST', `/api/mcp/servers/${id}/connect`);
}

export interface TestDaemon {
  daemon: Daemon;
  url: string;
  token: string;
  dataDir: string;
  /** JSON request with the token; returns status, parsed body and headers. */
  api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export interface ApiResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** A real daemon from the one factory, on an ephemeral port with its own data folder. */
export async function startDaemon(overrides: Partial<DaemonOptions> = {}): Promise<TestDaemon> {
  const dataDir = overrides.dataDir ?? (await mkdtemp(join(tmpdir(), 'inspector-test-')));
  const daemon = await createDaemon(
    defaultOptions({ port: 0, dataDir, token: 'test-token-0123456789abcdef', log: () => {}, ...overrides }),
  );
  const url = await daemon.listen();
  const token = daemon.token ?? '';
  let closed = false;
  return {
    daemon,
    url,
    token,
    dataDir,
    async api(method, path, body, headers = {}) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          ...(token && { 'X-Inspector-Token': token }),
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body: parsed as any, headers: response.headers };
    },
    async close() {
      if (closed) return;
      closed = true;
      await daemon.close();
      if (!overrides.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RunningProcess {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Waits until something accepts HTTP on the URL's origin. */
export async function waitForHttp(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(new URL('/', url), { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`nothing answered at ${url} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** server-everything over SSE (`/sse`) or Streamable HTTP (`/mcp`) on a free port. */
export async function startEverythingHttp(mode: 'sse' | 'streamableHttp'): Promise<RunningProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`;
  await waitForHttp(url);
  return { child, url, stop: () => stopProcess(child) };
}

export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Whether a process id is still alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * A request through node:http, which (unlike fetch) sends exactly the headers given, Host and Origin
 * included. A body given in parts goes after the headers, one part every 50 ms.
 */
export function rawRequest(
  url: string | URL,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer[] } = {},
): Promise<RawAnswer> {
  const { method = 'GET', headers = {}, body } = options;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (!Array.isArray(body)) return void req.end(body);
    req.flushHeaders();
    body.forEach((part, i) =>
      setTimeout(() => (i === body.length - 1 ? req.end(part) : req.write(part)), 50 * (i + 1)),
    );
  });
}

/** Child processes of this test process (the daemon runs in-process) whose command line has `marker`. */
export function childPids(marker: string): number[] {
  let out: string;
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there is no child at all
  }
  return out
    .split('\n')
    .filter((line) => line.includes(marker))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Logs a tool result `text` of server `serverId` straight on the daemon's log bus, as answer `id`. */
export function publishResult(d: TestDaemon, id: number, text: string, serverId = 's'): void {
  d.daemon.bus.publish({
    type: 'rpc',
    serverId,
    direction: 'receive',
    timestamp: new Date().toISOString(),
    message: { jsonrpc: '2.0', id, result: { text } },
  });
}
