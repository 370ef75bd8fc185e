import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { get, type IncomingMessage } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { type CommandLine, parseCommandLine } from '../../daemon/cli.ts';
import { readConfigFile } from '../../daemon/servers/config-file.ts';
import {
  DAEMON_COMMAND,
  EVERYTHING,
  everythingStdio,
  freePort,
  isAlive,
  ROOT,
  stopProcess,
} from './helpers.ts';

const WAIT_MS = 20_000;

interface Cli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match in the output once it appears. */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Environment without the variables the command line reads, so each test sets only its own. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'PORT',
    'HOST',
    'NODE_ENV',
    'INSPECTOR_TOKEN',
    'INSPECTOR_CONFIG',
    'INSPECTOR_DATA_DIR',
    'DESKTOP_APP',
    'IS_PACKAGED',
    'DESKTOP_RESOURCES_PATH',
  ])
    delete env[name];
  return { ...env, ...extra };
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inspector-cli-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function runCli(args: string[], env: Record<string, string> = {}): Cli {
  return runCommand(process.execPath, [...DAEMON_COMMAND, ...args], env);
}

/** Runs `command` with the command line's variables cleaned, and follows its output. */
function runCommand(command: string, args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => stopProcess(child));
  const output = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]?.setEncoding('utf8');
    child[stream]?.on('data', (text: string) => {
      output[stream] += text;
      for (const check of waiters) check();
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    exited,
    waitFor(stream, pattern) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${pattern} on ${stream} within ${WAIT_MS} ms; got:\n${output[stream]}`));
        }, WAIT_MS);
        const check = (): void => {
          const match = output[stream].match(pattern);
          if (!match) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(match);
        };
        waiters.add(check);
        check();
        exited.then(() => setTimeout(check, 50));
      });
    },
  };
}

const LISTENING = /^inspector-daemon listening on (http:\/\/127\.0\.0\.1:(\d+)) \((\w+)\)$/m;
const TOKEN = 'cli-token-0123456789abcdef';

/** Starts the daemon and waits for its listening and token lines. */
async function startCli(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Cli & { url: string; token: string }> {
  const dataDir = await tempDir();
  const cli = runCli(['--port', '0', '--data-dir', dataDir, ...args], env);
  const [, url = ''] = await cli.waitFor('stdout', LISTENING);
  const [, token = ''] = await cli.waitFor('stdout', /^token: (\S+)\n/m);
  return { ...cli, url, token };
}

/** The process ids whose parent is `pid`, with their command lines (Linux /proc). */
function childrenOf(pid: number): Array<{ pid: number; cmdline: string }> {
  const children: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== pid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      children.push({ pid: Number(entry), cmdline });
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}

/** One-line error: exactly one non-empty line on stderr, prefixed with the program name. */
function expectOneLineError(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim());
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^inspector-daemon: /);
  return lines[0] ?? '';
}

describe('command line start', () => {
  it('prints the listening line, the token and a pairing hint, and answers health there', async () => {
    const cli = await startCli();
    await cli.waitFor('stdout', /^Pair.*\n/m);
    const lines = cli.stdout().split('\n');
    expect(lines[0]).toMatch(LISTENING);
    expect(lines[0]).toMatch(/\(production\)$/);
    expect(lines[1]).toMatch(/^token: [0-9a-f]{64}$/);
    expect(lines[2]).toContain(cli.url);
    expect(lines[2]).toContain('X-Inspector-Token');
    const health = await fetch(`${cli.url}/api/mcp/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', mode: 'production' });
    const servers = await fetch(`${cli.url}/api/mcp/servers/`, {
      headers: { 'X-Inspector-Token': cli.token },
    });
    expect(servers.status).toBe(200);
  });

  it('honours the PORT environment variable', async () => {
    const port = await freePort();
    const dataDir = await tempDir();
    const cli = runCli(['--data-dir', dataDir], { PORT: String(port) });
    const [, , printed] = await cli.waitFor('stdout', LISTENING);
    expect(Number(printed)).toBe(port);
    expect((await fetch(`http://127.0.0.1:${port}/api/mcp/health`)).status).toBe(200);
  });

  it('prints (development) when NODE_ENV=development', async () => {
    const cli = await startCli([], { NODE_ENV: 'development' });
    expect(cli.stdout()).toMatch(
      /^inspector-daemon listening on http:\/\/127\.0\.0\.1:\d+ \(development\)$/m,
    );
    const health = (await (await fetch(`${cli.url}/api/mcp/health`)).json()) as { mode: string };
    expect(health.mode).toBe('development');
  });

  it('warns on stderr with --no-auth on loopback and needs no token', async () => {
    const dataDir = await tempDir();
    const cli = runCli(['--port', '0', '--data-dir', dataDir, '--no-auth']);
    const [, url] = await cli.waitFor('stdout', LISTENING);
    await cli.waitFor('stderr', /WARNING: --no-auth/);
    expect(cli.stderr()).not.toContain('INSPECTOR_TOKEN');
    expect(cli.stdout()).not.toMatch(/^token: /m);
    // Without a token, a caller shows where it comes from: the daemon's own origin here.
    expect((await fetch(`${url}/api/mcp/servers/`, { headers: { Origin: url as string } })).status).toBe(200);
    expect((await fetch(`${url}/api/mcp/servers/`)).status).toBe(403);
  });

  it('says with --no-auth that a token set in INSPECTOR_TOKEN is not used', async () => {
    const dataDir = await tempDir();
    const cli = runCli(['--port', '0', '--data-dir', dataDir, '--no-auth'], {
      INSPECTOR_TOKEN: 'a-token-of-enough-characters',
    });
    await cli.waitFor('stdout', LISTENING);
    await cli.waitFor('stderr', /WARNING: --no-auth: .* \(INSPECTOR_TOKEN is set, and not used\)$/m);
    expect(cli.stderr()).not.toContain('a-token-of-enough-characters');
  });

  it('prints the usage with --help and exits 0', async () => {
    const cli = runCli(['--help']);
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(cli.stdout()).toMatch(/^Usage: inspector-daemon /);
    for (const flag of ['--port', '--host', '--config', '--data-dir', '--token', '--no-auth'])
      expect(cli.stdout()).toContain(flag);
  });
});

describe('command line shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'exits 0 on %s and ends the MCP server child process',
    async (signal) => {
      const cli = await startCli();
      const api = (method: string, path: string, body?: unknown) =>
        fetch(`${cli.url}/api/mcp${path}`, {
          method,
          headers: { 'X-Inspector-Token': cli.token, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      expect((await api('PUT', '/servers/everything', { config: everythingStdio() })).status).toBe(201);
      const call = await api('POST', '/tools/execute', {
        serverId: 'everything',
        toolName: 'echo',
        parameters: { message: 'hi' },
      });
      expect(call.status).toBe(200);

      const daemonPid = cli.child.pid ?? 0;
      const mcpChildren = childrenOf(daemonPid).filter((c) => c.cmdline.includes(EVERYTHING));
      expect(mcpChildren).toHaveLength(1);
      const mcpPid = mcpChildren[0]?.pid ?? 0;
      expect(isAlive(mcpPid)).toBe(true);

      cli.child.kill(signal);
      expect(await cli.exited).toEqual({ code: 0, signal: null });
      expect(isAlive(mcpPid)).toBe(false);
    },
  );

  it('stops, MCP server included, when the shell npm started it under is gone', async () => {
    // npm start and npx run the daemon as `sh -c …`; a SIGTERM npm passes on ends only the shell (dash).
    const dataDir = await tempDir();
    const line = [
      process.execPath,
      ...DAEMON_COMMAND,
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--token',
      TOKEN,
    ];
    const shell = runCommand('sh', ['-c', line.map((arg) => `'${arg}'`).join(' ')], {
      npm_lifecycle_event: 'start',
    });
    const [, url = ''] = await shell.waitFor('stdout', LISTENING);
    const connect = await fetch(`${url}/api/mcp/servers/everything`, {
      method: 'PUT',
      headers: { 'X-Inspector-Token': TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify({ config: everythingStdio() }),
    });
    expect(connect.status).toBe(201);
    await fetch(`${url}/api/mcp/servers/everything/connect`, {
      method: 'POST',
      headers: { 'X-Inspector-Token': TOKEN },
    });
    const [daemon] = childrenOf(shell.child.pid ?? 0);
    expect(daemon?.cmdline).toContain('daemon/main.ts');
    const [server] = childrenOf(daemon?.pid ?? 0).filter((c) => c.cmdline.includes(EVERYTHING));
    expect(server).toBeDefined();

    shell.child.kill('SIGTERM');
    await shell.exited;
    await vi.waitFor(() => expect([daemon, server].filter((p) => isAlive(p?.pid ?? 0))).toEqual([]), {
      timeout: 10_000,
      interval: 100,
    });
  });
});

describe('command line errors', () => {
  it('names the port in one line and exits non-zero when the port is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const { port } = blocker.address() as { port: number };
    const dataDir = await tempDir();
    const cli = runCli(['--port', String(port), '--data-dir', dataDir]);
    const { code } = await cli.exited;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(expectOneLineError(cli.stderr())).toContain(`port ${port}`);
    // It let its data folder go: the next daemon there starts without a stale file to take over.
    await expect(readFile(join(dataDir, 'daemon.pid'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('refuses a second daemon on the same data folder, naming the first, and starts once it has stopped', async () => {
    const dataDir = await tempDir();
    const first = runCli(['--port', '0', '--data-dir', dataDir]);
    await first.waitFor('stdout', LISTENING);
    const second = runCli(['--port', '0', '--data-dir', dataDir]);
    expect((await second.exited).code).toBe(1);
    expect(expectOneLineError(second.stderr())).toBe(
      `inspector-daemon: another inspector-daemon (process ${first.child.pid}) is using the data folder ${dataDir}: stop it, or give this one a folder of its own with --data-dir (if none runs, delete ${join(dataDir, 'daemon.pid')})`,
    );
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    await expect(readFile(join(dataDir, 'daemon.pid'), 'utf8')).rejects.toThrow(/ENOENT/);
    const third = runCli(['--port', '0', '--data-dir', dataDir]);
    await third.waitFor('stdout', LISTENING);
  });

  it('names a data folder it cannot use, and the fix, where it blamed the port', async () => {
    const file = join(await tempDir(), 'a-file');
    await writeFile(file, 'not a folder');
    for (const dataDir of [file, join(file, 'sub')]) {
      const cli = runCli(['--port', '0', '--data-dir', dataDir]);
      expect((await cli.exited).code).toBe(1);
      expect(expectOneLineError(cli.stderr())).toBe(
        `inspector-daemon: cannot use the data folder ${dataDir}: a part of that path is a file, not a folder; give one this user can write with --data-dir (or INSPECTOR_DATA_DIR)`,
      );
    }
  });

  it('names a data folder the kernel will not make, where it spun at full CPU', async () => {
    // Node's own recursive mkdir loops for good on an ENOENT for a parent that exists, as /proc answers.
    const dataDir = '/proc/inspector-daemon-test/data';
    const cli = runCli(['--port', '0', '--data-dir', dataDir]);
    expect((await cli.exited).code).toBe(1);
    expect(expectOneLineError(cli.stderr())).toBe(
      `inspector-daemon: cannot use the data folder ${dataDir}: a folder on that path is missing and cannot be made; give one this user can write with --data-dir (or INSPECTOR_DATA_DIR)`,
    );
  });

  it('refuses an unknown flag with one line and exit code 2', async () => {
    const cli = runCli(['--frobnicate']);
    expect((await cli.exited).code).toBe(2);
    expect(expectOneLineError(cli.stderr())).toContain('--frobnicate');
  });

  it('refuses a port that is not a number', async () => {
    const cli = runCli(['--port', 'abc']);
    expect((await cli.exited).code).toBe(2);
    expect(expectOneLineError(cli.stderr())).toContain('--port');
  });

  it('refuses an unreadable --config file with one line and a non-zero exit', async () => {
    const dataDir = await tempDir();
    const missing = join(dataDir, 'no-such-config.json');
    const cli = runCli(['--port', '0', '--data-dir', dataDir, '--config', missing]);
    const { code } = await cli.exited;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(expectOneLineError(cli.stderr())).toBe(
      `inspector-daemon: --config ${missing}: no such file; check the path`,
    );
    expect(cli.stdout()).not.toMatch(LISTENING);
    expect(existsSync(join(dataDir, 'token'))).toBe(false);
  });

  it('names INSPECTOR_CONFIG when the file came from it', async () => {
    const dataDir = await tempDir();
    const config = join(dataDir, 'servers.json');
    await writeFile(config, '{ "mcpServers": { "a": { "command": "x" }, } }');
    const cli = runCli(['--port', '0', '--data-dir', dataDir], { INSPECTOR_CONFIG: config });
    expect((await cli.exited).code).toBe(1);
    expect(expectOneLineError(cli.stderr())).toBe(
      `inspector-daemon: INSPECTOR_CONFIG=${config}: not JSON at line 1, column 44 ` +
        '(Expected double-quoted property name); fix the file there',
    );
  });

  it('names the registry file and the fix when the data folder holds a broken one', async () => {
    const dataDir = await tempDir();
    const registry = join(dataDir, 'servers.json');
    await writeFile(registry, '{ "mcpServers": { "a": { "command": "x" }, } }');
    const cli = runCli(['--port', '0', '--data-dir', dataDir]);
    expect((await cli.exited).code).toBe(1);
    const line = expectOneLineError(cli.stderr());
    expect(line).toMatch(new RegExp(`^inspector-daemon: Cannot read the server registry ${registry}: `));
    expect(line).toMatch(/; fix the file there, or move it away to start with no servers$/);
  });

  it('says an option needs a value, without starting', async () => {
    const cli = runCli(['--port', '--data-dir', '/nonexistent']);
    expect((await cli.exited).code).toBe(2);
    expect(expectOneLineError(cli.stderr())).toBe('inspector-daemon: --port needs a number (see --help)');
  });

  it.each([
    [['--host', 'http://127.0.0.1:6274'], {}, '--host'],
    [[], { HOST: '127.0.0.1:6274' }, 'HOST'],
  ])('refuses a --host that is no address (%j %j) in one line naming %s', async (args, env, name) => {
    const cli = runCli(['--port', '0', ...args], env);
    expect((await cli.exited).code).toBe(2);
    expect(expectOneLineError(cli.stderr())).toMatch(
      new RegExp(`^inspector-daemon: ${name} must be an address to listen on, .*not "[^"]+": .*--port`),
    );
  });

  it('refuses --no-auth on a non-loopback address', async () => {
    const dataDir = await tempDir();
    const cli = runCli(['--port', '0', '--data-dir', dataDir, '--host', '0.0.0.0', '--no-auth']);
    const { code } = await cli.exited;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(expectOneLineError(cli.stderr())).toContain('--no-auth');
    expect(cli.stdout()).not.toMatch(LISTENING);
  });
});

describe('command line on all addresses', () => {
  it('prints a loopback address to pair with, and warns that other machines need --allowed-host', async () => {
    const dataDir = await tempDir();
    const cli = runCli(['--port', '0', '--data-dir', dataDir, '--host', '0.0.0.0', '--token', TOKEN]);
    const [, url] = await cli.waitFor(
      'stdout',
      /^inspector-daemon listening on (http:\/\/127\.0\.0\.1:\d+) \(production\), and on all addresses \(--host 0\.0\.0\.0\)$/m,
    );
    await cli.waitFor('stdout', /^Pair.*\n/m);
    expect(cli.stdout()).toContain(`enter ${url} and this token`);
    const warning = await cli.waitFor('stderr', /^inspector-daemon: WARNING: .*\n/m);
    expect(warning[0]).toContain('--allowed-host');
    expect(warning[0]).toContain(url);
    const servers = await fetch(`${url}/api/mcp/servers/`, { headers: { 'X-Inspector-Token': TOKEN } });
    expect(servers.status).toBe(200);
  });

  it('does not warn when --allowed-host names how others reach it', async () => {
    const dataDir = await tempDir();
    const cli = runCli([
      ...['--port', '0', '--data-dir', dataDir, '--host', '0.0.0.0', '--token', TOKEN],
      ...['--allowed-host', 'inspector.internal'],
    ]);
    await cli.waitFor('stdout', /^Pair.*\n/m);
    expect(cli.stderr()).toBe('');
  });
});

describe('parseCommandLine', () => {
  const parsed = (argv: string[], env: NodeJS.ProcessEnv = {}): CommandLine => {
    const result = parseCommandLine(argv, env);
    if (typeof result === 'string') throw new Error(`parsed as ${result}`);
    return result;
  };

  it.each([
    [['--port'], '--port needs a number'],
    [['--port', '--no-auth'], '--port needs a number'],
    [['--port='], '--port needs a number'],
    [['--host'], '--host needs an address'],
    [['--config', '--port', '0'], '--config needs a file'],
    [['--data-dir'], '--data-dir needs a folder'],
    [['--data-dir', ''], '--data-dir needs a folder'],
    [['--data-dir='], '--data-dir needs a folder'],
    [['--token', '-h'], '--token needs a value'],
    [['--allowed-host'], '--allowed-host needs a host name'],
    [['--max-message-mb'], '--max-message-mb needs a number'],
    [['--log-buffer-mb'], '--log-buffer-mb needs a number'],
    [['--frobnicate'], 'unknown option --frobnicate'],
    [['--no-auth=yes'], '--no-auth takes no value'],
    [['6274'], 'unexpected argument "6274"'],
    [['--port', '70000'], '--port must be a whole number from 0 to 65535, not "70000"'],
    [['--port', '-1'], '--port must be a whole number from 0 to 65535, not "-1"'],
    [['--log-buffer-mb', '-5'], '--log-buffer-mb must be a whole number from 4 to 16384, not "-5"'],
    [['--max-message-mb', '0'], '--max-message-mb must be a whole number from 1 to 512'],
    [['--log-buffer-mb', '2'], '--log-buffer-mb must be a whole number from 4 to 16384, not "2"'],
    [['--log-buffer-mb', '1.5'], '--log-buffer-mb must be a whole number from 4 to 16384, not "1.5"'],
    [['--token', 'short'], '--token must be at least 16 characters'],
    [['--no-auth', '--token', 'a-token-of-20-chars!'], '--no-auth and --token ask for opposite things'],
    [
      ['--allowed-host', 'http://myhost.example:8080/'],
      '--allowed-host must be a host name or address, such as myhost.local or 192.168.1.20, not "http://myhost.example:8080/": give the name alone, without scheme or port',
    ],
    [['--allowed-host', 'myhost.example:8080'], 'give the name alone, without scheme or port'],
  ])('%j: %s', (argv, message) => {
    expect(() => parseCommandLine(argv, {})).toThrow(message);
  });

  it('takes an empty INSPECTOR_DATA_DIR as unset, never as the current folder', () => {
    const env = { INSPECTOR_DATA_DIR: '', XDG_CONFIG_HOME: '/home/someone/.config' };
    expect(parsed([], env).options.dataDir).toBe('/home/someone/.config/inspector-daemon');
    expect(parsed([], { ...env, INSPECTOR_DATA_DIR: '/srv/inspector' }).options.dataDir).toBe(
      '/srv/inspector',
    );
  });

  it('names the environment variable a bad value came from', () => {
    expect(() => parseCommandLine([], { PORT: 'x' })).toThrow('PORT must be a whole number');
    expect(() => parseCommandLine([], { HOST: 'http://h' })).toThrow(/^HOST must be an address/);
    expect(() => parseCommandLine([], { INSPECTOR_TOKEN: 'short' })).toThrow('INSPECTOR_TOKEN must be');
  });

  it('takes IP addresses, [IPv6] and host names for --host', () => {
    expect(parsed(['--host', '::1']).options.host).toBe('::1');
    expect(parsed(['--host', '[::1]']).options.host).toBe('::1');
    expect(parsed(['--host', 'my-box.local']).options.host).toBe('my-box.local');
    expect(parsed([]).options.host).toBe('127.0.0.1');
  });

  it('sets maxMessageBytes from --max-message-mb, 64 MiB without it', () => {
    expect(parsed(['--max-message-mb', '128']).options.maxMessageBytes).toBe(128 * 1024 * 1024);
    expect(parsed([]).options.maxMessageBytes).toBe(64 * 1024 * 1024);
  });

  it('sets logBufferBytes from --log-buffer-mb, 128 MiB without it', () => {
    expect(parsed(['--log-buffer-mb', '512']).options.logBufferBytes).toBe(512 * 1024 * 1024);
    expect(parsed([]).options.logBufferBytes).toBe(128 * 1024 * 1024);
  });

  it('says where the config file was named', () => {
    expect(parsed(['--config', 'a.json']).configOrigin).toBe('--config');
    expect(parsed([], { INSPECTOR_CONFIG: 'b.json' })).toMatchObject({
      configOrigin: 'INSPECTOR_CONFIG',
      options: { configFile: 'b.json' },
    });
    expect(parsed([], { INSPECTOR_CONFIG: '' }).options.configFile).toBeUndefined();
  });
});

describe('config file messages', () => {
  async function problem(text: string, origin: '--config' | 'INSPECTOR_CONFIG' = '--config') {
    const file = join(await tempDir(), 'servers.json');
    await writeFile(file, text);
    const message = await readConfigFile(file, origin).then(
      () => 'no error',
      (error: Error) => error.message,
    );
    return message.replace(file, 'FILE');
  }

  it.each([
    ['', '--config FILE: the file is empty; write {"mcpServers": {…}} in it'],
    [
      '{\n  "mcpServers": {\n    "a": { "command": "x" }\n  }\n}\n}',
      '--config FILE: not JSON at line 6, column 1 (Unexpected non-whitespace character after JSON); fix the file there',
    ],
    [
      '{ "mcpServers": {\n  "a": { "args": [1, 2,] } } }',
      "--config FILE: not JSON at line 2, column 24 (Unexpected token ']'); fix the file there",
    ],
    [
      '[]',
      '--config FILE: expected an object with "mcpServers", found an array; the file needs {"mcpServers": {"<name>": {"command": …} or {"url": …}}}',
    ],
    [
      '{ "servers": {} }',
      '--config FILE: it has "servers" (VS Code\'s mcp.json) where "mcpServers" is expected; the file needs {"mcpServers": {"<name>": {"command": …} or {"url": …}}}',
    ],
    [
      '{ "mcpServers": { "ok": { "command": "x" }, "broken": { "cmd": "x" } } }',
      '--config FILE: wrong entries in mcpServers: "broken": needs either "command" (STDIO) or "url" (SSE, HTTP, WebSocket); fix or remove them',
    ],
    [
      '{ "mcpServers": { "a": { "command": 5 } } }',
      '--config FILE: wrong entries in mcpServers: "a": "command" must be a non-empty string (the program to start); fix or remove them',
    ],
    [
      '{ "mcpServers": { "remote": { "url": "ftp://example.com/mcp", "type": "http" } } }',
      '--config FILE: mcpServers.remote.url: must match pattern "^(https?|wss?)://"; fix or remove these entries',
    ],
  ])('%j', async (text, message) => {
    expect(await problem(text)).toBe(message);
  });

  it('reads a file with a byte order mark', async () => {
    expect(await problem('\uFEFF{ "mcpServers": { "a": { "command": "x" } } }')).toBe('no error');
  });

  it('says to unset INSPECTOR_CONFIG when the file it names is missing', async () => {
    const missing = join(await tempDir(), 'gone.json');
    await expect(readConfigFile(missing, 'INSPECTOR_CONFIG')).rejects.toThrow(
      `INSPECTOR_CONFIG=${missing}: no such file; check the path, or unset INSPECTOR_CONFIG`,
    );
  });
});

// SPEC part 1's desktop runtimes, as a desktop shell sets them for the daemon it embeds.
describe('desktop runtimes', () => {
  it('packaged: serves the web page bundled in <DESKTOP_RESOURCES_PATH>/client, on loopback', async () => {
    const resources = await tempDir();
    await mkdir(join(resources, 'client'));
    await writeFile(join(resources, 'client', 'index.html'), '<!doctype html><title>bundled page</title>');
    const cli = await startCli([], {
      DESKTOP_APP: 'true',
      IS_PACKAGED: 'true',
      DESKTOP_RESOURCES_PATH: resources,
    });
    expect(cli.stdout()).toMatch(/\(production\)$/m);
    const page = await fetch(`${cli.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('bundled page');
    // An unknown page path falls back to the page, as in web production.
    expect(await (await fetch(`${cli.url}/tools/echo`)).text()).toContain('bundled page');
  });

  it('packaged without DESKTOP_RESOURCES_PATH: a one-line error that names it, exit 2', async () => {
    const dataDir = await tempDir();
    const cli = runCli(['--port', '0', '--data-dir', dataDir], { DESKTOP_APP: 'true', IS_PACKAGED: 'true' });
    expect((await cli.exited).code).toBe(2);
    expect(expectOneLineError(cli.stderr())).toContain('DESKTOP_RESOURCES_PATH is not set');
  });

  it('unpackaged: development mode, page requests sent to the dev server, and only there', async () => {
    const cli = await startCli([], { DESKTOP_APP: 'true', IS_PACKAGED: 'false' });
    expect(cli.stdout()).toMatch(/\(development\)$/m);
    const page = await fetch(`${cli.url}/tools/echo?x=1`, { redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('http://localhost:5173/tools/echo?x=1');
    // A path that reads as another host stays on the dev server.
    const { port } = new URL(cli.url);
    const tricky = await new Promise<IncomingMessage>((resolve, reject) =>
      get({ host: '127.0.0.1', port, path: '//evil.example/x' }, resolve).on('error', reject),
    );
    tricky.resume();
    expect(tricky.statusCode).toBe(302);
    expect(tricky.headers.location).toBe('http://localhost:5173/x');
    // The API is the daemon's own.
    expect((await fetch(`${cli.url}/api/mcp/health`)).status).toBe(200);
  });

  it('reads nothing of it without DESKTOP_APP=true', () => {
    const parsed = parseCommandLine([], { IS_PACKAGED: 'true', DESKTOP_RESOURCES_PATH: '/x' }) as CommandLine;
    expect(parsed.options.mode).toBe('production');
    expect(parsed.options.staticDir).not.toContain('/x/client');
    expect(parsed.options.devServerUrl).toBeUndefined();
  });
});
