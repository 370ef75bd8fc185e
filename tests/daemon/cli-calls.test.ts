/**
 * The command line's scripted calls (tools, resources, prompts, servers), run as a user runs them:
 * `node --import tsx daemon/main.ts COMMAND …` against server-everything over STDIO, and through a real
 * daemon process on an ephemeral port for --daemon.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  DAEMON_COMMAND,
  EVERYTHING,
  fixtureStdioLine,
  freePort,
  isAlive,
  ROOT,
  stopProcess,
} from './helpers.ts';

const WAIT_MS = 20_000;
const SECRET = 'sk-cli-secret-value-8d2f61';
/** server-everything over STDIO, as a --stdio value (paths quoted, split as a shell would). */
const EVERYTHING_LINE = `"${process.execPath}" "${EVERYTHING}" stdio`;
const EVERYTHING_ARGS = ['--stdio', EVERYTHING_LINE];
/** The tools fixture (chained elicitations, structuredContent that breaks its outputSchema) through tsx. */
const FIXTURE_ARGS = ['--stdio', fixtureStdioLine('tools-server.ts'), '--cwd', ROOT];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without the variables the command line reads, so each test sets only its own. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['INSPECTOR_TOKEN', 'INSPECTOR_CONFIG', 'INSPECTOR_DATA_DIR', 'PORT', 'HOST'])
    delete env[name];
  return { ...env, ...extra };
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inspector-calls-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Starts `inspector-daemon ARGS…` with its output piped (not a terminal). */
function start(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [...DAEMON_COMMAND, ...args], {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  return child;
}

/** Runs `inspector-daemon ARGS…` to its end. */
function inspector(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = start(args, env);
    onTestFinished(() => stopProcess(child));
    const run: Run = { code: null, stdout: '', stderr: '' };
    child.stdout?.on('data', (text: string) => (run.stdout += text));
    child.stderr?.on('data', (text: string) => (run.stderr += text));
    child.once('error', reject);
    child.once('close', (code) => resolve({ ...run, code }));
  });
}

/** Resolves once `pattern` shows in what `child` wrote to `stream`. */
function waitFor(
  child: ChildProcess,
  stream: 'stdout' | 'stderr',
  pattern: RegExp,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} on ${stream}; got:\n${text}`)), WAIT_MS);
    child[stream]?.on('data', function check(chunk: string) {
      text += chunk;
      const match = text.match(pattern);
      if (!match) return;
      clearTimeout(timer);
      child[stream]?.off('data', check);
      resolve(match);
    });
  });
}

const json = (run: Run): any => JSON.parse(run.stdout);
const texts = (result: { content?: Array<{ text?: string }> }): string =>
  (result.content ?? []).map((block) => block.text ?? '').join('\n');

/** A usage error: the message, then the hint naming the command's --help, and exit 2. */
function expectUsageError(run: Run, command: string, message: RegExp): void {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  const lines = run.stderr.split('\n').filter((line) => line.trim());
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(new RegExp(`^inspector-daemon ${command}: `));
  expect(lines[0]).toMatch(message);
  expect(lines[1]).toBe(`See \`inspector-daemon ${command} --help\`.`);
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
      children.push({
        pid: Number(entry),
        cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' '),
      });
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}

describe('scripted calls to a STDIO server', { timeout: 120_000 }, () => {
  it('lists tools as JSON when stdout is not a terminal', async () => {
    const run = await inspector(['tools', 'list', ...EVERYTHING_ARGS]);
    expect(run.code).toBe(0);
    const names = json(run).tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain('echo');
    expect(names).toContain('trigger-elicitation-request');
  });

  it('prints readable text with --pretty, and on a terminal without it; --json forces JSON there', async () => {
    const pretty = await inspector(['tools', 'list', '--pretty', ...EVERYTHING_ARGS]);
    expect(pretty.code).toBe(0);
    expect(pretty.stdout).toMatch(/^echo +Echoes back the input string$/m);
    expect(() => JSON.parse(pretty.stdout)).toThrow();

    // `script` runs the command with a pseudo-terminal as its stdout.
    const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
    const line = [
      process.execPath,
      ...DAEMON_COMMAND,
      'tools',
      'call',
      'echo',
      '--arg',
      'message=hi',
      ...EVERYTHING_ARGS,
    ];
    const onTerminal = (extra: string[]) =>
      new Promise<Run>((resolve, reject) => {
        const child = spawn('script', ['-qec', [...line, ...extra].map(quote).join(' '), '/dev/null'], {
          cwd: ROOT,
          env: cleanEnv(),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        onTestFinished(() => stopProcess(child));
        let stdout = '';
        child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, stdout: stdout.replace(/\r\n/g, '\n'), stderr: '' }));
      });
    const readable = await onTerminal([]);
    expect(readable.code).toBe(0);
    expect(readable.stdout.trim()).toBe('Echo: hi');
    const forced = await onTerminal(['--json']);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
  });

  it('calls a tool with --args and --arg, and exits 0', async () => {
    const run = await inspector([
      'tools',
      'call',
      'get-sum',
      '--args',
      '{"a":2}',
      '--arg',
      'b=40',
      ...EVERYTHING_ARGS,
    ]);
    expect(run.code).toBe(0);
    expect(texts(json(run))).toBe('The sum of 2 and 40 is 42.');
    expect(run.stderr).toBe('');
  });

  it('gives up on a call after --timeout seconds, saying the server did not answer in time', async () => {
    const run = await inspector([
      'tools',
      'call',
      'slow',
      '--arg',
      'ms=60000',
      '--timeout',
      '.5',
      ...FIXTURE_ARGS,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'inspector-daemon tools: no answer from the server in time: the call timed out (-32001)\n',
    );
    const bad = await inspector(['tools', 'call', 'slow', '--timeout', 'soon', ...FIXTURE_ARGS]);
    expectUsageError(
      bad,
      'tools',
      /--timeout must be a number of seconds above 0, at most 86400, not "soon"/,
    );
  });

  it('keeps a call that reports progress within --timeout, and holds a read and a prompt to it too', async () => {
    // 2.5 s of work, progress every 0.3 s: each report starts the 1 s time-out again.
    const working = await inspector([
      'tools',
      'call',
      'slow',
      '--args',
      '{"ms": 2500, "progressEveryMs": 300}',
      '--timeout',
      '1',
      ...FIXTURE_ARGS,
    ]);
    expect(working.stderr).toBe('');
    expect(working.code).toBe(0);
    const slowArgs = ['--stdio', fixtureStdioLine('slow-server.ts'), '--cwd', ROOT, '--timeout', '1'];
    for (const args of [
      ['resources', 'read', 'slow://wait'],
      ['prompts', 'get', 'wait'],
    ]) {
      // Without --timeout here, each would wait the SDK's 60 s, past this test's own time limit.
      const run = await inspector([...args, ...slowArgs]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/timed out/);
    }
  });

  it('prints a tool result with isError and exits 1', async () => {
    const run = await inspector(['tools', 'call', 'get-sum', '--args', '{"a":1}', ...EVERYTHING_ARGS]);
    expect(run.code).toBe(1);
    const result = json(run);
    expect(result.isError).toBe(true);
    expect(texts(result)).toMatch(/Invalid arguments for tool get-sum/);
    expect(run.stderr).toMatch(/^inspector-daemon tools: "get-sum" returned an error result \(isError\)$/m);
  });

  it('lists and reads resources; a resource the server does not have exits 1', async () => {
    const [list, read, missing] = await Promise.all([
      inspector(['resources', 'list', ...EVERYTHING_ARGS]),
      inspector([
        'resources',
        'read',
        'demo://resource/static/document/features.md',
        '--pretty',
        ...EVERYTHING_ARGS,
      ]),
      inspector(['resources', 'read', 'demo://no/such/thing', ...EVERYTHING_ARGS]),
    ]);
    expect(list.code).toBe(0);
    expect(json(list).resources.map((r: { uri: string }) => r.uri)).toContain(
      'demo://resource/static/document/features.md',
    );
    expect(read.code).toBe(0);
    expect(read.stdout).toMatch(/^demo:\/\/resource\/static\/document\/features\.md \(text\/markdown\)\n# /);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trim()).toMatch(
      /^inspector-daemon resources: the server answered error -?\d+: .*not found/,
    );
  });

  it('lists prompts and gets one with its arguments', async () => {
    const [list, get, readable] = await Promise.all([
      inspector(['prompts', 'list', ...EVERYTHING_ARGS]),
      inspector(['prompts', 'get', 'args-prompt', '--arg', 'city=Paris', ...EVERYTHING_ARGS]),
      inspector([
        'prompts',
        'get',
        'args-prompt',
        '--args',
        '{"city":"Oslo"}',
        '--pretty',
        ...EVERYTHING_ARGS,
      ]),
    ]);
    expect(list.code).toBe(0);
    expect(json(list).prompts.map((p: { name: string }) => p.name)).toContain('args-prompt');
    expect(get.code).toBe(0);
    expect(json(get).messages[0].content.text).toContain('Paris');
    expect(readable.code).toBe(0);
    expect(readable.stdout).toMatch(/^user: .*Oslo/m);
  });

  it('answers an elicitation from --answer, and declines one when none is left', async () => {
    const call = ['tools', 'call', 'trigger-elicitation-request', ...EVERYTHING_ARGS];
    const [accepted, unanswered] = await Promise.all([
      inspector([...call, '--answer', '{"action":"accept","content":{"name":"Ada Lovelace"}}']),
      inspector(call),
    ]);
    expect(accepted.code).toBe(0);
    expect(texts(json(accepted))).toContain('Name: Ada Lovelace');
    // The question is told, and which fields the answer filled, never their values.
    expect(accepted.stderr).toMatch(
      /^elicitation: the server asks ".*" \(fields: name, .*\); answered accept with name$/m,
    );
    expect(accepted.stderr).not.toContain('Ada Lovelace');
    expect(unanswered.code).toBe(0);
    expect(texts(json(unanswered))).toMatch(/declined/);
    expect(unanswered.stderr).toMatch(/answered decline \(no --answer left for it\)/);
  });

  it('takes answers from a file and from the line in order, for a call that asks twice', async () => {
    const dir = await tempDir();
    const file = join(dir, 'answers.json');
    await writeFile(file, JSON.stringify([{ action: 'accept', content: { answer: 'one' } }]));
    const twice = ['tools', 'call', 'elicit-twice', ...FIXTURE_ARGS];
    const [both, one] = await Promise.all([
      inspector([...twice, '--answer', file, '--answer', '{"action":"cancel"}']),
      inspector([...twice, '--answer', file]),
    ]);
    expect(both.code).toBe(0);
    expect(texts(json(both))).toBe('first: accept {"answer":"one"}; second: cancel');
    expect(one.code).toBe(0);
    expect(texts(json(one))).toBe('first: accept {"answer":"one"}; second: decline');
  });

  it("passes a tool's result through as the server sent it, structuredContent that breaks its schema included", async () => {
    const run = await inspector(['tools', 'call', 'bad-structured', ...FIXTURE_ARGS]);
    expect(run.code).toBe(0);
    expect(json(run)).toEqual({
      content: [{ type: 'text', text: 'many' }],
      structuredContent: { count: 'many' },
    });
  });

  it('prints a 2026-07-28 result that breaks the schema as the server sent it, and exits 1 saying what is wrong', async () => {
    const modern = fixtureStdioLine('modern-server.ts');
    const run = await inspector(['tools', 'call', 'broken', '--stdio', modern, '--cwd', ROOT]);
    expect(run.code).toBe(1);
    expect(json(run).content).toEqual([
      { type: 'text', text: 'before the broken block' },
      expect.objectContaining({ type: 'hologram' }),
    ]);
    expect(run.stderr.trim()).toMatch(
      /^inspector-daemon tools: "broken" returned a result that breaks the 2026-07-28 schema: content\.1\.type: /,
    );
  });

  it('exits 3 when the server cannot be started or reached', async () => {
    const port = await freePort();
    const [command, url] = await Promise.all([
      inspector(['tools', 'list', '--stdio', 'no-such-command-for-inspector --flag']),
      inspector(['tools', 'list', '--url', `http://127.0.0.1:${port}/mcp`]),
    ]);
    expect(command.code).toBe(3);
    expect(command.stdout).toBe('');
    expect(command.stderr.trim()).toMatch(
      /^inspector-daemon tools: cannot connect to the --stdio server: .*no-such-command-for-inspector/,
    );
    expect(url.code).toBe(3);
    expect(url.stderr.trim()).toMatch(/^inspector-daemon tools: cannot connect to the --url server: /);
  });

  it('exits 2 with one line and a hint for a usage error', async () => {
    const [noAction, badAction, noServer, unknown, noName, badArgs, badAnswer, both, command] =
      await Promise.all([
        inspector(['tools']),
        inspector(['resources', 'write', ...EVERYTHING_ARGS]),
        inspector(['prompts', 'list']),
        inspector(['tools', 'list', '--bogus', ...EVERYTHING_ARGS]),
        inspector(['tools', 'call', ...EVERYTHING_ARGS]),
        inspector(['tools', 'call', 'echo', '--args', '{nope', ...EVERYTHING_ARGS]),
        inspector(['tools', 'call', 'echo', '--answer', '{"action":"maybe"}', ...EVERYTHING_ARGS]),
        inspector(['tools', 'list', '--stdio', 'x', '--url', 'http://127.0.0.1:1/mcp']),
        inspector(['frobnicate']),
      ]);
    expectUsageError(noAction, 'tools', /tools needs list or call/);
    expectUsageError(badAction, 'resources', /resources has no "write": use list or read/);
    expectUsageError(
      noServer,
      'prompts',
      /name the server with --server ID, --stdio "command args" or --url URL/,
    );
    expectUsageError(unknown, 'tools', /unknown option --bogus/);
    expectUsageError(noName, 'tools', /tools call needs the tool name/);
    expectUsageError(badArgs, 'tools', /--args is not JSON/);
    expectUsageError(badAnswer, 'tools', /--answer: each answer is \{"action":"accept"\|"decline"\|"cancel"/);
    expectUsageError(both, 'tools', /give --stdio or --url, not both/);
    expect(command.code).toBe(2);
    expect(command.stderr.trim()).toBe('inspector-daemon: unknown command "frobnicate" (see --help)');
    // Nested too deep for a daemon to take, they are refused here as well, before any server starts.
    const deep = `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const tooDeep = await inspector(['tools', 'call', 'echo', '--args', deep, ...EVERYTHING_ARGS]);
    expectUsageError(tooDeep, 'tools', /--args nests objects and arrays more than 255 levels deep/);
  });

  it("prints each command's usage with --help and exits 0", async () => {
    const runs = await Promise.all(
      ['tools', 'resources', 'prompts', 'servers'].map((command) => inspector([command, '--help'])),
    );
    for (const [i, command] of ['tools', 'resources', 'prompts', 'servers'].entries()) {
      const run = runs[i] as Run;
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: inspector-daemon ${command} list`));
      expect(run.stderr).toBe('');
    }
    expect(runs[0]?.stdout).toContain('--answer JSON|FILE');
    expect(runs[0]?.stdout).toMatch(/Exit codes: 0 ok, 1 .*, 2 usage, 3 no connection/);
  });

  it('never prints an env value, in the result or in the JSON-RPC log of --verbose', async () => {
    const run = await inspector([
      'tools',
      'call',
      'get-env',
      '--verbose',
      '--env',
      `API_KEY=${SECRET}`,
      ...EVERYTHING_ARGS,
    ]);
    expect(run.code).toBe(0);
    // get-env answers the server's environment: the key is there, its value replaced.
    expect(texts(json(run))).toMatch(/"API_KEY": "\*{8}"/);
    expect(run.stderr).toMatch(/\[receive\]/);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  });

  it('stops the STDIO server it started on Ctrl+C', async () => {
    const child = start([
      'tools',
      'call',
      'trigger-long-running-operation',
      '--args',
      '{"duration":120,"steps":4}',
      '--verbose',
      ...EVERYTHING_ARGS,
    ]);
    onTestFinished(() => stopProcess(child));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitFor(child, 'stderr', /\[send\] .*"tools\/call"/);
    const servers = childrenOf(child.pid ?? 0).filter((c) => c.cmdline.includes(EVERYTHING));
    expect(servers).toHaveLength(1);
    const serverPid = servers[0]?.pid ?? 0;
    let stderr = '';
    child.stderr?.on('data', (text: string) => (stderr += text));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(isAlive(serverPid)).toBe(false);
    const failures = stderr.split('\n').filter((line) => line.startsWith('inspector-daemon'));
    expect(failures).toEqual(['inspector-daemon tools: interrupted (SIGINT)']);
  });

  it('ends quietly when the reader of its output has gone (| true), with no stack trace', async () => {
    const child = start(['tools', 'list', ...EVERYTHING_ARGS]);
    onTestFinished(() => stopProcess(child));
    // The reader closes before anything is written: every write fails with EPIPE.
    child.stdout?.destroy();
    let stderr = '';
    child.stderr?.on('data', (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(childrenOf(child.pid ?? 0)).toEqual([]);
  });

  it('stops the STDIO server on Ctrl+C while it is still starting', async () => {
    // It never answers the handshake: the command is still connecting when the signal comes.
    const child = start(['tools', 'list', '--stdio', fixtureStdioLine('silent-server.ts'), '--cwd', ROOT]);
    onTestFinished(() => stopProcess(child));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const server = await vi.waitFor(
      () => {
        const found = childrenOf(child.pid ?? 0).find((c) => c.cmdline.includes('silent-server'));
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: WAIT_MS, interval: 50 },
    );
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    await vi.waitFor(() => expect(isAlive(server.pid)).toBe(false), { timeout: 5_000, interval: 50 });
  });
});

describe('the server registry and --config', { timeout: 120_000 }, () => {
  it('adds, lists, uses and removes a server of the registry file, secrets stored but never printed', async () => {
    const dataDir = await tempDir();
    const place = ['--data-dir', dataDir];
    const addEv = () =>
      inspector(['servers', 'add', 'ev', ...EVERYTHING_ARGS, '--env', `API_KEY=${SECRET}`, ...place]);
    const add = await addEv();
    expect(add.code).toBe(0);
    expect(json(add)).toMatchObject({
      id: 'ev',
      config: { transport: 'stdio', env: { API_KEY: '********' } },
    });

    const file = join(dataDir, 'servers.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toContain(SECRET);

    // A second server, of a path with a space: the columns line up and the path reads as one word.
    const spaced = await inspector([
      'servers',
      'add',
      'spaced-server',
      '--stdio',
      '"/opt/my tools/server" --flag',
      ...place,
    ]);
    expect(spaced.code).toBe(0);
    const list = await inspector(['servers', 'list', '--pretty', ...place]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ev {13}stdio {2}.*server-everything\/dist\/index\.js stdio$/m);
    expect(list.stdout).toMatch(/^spaced-server {2}stdio {2}"\/opt\/my tools\/server" --flag$/m);
    expect((await inspector(['servers', 'remove', 'spaced-server', ...place])).code).toBe(0);
    // Added again under its id, a server's earlier settings go: it says so.
    const readded = await addEv();
    expect(readded.code).toBe(0);
    expect(readded.stderr).toMatch(
      /^inspector-daemon servers: replaced "ev": its earlier settings \(.*\) are gone\n$/,
    );
    expect(readded.stderr).not.toContain(SECRET);

    const call = await inspector(['tools', 'call', 'get-env', '--server', 'ev', ...place]);
    expect(call.code).toBe(0);
    expect(texts(json(call))).toMatch(/"API_KEY": "\*{8}"/);
    for (const run of [add, list, call]) expect(run.stdout + run.stderr).not.toContain(SECRET);

    const remove = await inspector(['servers', 'remove', 'ev', ...place]);
    expect(remove.code).toBe(0);
    expect(json(remove)).toEqual({ removed: 'ev' });
    expect(await readFile(file, 'utf8')).not.toContain(SECRET);
    const [again, unknown] = await Promise.all([
      inspector(['servers', 'remove', 'ev', ...place]),
      inspector(['tools', 'list', '--server', 'ev', ...place]),
    ]);
    expectUsageError(again, 'servers', /no server "ev" in .*servers\.json/);
    expectUsageError(
      unknown,
      'tools',
      /no server "ev" in .*servers\.json: add it with `inspector-daemon servers add ev/,
    );
  });

  it('takes --server from an mcpServers --config file', async () => {
    const dir = await tempDir();
    const config = join(dir, 'mcp.json');
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { ev: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }),
    );
    const [run, missing] = await Promise.all([
      inspector(['prompts', 'list', '--config', config, '--server', 'ev']),
      inspector(['prompts', 'list', '--config', config, '--server', 'other']),
    ]);
    expect(run.code).toBe(0);
    expect(json(run).prompts.map((p: { name: string }) => p.name)).toContain('simple-prompt');
    expectUsageError(missing, 'prompts', /has no server "other" \(it has: ev\)/);
  });
});

describe('scripted calls through a running daemon', { timeout: 120_000 }, () => {
  let daemon: ChildProcess;
  let url = '';
  let dataDir = '';
  /** The daemon and its data folder: the token is read from the token file the daemon wrote there. */
  const at = () => ['--daemon', url, '--data-dir', dataDir];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'inspector-calls-daemon-'));
    daemon = start(['--port', '0', '--data-dir', dataDir]);
    [, url = ''] = await waitFor(daemon, 'stdout', /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  });

  afterAll(async () => {
    await stopProcess(daemon);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('adds a server to the daemon, lists it with its secret masked, and removes it', async () => {
    const add = await inspector([
      'servers',
      'add',
      'ev',
      ...EVERYTHING_ARGS,
      '--env',
      `API_KEY=${SECRET}`,
      ...at(),
    ]);
    expect(add.code).toBe(0);
    expect(json(add)).toMatchObject({
      id: 'ev',
      status: 'disconnected',
      config: { env: { API_KEY: '********' } },
    });

    const list = await inspector(['servers', 'list', ...at()]);
    expect(list.code).toBe(0);
    expect(json(list).servers.map((s: { id: string }) => s.id)).toEqual(['ev']);
    for (const run of [add, list]) expect(run.stdout + run.stderr).not.toContain(SECRET);

    const remove = await inspector(['servers', 'remove', 'ev', ...at()]);
    expect(remove.code).toBe(0);
    expect(json(await inspector(['servers', 'list', ...at()])).servers).toEqual([]);
  });

  it('lists and calls tools, reads resources and gets prompts of a daemon server', async () => {
    expect((await inspector(['servers', 'add', 'every', ...EVERYTHING_ARGS, ...at()])).code).toBe(0);
    const server = ['--server', 'every', ...at()];
    const tools = await inspector(['tools', 'list', ...server]);
    expect(tools.code).toBe(0);
    expect(json(tools).tools.map((t: { name: string }) => t.name)).toContain('echo');

    // One after another: the daemon runs one tool call at a time.
    const call = await inspector(['tools', 'call', 'echo', '--arg', 'message=through the daemon', ...server]);
    const failed = await inspector(['tools', 'call', 'get-sum', '--args', '{"a":1}', ...server]);
    const unknownTool = await inspector(['tools', 'call', 'no-such-tool', ...server]);
    const [resources, read, prompts, prompt] = await Promise.all([
      inspector(['resources', 'list', ...server]),
      inspector(['resources', 'read', 'demo://resource/static/document/features.md', ...server]),
      inspector(['prompts', 'list', ...server]),
      inspector(['prompts', 'get', 'args-prompt', '--arg', 'city=Lima', ...server]),
    ]);
    expect(call.code).toBe(0);
    expect(texts(json(call))).toBe('Echo: through the daemon');
    expect(failed.code).toBe(1);
    expect(json(failed).isError).toBe(true);
    // The daemon refuses a tool the server does not list (404): an error of the server's, exit 1.
    expect(unknownTool.code).toBe(1);
    expect(unknownTool.stderr.trim()).toBe(
      'inspector-daemon tools: Unknown tool "no-such-tool" on server "every"',
    );
    expect(resources.code).toBe(0);
    expect(json(resources).resources.length).toBeGreaterThan(0);
    expect(read.code).toBe(0);
    expect(json(read).contents[0].text).toMatch(/^# /);
    expect(prompts.code).toBe(0);
    expect(json(prompts).prompts.map((p: { name: string }) => p.name)).toContain('args-prompt');
    expect(prompt.code).toBe(0);
    expect(json(prompt).messages[0].content.text).toContain('Lima');
  });

  it("warns that a change to the file of a running daemon's folder is not what it serves", async () => {
    const run = await inspector(['servers', 'add', 'on-file', ...EVERYTHING_ARGS, '--data-dir', dataDir]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^inspector-daemon servers: a daemon \(process \d+\) runs with .*: it does not read this change, .* add --daemon URL\n$/,
    );
  });

  it('says which call a busy daemon is running, and how to end it (exit 3)', async () => {
    expect((await inspector(['servers', 'add', 'busy', ...FIXTURE_ARGS, ...at()])).code).toBe(0);
    const server = ['--server', 'busy', ...at()];
    const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
    const activeCall = async () =>
      (
        (await (
          await fetch(`${url}/api/mcp/tools/active`, { headers: { 'X-Inspector-Token': token } })
        ).json()) as {
          activeExecution: { id: string; toolName: string } | null;
        }
      ).activeExecution;
    const long = inspector(['tools', 'call', 'slow', '--arg', 'ms=60000', ...server]);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await activeCall())?.toolName !== 'slow') {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const refused = await inspector(['tools', 'call', 'ping', ...server]);
    expect(refused.code).toBe(3);
    expect(refused.stderr.trim()).toBe(
      'inspector-daemon tools: the daemon is running another call, "slow" of "busy": ' +
        'wait for it to end, or cancel it in the panel (or POST /api/mcp/tools/cancel)',
    );
    await fetch(`${url}/api/mcp/tools/cancel`, {
      method: 'POST',
      headers: { 'X-Inspector-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ executionId: (await activeCall())?.id }),
    });
    expect((await long).code).toBe(1);
  });

  it("passes a tool's result through the daemon as the server sent it", async () => {
    expect((await inspector(['servers', 'add', 'fixture', ...FIXTURE_ARGS, ...at()])).code).toBe(0);
    // The daemon lists the tools before it calls one: the SDK client would then check structuredContent.
    const run = await inspector(['tools', 'call', 'bad-structured', '--server', 'fixture', ...at()]);
    expect(run.code).toBe(0);
    expect(json(run).structuredContent).toEqual({ count: 'many' });
  });

  it('answers an elicitation during a daemon call from --answer', async () => {
    expect((await inspector(['servers', 'add', 'asks', ...EVERYTHING_ARGS, ...at()])).code).toBe(0);
    const run = await inspector([
      'tools',
      'call',
      'trigger-elicitation-request',
      '--server',
      'asks',
      '--answer',
      '{"action":"accept","content":{"name":"Grace Hopper"}}',
      ...at(),
    ]);
    expect(run.code).toBe(0);
    expect(texts(json(run))).toContain('Name: Grace Hopper');
    expect(run.stderr).toMatch(/answered accept with name/);
  });

  it('cancels its call in the daemon on Ctrl+C, so the next call is not refused as busy', async () => {
    const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
    const active = async () =>
      (
        (await (
          await fetch(`${url}/api/mcp/tools/active`, { headers: { 'X-Inspector-Token': token } })
        ).json()) as { activeExecution: { toolName: string } | null }
      ).activeExecution;
    const child = start(['tools', 'call', 'slow', '--args', '{"ms":60000}', '--server', 'fixture', ...at()]);
    onTestFinished(() => stopProcess(child));
    let stderr = '';
    child.stderr?.on('data', (text: string) => (stderr += text));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await vi.waitFor(async () => expect((await active())?.toolName).toBe('slow'), {
      timeout: WAIT_MS,
      interval: 50,
    });
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    // It says so, as it does without a daemon.
    expect(stderr).toBe('inspector-daemon tools: interrupted (SIGINT)\n');
    await vi.waitFor(async () => expect(await active()).toBeNull(), { timeout: 5_000, interval: 50 });
    const next = await inspector(['tools', 'call', 'ping', '--server', 'fixture', ...at()]);
    expect(next.code).toBe(0);
  });

  it('exits 2 for a server the daemon does not have, 3 for a refused token or no daemon', async () => {
    const port = await freePort();
    const [unknown, token, nobody] = await Promise.all([
      inspector(['tools', 'list', '--server', 'nope', ...at()]),
      inspector(['tools', 'list', '--server', 'nope', '--daemon', url, '--token', 'wrong-token-0123456789']),
      inspector(['servers', 'list', '--daemon', `http://127.0.0.1:${port}`, '--token', 'x'.repeat(20)]),
    ]);
    expectUsageError(
      unknown,
      'tools',
      /the daemon at .* has no server "nope": add it with `inspector-daemon servers add nope/,
    );
    expect(token.code).toBe(3);
    expect(token.stderr.trim()).toMatch(
      /^inspector-daemon tools: the daemon at .* refused the token \(--token\)/,
    );
    expect(token.stderr).not.toContain('wrong-token-0123456789');
    expect(nobody.code).toBe(3);
    expect(nobody.stderr.trim()).toMatch(
      /^inspector-daemon servers: cannot reach the daemon at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    );
  });
});
