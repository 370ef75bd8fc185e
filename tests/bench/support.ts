/** What the benchmarks share: child processes that announce their address, the built daemon, statistics. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/**
 * The package's command, as `npx inspector-daemon` runs it: the compiled daemon, no tsx. BENCH_DAEMON_BIN
 * names another copy (a build of other code, to compare the two in turns).
 */
export const DAEMON_BIN = process.env.BENCH_DAEMON_BIN || join(ROOT, 'bin/inspector-daemon.js');
export const TOKEN = 'bench-token-0123456789abcdef';
export const JSON_HEADERS = { 'content-type': 'application/json', 'x-inspector-token': TOKEN };
/** server-everything over STDIO, as the daemon's registry and the SDK client both start it. */
export const EVERYTHING_STDIO = { command: process.execPath, args: [EVERYTHING, 'stdio'] };

/** Extra Node flags for the processes under test (`--cpu-prof …`), from BENCH_CHILD_NODE_ARGS. */
export const CHILD_NODE_ARGS = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

export function wholeNumber(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number from ${min}`);
  return value;
}

export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

export const median = (values: number[]): number => percentile(values, 0.5);

export function machine(): string {
  const model = cpus()[0]?.model.trim() || 'unknown CPU';
  const idle = cpuIdleDriver();
  return `${model}, ${availableParallelism()} cores, Node ${process.version}, ${process.platform} ${process.arch}${idle ? `, cpuidle ${idle}` : ''}`;
}

/**
 * Linux's cpuidle driver (`none` when the kernel has none): on a virtual machine without one an idle
 * core halts at once, and waking it for the next message costs far more (see the README's Benchmark).
 */
function cpuIdleDriver(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return readFileSync('/sys/devices/system/cpu/cpuidle/current_driver', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** User plus system CPU time a process has used so far, in ms (Linux /proc; NaN elsewhere). */
export function cpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of the whole line, in clock ticks (USER_HZ, 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

function cpuTimes(): { busy: number; total: number } | undefined {
  try {
    const fields =
      readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const total = fields.reduce((sum, value) => sum + value, 0);
    // idle and iowait are the fourth and fifth fields.
    return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/**
 * Starts watching how busy the whole machine is (Linux /proc/stat); the function returned says what
 * share of all cores was busy since, this bench's own processes included, or NaN where that is unknown.
 */
export function watchLoad(): () => number {
  const start = cpuTimes();
  return () => {
    const end = cpuTimes();
    if (!start || !end || end.total === start.total) return Number.NaN;
    return (end.busy - start.busy) / (end.total - start.total);
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Started {
  child: ChildProcess;
  /** The first capture group of `ready`, e.g. the URL of `listening on (…)`. */
  match: string;
  /** ms from spawn to the ready line. */
  readyMs: number;
}

/** Spawns a process and waits for a line matching `ready` on its stdout. */
export async function startChild(
  command: string,
  args: string[],
  options: { name: string; ready: RegExp; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number },
): Promise<Started> {
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  try {
    const match = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        output += chunk.toString('utf8');
        const found = options.ready.exec(output);
        if (found) {
          child.stdout?.off('data', onData);
          resolve(found[1] ?? found[0]);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`${options.name} exited with code ${code}:\n${output}`)));
      const seconds = (options.timeoutMs ?? 60_000) / 1000;
      setTimeout(
        () => reject(new Error(`${options.name} did not start within ${seconds} s:\n${output}`)),
        options.timeoutMs ?? 60_000,
      ).unref();
    });
    const readyMs = performance.now() - started;
    // Its output keeps flowing (peers log every request): read and drop it so the pipe never fills.
    child.stdout?.resume();
    child.stderr?.resume();
    return { child, match, readyMs };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

export interface RunningDaemon {
  child: ChildProcess;
  url: string;
  readyMs: number;
  close(): Promise<void>;
}

/** The compiled daemon in its own process with a fresh data folder; SIGTERM closes its MCP servers too. */
export async function startDaemon(nodeArgs: string[] = CHILD_NODE_ARGS): Promise<RunningDaemon> {
  const dataDir = await mkdtemp(join(tmpdir(), 'inspector-bench-'));
  try {
    const started = await startChild(
      process.execPath,
      [...nodeArgs, DAEMON_BIN, '--port', '0', '--data-dir', dataDir, '--token', TOKEN],
      { name: 'the daemon', ready: /listening on (http:\/\/\S+)/ },
    );
    return {
      child: started.child,
      url: started.match,
      readyMs: started.readyMs,
      async close() {
        await stopChild(started.child);
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

/**
 * Builds what the benchmarks run when it is missing or older than its sources: the compiled daemon
 * (dist/server) and the web page (dist/client). An up-to-date build is left alone, so a bench never
 * empties a folder that something else is using.
 */
export function ensureBuilt(): void {
  const sources = Math.max(newestMtime(join(ROOT, 'daemon')), newestMtime(join(ROOT, 'shared')));
  const server = join(ROOT, 'dist/server/daemon/main.js');
  if (!existsSync(server) || statSync(server).mtimeMs < sources) {
    console.log('building the daemon (npm run build:daemon)…');
    execFileSync('npm', ['run', '--silent', 'build:daemon'], { cwd: ROOT, stdio: 'inherit' });
  }
  const client = join(ROOT, 'dist/client/index.html');
  const clientSources = Math.max(sources, newestMtime(join(ROOT, 'extension')));
  if (!existsSync(client) || statSync(client).mtimeMs < clientSources) {
    console.log('building the web page (npm run build:web)…');
    execFileSync('npm', ['run', '--silent', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
  }
}
