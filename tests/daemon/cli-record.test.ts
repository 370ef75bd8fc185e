/**
 * `inspector-daemon record`, `replay` and `diff`, run as a user runs them (`node --import tsx
 * daemon/main.ts …`): a server-everything session recorded over STDIO and through a real daemon, the
 * recording served over STDIO and Streamable HTTP to the MCP SDK's client and compared with the live
 * server, a saved-request collection run against both, and a fixture server whose listings change with
 * FIXTURE_VERSION compared with its recording.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { lstat, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ListRootsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  DAEMON_COMMAND,
  EVERYTHING,
  everythingStdio,
  fixtureStdio,
  FIXTURES,
  freePort,
  ROOT,
  startDaemon,
  stopProcess,
  TSX_LOADER,
  type TestDaemon,
} from './helpers.ts';

const WAIT_MS = 30_000;
const SECRET = 'sk-recorded-secret-4f9c2e71';
const EVERYTHING_LINE = `"${process.execPath}" "${EVERYTHING}" stdio`;
const VERSIONED_LINE = `"${process.execPath}" ${TSX_LOADER.join(' ')} "${join(FIXTURES, 'versioned-server.ts')}"`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dir: string;
/** Every process started, stopped after each test (and after each beforeAll's group). */
const running = new Set<ChildProcess>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inspector-record-'));
});
afterEach(() => Promise.all([...running].map(stopProcess)));
afterAll(async () => {
  await Promise.all([...running].map(stopProcess));
  await rm(dir, { recursive: true, force: true });
});

function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'INSPECTOR_TOKEN',
    'INSPECTOR_CONFIG',
    'INSPECTOR_DATA_DIR',
    'PORT',
    'HOST',
    'NODE_ENV',
  ])
    delete env[name];
  return { ...env, INSPECTOR_DATA_DIR: join(dir, 'data') };
}

/** Starts `inspector-daemon ARGS…` with its output piped (not a terminal). */
function start(args: string[]): ChildProcess & { output: Run; exited: Promise<Run> } {
  const child = spawn(process.execPath, [...DAEMON_COMMAND, ...args], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const output: Run = { code: null, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output.stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output.stderr += text));
  const exited = new Promise<Run>((resolve) => child.once('close', (code) => resolve({ ...output, code })));
  return Object.assign(child, { output, exited });
}

/** Runs `inspector-daemon ARGS…` to its end. */
const inspector = (args: string[]): Promise<Run> => start(args).exited;

/** Resolves once `pattern` shows in what the process wrote to `stream`. */
async function waitFor(
  child: ReturnType<typeof start>,
  stream: 'stdout' | 'stderr',
  pattern: RegExp,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const match = child.output[stream].match(pattern);
    if (match) return match;
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no ${pattern} on ${stream}; got:\n${child.output.stdout}\n${child.output.stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * An MCP SDK client connected through `transport`, closed when the test ends. It declares what the
 * daemon's client declares: server-everything offers some tools only to clients that can sample or elicit.
 */
async function connect(transport: Transport): Promise<Client> {
  const client = new Client(
    { name: 'record-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

const replayOverStdio = (file: string): Promise<Client> =>
  connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...DAEMON_COMMAND, 'replay', file],
      cwd: ROOT,
      env: cleanEnv() as Record<string, string>,
      stderr: 'ignore',
    }),
  );

/** Starts `replay FILE --port N` on a free port; resolves with its URL. */
async function replayUrl(file: string): Promise<string> {
  const port = await freePort();
  const replay = start(['replay', file, '--port', String(port)]);
  const [url = ''] = await waitFor(replay, 'stdout', /http:\/\/127\.0\.0\.1:\d+\/mcp/);
  expect(url).toBe(`http://127.0.0.1:${port}/mcp`);
  return url;
}

const replayOverHttp = async (file: string): Promise<Client> =>
  connect(new StreamableHTTPClientTransport(new URL(await replayUrl(file))));

const live = (): Promise<Client> => {
  const { command, args = [] } = everythingStdio();
  return connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
};

/** The lines of a session file, parsed. */
async function sessionLines(file: string): Promise<Array<Record<string, any>>> {
  const text = await readFile(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

const sentMethods = (lines: Array<Record<string, any>>): string[] =>
  lines.filter((line) => line.direction === 'send' && line.message.method).map((line) => line.message.method);

/** The JSON-RPC error a call rejected with. */
async function rpcError(call: Promise<unknown>): Promise<McpError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('a recorded server-everything session', () => {
  let session: string;
  let recorded: Run;

  beforeAll(async () => {
    session = join(dir, 'everything.jsonl');
    recorded = await inspector([
      'record',
      '--stdio',
      EVERYTHING_LINE,
      '--env',
      `API_KEY=${SECRET}`,
      '--out',
      session,
      '--call',
      'echo',
      '--args',
      '{"message":"hello"}',
      '--call',
      'get-sum',
      '--args',
      '{"a":1,"b":2}',
      '--call',
      'get-env',
    ]);
  }, 60_000);

  it('is a header and one line per message, with the listings, the calls and no secret', async () => {
    expect(recorded.stderr).toBe('');
    expect(recorded.code).toBe(0);
    expect(recorded.stdout).toMatch(/^recorded \d+ messages of the --stdio server to .*everything\.jsonl\n$/);
    const [header, ...lines] = await sessionLines(session);
    expect(header).toMatchObject({
      type: 'session',
      version: 1,
      server: { serverInfo: { name: 'mcp-servers/everything' }, capabilities: { tools: {}, prompts: {} } },
    });
    expect(new Date(header!.recordedAt).getTime()).not.toBeNaN();
    for (const line of lines) expect(['send', 'receive', 'stderr', 'stdout']).toContain(line.direction);
    expect(sentMethods(lines)).toEqual(
      expect.arrayContaining(['initialize', 'tools/list', 'resources/list', 'prompts/list', 'tools/call']),
    );
    const calls = lines.filter((line) => line.direction === 'send' && line.message.method === 'tools/call');
    expect(calls.map((line) => line.message.params.name)).toEqual(['echo', 'get-sum', 'get-env']);
    const text = await readFile(session, 'utf8');
    expect(text).toContain('API_KEY');
    expect(text).not.toContain(SECRET);
  });

  it.each([
    ['STDIO', replayOverStdio],
    ['Streamable HTTP', replayOverHttp],
  ])('replays over %s with the live server’s answers to recorded requests', async (_name, replay) => {
    const [replayed, real] = await Promise.all([replay(session), live()]);
    expect(replayed.getServerVersion()).toEqual(real.getServerVersion());
    expect(replayed.getServerCapabilities()).toEqual(real.getServerCapabilities());
    expect(replayed.getInstructions()).toEqual(real.getInstructions());
    expect(await replayed.listTools()).toEqual(await real.listTools());
    expect(await replayed.listPrompts()).toEqual(await real.listPrompts());
    expect(await replayed.listResources()).toEqual(await real.listResources());
    for (const call of [
      { name: 'echo', arguments: { message: 'hello' } },
      { name: 'get-sum', arguments: { b: 2, a: 1 } },
    ]) {
      expect(await replayed.callTool(call)).toEqual(await real.callTool(call));
    }
    // The request id and _meta (a progress token) are not compared.
    const withMeta = await replayed.callTool({
      name: 'echo',
      arguments: { message: 'hello' },
      _meta: { progressToken: 'p-1' },
    });
    expect(withMeta).toEqual({ content: [{ type: 'text', text: 'Echo: hello' }] });
    await replayed.ping();
  });

  it.each([
    ['STDIO', replayOverStdio],
    ['Streamable HTTP', replayOverHttp],
  ])('answers a request that was not recorded over %s with an error naming it', async (_name, replay) => {
    const replayed = await replay(session);
    const otherArguments = await rpcError(replayed.callTool({ name: 'echo', arguments: { message: 'bye' } }));
    expect(otherArguments.code).toBe(-32602);
    expect(otherArguments.message).toMatch(/tools\/call was not recorded with these params/);
    expect(otherArguments.message).toContain('"message":"bye"');
    const otherMethod = await rpcError(replayed.getPrompt({ name: 'simple-prompt' }));
    expect(otherMethod.code).toBe(-32601);
    expect(otherMethod.message).toMatch(/prompts\/get was not recorded in .*everything\.jsonl/);
    // The server stays up: a recorded request still gets its answer.
    expect((await replayed.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('turns away a GET or DELETE over HTTP at once, so a legacy SSE client fails instead of waiting', async () => {
    const url = await replayUrl(session);
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(url, { method, headers: { Accept: 'text/event-stream' } });
      expect([method, response.status, response.headers.get('allow')]).toEqual([method, 405, 'POST']);
      expect(await response.text()).toMatch(/POSTed to \/mcp .*opens no SSE stream/);
    }
    // It used to open a stream and send nothing: the client waited for its endpoint event for good.
    const sse = new Client({ name: 'legacy', version: '1.0.0' });
    await expect(sse.connect(new SSEClientTransport(new URL(url)))).rejects.toThrow(/405/);
    // The Streamable HTTP client goes on without the stream it may ask for.
    const client = await connect(new StreamableHTTPClientTransport(new URL(url)));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('passes the same saved-request collection as the live server', async () => {
    const collection = join(dir, 'collection.json');
    await writeFile(
      collection,
      JSON.stringify({
        version: 1,
        serverId: 'everything',
        requests: [
          {
            title: 'Echo hello',
            toolName: 'echo',
            parameters: { message: 'hello' },
            expectations: [
              { kind: 'noError' },
              { kind: 'text', text: 'Echo: hello' },
              { kind: 'jsonPath', path: '$.content[0].text', op: 'equals', value: 'Echo: hello' },
            ],
          },
          {
            title: 'Sum',
            toolName: 'get-sum',
            parameters: { a: 1, b: 2 },
            expectations: [{ kind: 'text', text: '/is 3\\.$/' }],
          },
        ],
      }),
    );
    const replayLine = `"${process.execPath}" ${DAEMON_COMMAND.map((arg) => `"${arg}"`).join(' ')} replay "${session}"`;
    const [againstReplay, againstLive] = await Promise.all([
      inspector(['test', collection, '--stdio', replayLine, '--cwd', ROOT]),
      inspector(['test', collection, '--stdio', EVERYTHING_LINE]),
    ]);
    for (const run of [againstReplay, againstLive]) {
      expect(run.stdout).toMatch(/2 passed/);
      expect(run.code).toBe(0);
    }
    // And it can fail: a call that was not recorded does not pass against the replay.
    await writeFile(
      collection,
      JSON.stringify({
        version: 1,
        requests: [{ title: 'Echo bye', toolName: 'echo', parameters: { message: 'bye' } }],
      }),
    );
    const unrecorded = await inspector(['test', collection, '--stdio', replayLine, '--cwd', ROOT]);
    expect(unrecorded.code).toBe(4);
    expect(unrecorded.stdout + unrecorded.stderr).toMatch(/not recorded/);
  }, 90_000);

  it('is the same as the live server for diff (exit 0)', async () => {
    const same = await inspector(['diff', '--stdio', EVERYTHING_LINE, '--against', session, '--json']);
    expect(same.code).toBe(0);
    const report = JSON.parse(same.stdout);
    expect(report.same).toBe(true);
    expect(report.tools).toEqual({ added: [], removed: [], changed: [] });
  });
});

/** `record --daemon` of one of the daemon's servers, to `file`. */
const recordThrough = (daemon: TestDaemon, serverId: string, file: string, more: string[] = []) =>
  start([
    'record',
    '--daemon',
    daemon.url,
    '--token',
    daemon.token,
    '--server',
    serverId,
    ...more,
    '--out',
    file,
  ]);

describe('record through a daemon', () => {
  it('records the calls made in the panel until SIGTERM, then writes the file', async () => {
    const daemon = await startDaemon();
    onTestFinished(() => daemon.close());
    const put = await daemon.api('PUT', '/api/mcp/servers/ev', {
      config: { ...everythingStdio(), env: { API_KEY: SECRET } },
    });
    expect(put.status).toBeLessThan(300);
    const file = join(dir, 'through-daemon.jsonl');
    const recording = recordThrough(daemon, 'ev', file);
    await waitFor(recording, 'stderr', /Ctrl\+C to stop/);
    // A call made in the panel goes through the daemon's API.
    const call = await daemon.api('POST', '/api/mcp/servers/ev/tools/echo/call', {
      parameters: { message: 'from the panel' },
    });
    expect(call.status).toBe(200);
    const env = await daemon.api('POST', '/api/mcp/servers/ev/tools/get-env/call', { parameters: {} });
    expect(env.status).toBe(200);
    // The answers reach the log stream a moment after the API answers. The recording grows in a file
    // beside FILE, moved over it when stopped.
    const growing = async (): Promise<string> => {
      const name = (await readdir(dir)).find(
        (n) => n.startsWith('through-daemon.jsonl.') && n.endsWith('.tmp'),
      );
      return name ? readFile(join(dir, name), 'utf8') : '';
    };
    const deadline = Date.now() + WAIT_MS;
    while (!(await growing()).includes('get-env') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    recording.kill('SIGTERM');
    const done = await recording.exited;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^recorded \d+ messages of "ev" to .*through-daemon\.jsonl\n$/);

    const [header, ...lines] = await sessionLines(file);
    expect(header).toMatchObject({
      type: 'session',
      server: { name: 'ev', serverInfo: { name: 'mcp-servers/everything' } },
    });
    expect(sentMethods(lines)).toEqual(
      expect.arrayContaining(['tools/list', 'resources/list', 'prompts/list']),
    );
    const calls = lines.filter((line) => line.direction === 'send' && line.message.method === 'tools/call');
    expect(calls.map((line) => line.message.params)).toEqual([
      expect.objectContaining({ name: 'echo', arguments: { message: 'from the panel' } }),
      expect.objectContaining({ name: 'get-env' }),
    ]);
    expect(await readFile(file, 'utf8')).not.toContain(SECRET);

    // The daemon's server has not changed since: diff through the daemon finds nothing.
    const diff = await inspector([
      'diff',
      '--daemon',
      daemon.url,
      '--token',
      daemon.token,
      '--server',
      'ev',
      '--against',
      file,
    ]);
    expect(diff.code).toBe(0);
    expect(JSON.parse(diff.stdout)).toMatchObject({ same: true });

    const replayed = await replayOverStdio(file);
    expect(await replayed.callTool({ name: 'echo', arguments: { message: 'from the panel' } })).toEqual({
      content: [{ type: 'text', text: 'Echo: from the panel' }],
    });
  }, 60_000);
});

describe('record through a daemon, stopped during its --call', () => {
  it('cancels the call in the daemon and writes the file at the first Ctrl+C, and a second changes nothing', async () => {
    const daemon = await startDaemon();
    onTestFinished(() => daemon.close());
    const put = await daemon.api('PUT', '/api/mcp/servers/tools', {
      config: fixtureStdio('tools-server.ts'),
    });
    expect(put.status).toBeLessThan(300);
    const file = join(dir, 'stopped-call.jsonl');
    const recording = recordThrough(daemon, 'tools', file, ['--call', 'slow', '--args', '{"ms": 60000}']);
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      const active = (await daemon.api('GET', '/api/mcp/tools/active')).body.activeExecution;
      if (active?.toolName === 'slow') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    recording.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 100));
    recording.kill('SIGINT');
    const done = await recording.exited;
    expect(done.code).toBe(0);
    expect(done.stderr).not.toMatch(/Ctrl\+C to stop/);
    expect((await daemon.api('GET', '/api/mcp/tools/active')).body.activeExecution).toBeNull();
    const [header, ...lines] = await sessionLines(file);
    expect(header).toMatchObject({ type: 'session', server: { name: 'tools' } });
    expect(lines.some((line) => line.direction === 'send' && line.message.method === 'tools/call')).toBe(
      true,
    );
  }, 60_000);
});

describe('diff against a changed server', () => {
  let session: string;

  beforeAll(async () => {
    session = join(dir, 'versioned.jsonl');
    const run = await inspector(['record', '--stdio', VERSIONED_LINE, '--out', session]);
    expect(run.code).toBe(0);
  }, 60_000);

  it('names each tool, resource and prompt added, removed or changed, and the fields (exit 4)', async () => {
    const run = await inspector([
      'diff',
      '--stdio',
      VERSIONED_LINE,
      '--env',
      'FIXTURE_VERSION=2',
      '--against',
      session,
      '--json',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(4);
    expect(JSON.parse(run.stdout)).toEqual({
      same: false,
      tools: {
        added: ['multiply'],
        removed: ['legacy'],
        changed: [{ id: 'add', fields: ['description', 'inputSchema.properties.b.type'] }],
      },
      resources: {
        added: ['fixture://new'],
        removed: ['fixture://old'],
        changed: [{ id: 'fixture://readme', fields: ['mimeType'] }],
      },
      prompts: {
        added: ['farewell'],
        removed: [],
        changed: [{ id: 'greet', fields: ['arguments[name].required'] }],
      },
    });
  });

  it('says the same in readable lines with --pretty', async () => {
    const run = await inspector([
      'diff',
      '--stdio',
      VERSIONED_LINE,
      '--env',
      'FIXTURE_VERSION=2',
      '--against',
      session,
      '--pretty',
    ]);
    expect(run.code).toBe(4);
    expect(run.stdout.split('\n')).toEqual([
      '+ tool multiply: added',
      '- tool legacy: removed',
      '~ tool add: description, inputSchema.properties.b.type changed',
      '+ resource fixture://new: added',
      '- resource fixture://old: removed',
      '~ resource fixture://readme: mimeType changed',
      '+ prompt farewell: added',
      '~ prompt greet: arguments[name].required changed',
      '8 differences in tools, resources, prompts',
      '',
    ]);
  });

  it('exits 0 against the unchanged server', async () => {
    const run = await inspector(['diff', '--stdio', VERSIONED_LINE, '--against', session, '--pretty']);
    expect(run.stdout).toBe('no differences in tools, resources, prompts\n');
    expect(run.code).toBe(0);
  });
});

describe('bad input and exit codes', () => {
  it('exits 2 with one line for a missing or malformed session file', async () => {
    const missing = await inspector(['replay', join(dir, 'nowhere.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^inspector-daemon replay: .*nowhere\.jsonl: no such file\n/);

    const malformed = join(dir, 'malformed.jsonl');
    await writeFile(malformed, '{"type":"session","version":1,"server":{}}\n{"direction":"send",\n');
    const broken = await inspector(['diff', '--stdio', VERSIONED_LINE, '--against', malformed]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/malformed\.jsonl: line 2 is not JSON/);

    const notSession = join(dir, 'not-session.jsonl');
    await writeFile(notSession, '{"hello":"world"}\n');
    const wrong = await inspector(['replay', notSession]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/the first line is not a session header/);
    expect(wrong.stderr).not.toMatch(/\n\s+at /);

    // A header replay cannot answer initialize with: each field as an InitializeResult holds it.
    const badHeader = join(dir, 'bad-header.jsonl');
    await writeFile(badHeader, '{"type":"session","version":1,"server":{"capabilities":"all of them"}}\n');
    const refused = await inspector(['replay', badHeader]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/bad-header\.jsonl: the header's server\.capabilities is not an object/);

    // A line edited to nest deeper than any message the daemon passes on: one line naming it.
    const deep = join(dir, 'deep.jsonl');
    await writeFile(
      deep,
      '{"type":"session","version":1,"server":{}}\n' +
        `{"direction":"send","timestamp":"","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'['.repeat(20_000)}${']'.repeat(20_000)}}}\n`,
    );
    const tooDeep = await inspector(['replay', deep]);
    expect(tooDeep.code).toBe(2);
    expect(tooDeep.stderr).toMatch(/deep\.jsonl: line 2 nests objects and arrays more than 1025 levels deep/);

    // Too large to be read as one text: said so, with the limit (a sparse file, no disk is written).
    const big = join(dir, 'big.jsonl');
    await writeFile(big, '');
    await truncate(big, 600 * 1024 * 1024);
    const tooBig = await inspector(['replay', big]);
    expect(tooBig.code).toBe(2);
    expect(tooBig.stderr).toMatch(
      /big\.jsonl: 600 MiB, more than the 512 MiB a session file can be to be read/,
    );
    await rm(big);

    // A byte order mark before the header is read past.
    const marked = join(dir, 'marked.jsonl');
    await writeFile(
      marked,
      '\uFEFF{"type":"session","version":1,"server":{}}\n' +
        '{"direction":"send","timestamp":"","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}\n' +
        '{"direction":"receive","timestamp":"","message":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}\n',
    );
    const compared = await inspector(['diff', '--stdio', VERSIONED_LINE, '--against', marked]);
    expect(compared.stderr).toBe('');
    expect(compared.code).toBe(4);

    // A recorded listing diff cannot compare: an entry that is no tool, a list that is none.
    for (const [tools, said] of [
      ['[null]', /lists null \(entry 0\), not a tool with a "name"/],
      ['"not a list"', /has a "tools" that is no list/],
    ] as const) {
      const odd = join(dir, 'odd-listing.jsonl');
      await writeFile(
        odd,
        '{"type":"session","version":1,"server":{}}\n' +
          '{"direction":"send","timestamp":"","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}\n' +
          `{"direction":"receive","timestamp":"","message":{"jsonrpc":"2.0","id":1,"result":{"tools":${tools}}}}\n`,
      );
      const diff = await inspector(['diff', '--stdio', VERSIONED_LINE, '--against', odd]);
      expect(diff.code).toBe(2);
      expect(diff.stderr).toMatch(said);
      expect(diff.stderr).toMatch(/^inspector-daemon diff: .*odd-listing\.jsonl: its tools\/list answer/);
    }
  });

  it('exits 2 on a usage mistake', async () => {
    const noOut = await inspector(['record', '--stdio', VERSIONED_LINE]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/--out FILE is needed/);
    const noAgainst = await inspector(['diff', '--stdio', VERSIONED_LINE]);
    expect(noAgainst.code).toBe(2);
    expect(noAgainst.stderr).toMatch(/--against SESSION\.jsonl is needed/);
    const noFile = await inspector(['replay']);
    expect(noFile.code).toBe(2);
    const badPort = await inspector(['replay', join(dir, 'x.jsonl'), '--port', 'eighty']);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/--port must be a whole number/);
  });

  it('exits 3 when the server cannot be started', async () => {
    const session = join(dir, 'unreachable.jsonl');
    await writeFile(
      session,
      '{"type":"session","version":1,"server":{}}\n' +
        '{"direction":"send","timestamp":"","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}\n' +
        '{"direction":"receive","timestamp":"","message":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}\n',
    );
    const diff = await inspector([
      'diff',
      '--stdio',
      'no-such-command-for-inspector-test',
      '--against',
      session,
    ]);
    expect(diff.code).toBe(3);
    const record = await inspector([
      'record',
      '--stdio',
      'no-such-command-for-inspector-test',
      '--out',
      join(dir, 'never.jsonl'),
    ]);
    expect(record.code).toBe(3);
    expect(record.stderr).toMatch(/^inspector-daemon record: /);
    // Nothing was recorded: no empty file is left behind.
    await expect(readFile(join(dir, 'never.jsonl'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('leaves a recording at --out as it was when a new one fails', async () => {
    const kept = join(dir, 'kept.jsonl');
    const before = '{"type":"session","version":1,"server":{"name":"earlier"}}\n';
    await writeFile(kept, before);
    const record = await inspector([
      'record',
      '--stdio',
      'no-such-command-for-inspector-test',
      '--out',
      kept,
    ]);
    expect(record.code).toBe(3);
    expect(await readFile(kept, 'utf8')).toBe(before);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('where record writes', () => {
  it('writes through a link to its target, and into a pipe as it is', async () => {
    const target = join(dir, 'target.jsonl');
    await writeFile(target, 'old\n');
    const linked = join(dir, 'linked.jsonl');
    await symlink(target, linked);
    const viaLink = await inspector(['record', '--stdio', VERSIONED_LINE, '--out', linked]);
    expect(viaLink.code).toBe(0);
    expect((await lstat(linked)).isSymbolicLink()).toBe(true);
    expect(JSON.parse((await readFile(target, 'utf8')).split('\n')[0]!)).toMatchObject({ type: 'session' });

    const pipe = join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [pipe]);
    const reader = spawn('cat', [pipe]);
    const readerDone = once(reader, 'exit');
    let read = '';
    reader.stdout.on('data', (data: Buffer) => (read += data));
    const viaPipe = await inspector(['record', '--stdio', VERSIONED_LINE, '--out', pipe]);
    await readerDone;
    expect(viaPipe.code).toBe(0);
    expect((await lstat(pipe)).isFIFO()).toBe(true);
    expect(JSON.parse(read.split('\n')[0]!)).toMatchObject({ type: 'session' });
  });
});

describe('what replay prints', () => {
  it('shows a recorded method name with control characters as escapes', async () => {
    const session = join(dir, 'sneaky.jsonl');
    const method = 'x\u001b]0;pwned\u0007\u001b[2J';
    await writeFile(
      session,
      '{"type":"session","version":1,"server":{}}\n' +
        JSON.stringify({ direction: 'send', timestamp: '', message: { jsonrpc: '2.0', id: 1, method } }) +
        '\n' +
        JSON.stringify({
          direction: 'receive',
          timestamp: '',
          message: { jsonrpc: '2.0', id: 1, result: {} },
        }) +
        '\n',
    );
    const replay = start(['replay', session, '--port', '0']);
    const [line = ''] = await waitFor(replay, 'stdout', /serving .*\n/);
    expect(line).toContain('x\\u001b]0;pwned\\u0007\\u001b[2J');
    expect(line).not.toContain('\u001b');
  });
});

describe('a recorded 2026-07-28 server', () => {
  it('has what the server said of itself in server/discover in its header, and its listings', async () => {
    const session = join(dir, 'modern.jsonl');
    const line = `"${process.execPath}" ${TSX_LOADER.join(' ')} "${join(FIXTURES, 'modern-server.ts')}" modern`;
    const recorded = await inspector(['record', '--stdio', line, '--out', session]);
    expect(recorded.stderr).toBe('');
    expect(recorded.code).toBe(0);
    const [header, ...lines] = await sessionLines(session);
    expect(header?.server).toMatchObject({
      protocolVersion: '2026-07-28',
      serverInfo: { name: expect.any(String) },
      capabilities: { tools: expect.any(Object) },
    });
    expect(sentMethods(lines)).toEqual(expect.arrayContaining(['server/discover', 'tools/list']));
    // diff can compare the server with it.
    const diff = await inspector(['diff', '--stdio', line, '--against', session]);
    expect(diff.stderr).toBe('');
    expect(diff.code).toBe(0);
  });
});
