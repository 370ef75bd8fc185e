import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { junitXml } from '../../daemon/commands/junit.ts';
import {
  DAEMON_COMMAND,
  EVERYTHING,
  everythingStdio,
  fixtureStdioLine,
  freePort,
  ROOT,
  startDaemon,
} from './helpers.ts';

const RUN_MS = 60_000;
const EVERYTHING_STDIO = `"${process.execPath}" "${EVERYTHING}" stdio`;
/** The 2026-07-28 fixture, whose `broken` tool answers with a result that breaks the schema. */
const MODERN_STDIO = fixtureStdioLine('modern-server.ts');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inspector-cli-test-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** `inspector-daemon test ARGS` from source, with its own empty data folder, to the end. */
function runTest(args: string[], dataDir: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, INSPECTOR_DATA_DIR: dataDir };
  for (const name of ['INSPECTOR_TOKEN', 'INSPECTOR_CONFIG', 'NODE_ENV']) delete env[name];
  const child = spawn(process.execPath, [...DAEMON_COMMAND, 'test', ...args], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function collection(dir: string, name: string, content: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

const request = (title: string, toolName: string, parameters: object, expectations?: object[]) => ({
  title,
  toolName,
  parameters,
  ...(expectations && { expectations }),
});

const passing = {
  version: 1,
  serverId: 'everything',
  requests: [
    request('Echo hello', 'echo', { message: 'hello' }, [
      { kind: 'noError' },
      { kind: 'text', text: 'Echo: hello' },
      { kind: 'jsonPath', path: '$.content[0].text', op: 'equals', value: 'Echo: hello' },
      { kind: 'latency', maxMs: 60_000 },
    ]),
    request('Weather', 'get-structured-content', { location: 'Chicago' }, [
      { kind: 'outputSchema' },
      { kind: 'jsonPath', path: '$.structuredContent.temperature', op: 'gt', value: -100 },
      { kind: 'snapshot', value: { content: [] }, ignore: ['$.content', '$.structuredContent'] },
    ]),
    request('Sum without expectations', 'get-sum', { a: 1, b: 2 }),
  ],
};

const failing = {
  version: 1,
  serverId: 'everything',
  requests: [
    request('Echo hello', 'echo', { message: 'hello' }, [{ kind: 'text', text: 'Echo: hello' }]),
    request('Sum is four', 'get-sum', { a: 1, b: 2 }, [
      { kind: 'noError' },
      { kind: 'text', text: '/is 4\\.$/' },
    ]),
  ],
};

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&([a-z]+);|&/g, (whole, name: string | undefined) => {
    if (!name || !(name in ENTITIES)) throw new Error(`bad entity at ${whole}`);
    return ENTITIES[name]!;
  });
}

/**
 * A small, strict reader for the XML the report uses: a declaration, elements with quoted attributes,
 * escaped text. Unbalanced tags, stray `<` or `&`, or a second root fail.
 */
function parseXml(xml: string): XmlElement {
  const rest = xml.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, '');
  expect(rest.length, 'the XML declaration').toBeLessThan(xml.length);
  const token = /<(\/?)([A-Za-z][\w-]*)((?:\s+[A-Za-z][\w-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let match: RegExpExecArray | null;
  let read = 0;
  while ((match = token.exec(rest))) {
    read = token.lastIndex;
    const [, closing, name, attrs, selfClosing, text] = match;
    const parent = stack.at(-1);
    if (text !== undefined) {
      if (parent) parent.text += unescapeXml(text);
      else expect(text.trim(), 'text outside the root').toBe('');
      continue;
    }
    if (closing) {
      expect(stack.pop()?.name, `closing </${name}>`).toBe(name);
      continue;
    }
    const element: XmlElement = { name: name!, attributes: {}, children: [], text: '' };
    for (const [, key, value] of attrs!.matchAll(/([A-Za-z][\w-]*)="([^"]*)"/g)) {
      expect(element.attributes, `a repeated attribute ${key}`).not.toHaveProperty(key!);
      element.attributes[key!] = unescapeXml(value!);
    }
    if (parent) parent.children.push(element);
    else {
      expect(root, 'a second root element').toBeUndefined();
      root = element;
    }
    if (!selfClosing) stack.push(element);
  }
  expect(read, `unreadable XML at ${JSON.stringify(rest.slice(read, read + 40))}`).toBe(rest.length);
  expect(stack, 'unclosed elements').toEqual([]);
  expect(root).toBeDefined();
  return root!;
}

/** A JUnit report's structure, checked element by element: what CI servers rely on. */
function checkJunit(xml: string): {
  tests: number;
  failures: number;
  errors: number;
  suites: XmlElement[];
  cases: XmlElement[];
} {
  const root = parseXml(xml);
  expect(root.name).toBe('testsuites');
  const count = (element: XmlElement, name: string): number => {
    expect(element.attributes[name], `${element.name} ${name}`).toMatch(/^\d+$/);
    return Number(element.attributes[name]);
  };
  const suites = root.children;
  let tests = 0;
  let failures = 0;
  let errors = 0;
  const cases: XmlElement[] = [];
  for (const suite of suites) {
    expect(suite.name).toBe('testsuite');
    expect(suite.attributes.name).toBeTruthy();
    expect(suite.attributes.time).toMatch(/^\d+\.\d+$/);
    expect(suite.attributes.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(suite.children.every((c) => c.name === 'testcase' || c.name === 'properties')).toBe(true);
    const own = suite.children.filter((c) => c.name === 'testcase');
    for (const testcase of own) {
      expect(testcase.attributes.name).toBeTruthy();
      expect(testcase.attributes.classname).toBeTruthy();
      expect(testcase.attributes.time).toMatch(/^\d+\.\d+$/);
      expect(testcase.children.length).toBeLessThanOrEqual(1);
      for (const outcome of testcase.children) {
        expect(['failure', 'error']).toContain(outcome.name);
        expect(outcome.attributes.message).toBeTruthy();
      }
    }
    const failed = own.filter((c) => c.children.some((o) => o.name === 'failure')).length;
    const errored = own.filter((c) => c.children.some((o) => o.name === 'error')).length;
    expect([count(suite, 'tests'), count(suite, 'failures'), count(suite, 'errors')]).toEqual([
      own.length,
      failed,
      errored,
    ]);
    tests += own.length;
    failures += failed;
    errors += errored;
    cases.push(...own);
  }
  expect([count(root, 'tests'), count(root, 'failures'), count(root, 'errors')]).toEqual([
    tests,
    failures,
    errors,
  ]);
  return { tests, failures, errors, suites, cases };
}

describe('the JUnit report', () => {
  it('stays well-formed whatever the names and messages hold, and the check catches a broken one', () => {
    const hostile = `a<b>&"c'\u0000\u001b]]>\uD800`;
    const xml = junitXml([
      {
        name: hostile,
        properties: { file: hostile },
        timestamp: '2026-01-01T00:00:00',
        seconds: 0.5,
        cases: [
          { name: hostile, className: 'x.y', seconds: 0.1, failure: { message: hostile, details: hostile } },
          { name: 'ok', className: 'x.y', seconds: 0.2 },
          {
            name: 'down',
            className: 'x.y',
            seconds: 0,
            error: { message: hostile, type: 'ConnectionError' },
          },
        ],
      },
    ]);
    const junit = checkJunit(xml);
    expect(junit).toMatchObject({ tests: 3, failures: 1, errors: 1 });
    expect(junit.cases[0]!.attributes.name).toBe(`a<b>&"c'\u001b]]>`.replace('\u001b', ''));
    expect(() => checkJunit(xml.replace('failures="1"', 'failures="2"'))).toThrow();
    expect(() => checkJunit(xml.replace('</testsuite>', ''))).toThrow();
    expect(() => checkJunit(xml.replace('a&lt;b', 'a<b'))).toThrow();
  });
});

describe('inspector-daemon test', () => {
  it(
    'runs a collection over STDIO: a line per request, a summary, exit 0 and a JUnit report',
    async () => {
      const dir = await tempDir();
      // Written as some editors do, with a byte order mark first.
      const file = await collection(dir, 'passing.json', `\uFEFF${JSON.stringify(passing)}`);
      const report = join(dir, 'report.xml');
      const run = await runTest([file, '--stdio', EVERYTHING_STDIO, '--junit', report], dir);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^ {2}PASS {2}Echo hello \(echo, \d+ ms, 4\/4 expectations\)$/m);
      expect(run.stdout).toMatch(
        /^ {2}PASS {2}Weather \(get-structured-content, \d+ ms, 3\/3 expectations\)$/m,
      );
      expect(run.stdout).toMatch(
        /^ {2}PASS {2}Sum without expectations \(get-sum, \d+ ms, 1\/1 expectations\)$/m,
      );
      expect(run.stdout).toMatch(/^3 requests in 1 file: 3 passed, 0 failed \(\d+\.\d s\)$/m);
      const junit = checkJunit(await readFile(report, 'utf8'));
      expect(junit).toMatchObject({ tests: 3, failures: 0, errors: 0 });
      expect(junit.suites[0]!.attributes.name).toBe('passing');
      expect(junit.cases.map((c) => [c.attributes.name, c.attributes.classname])).toEqual([
        ['Echo hello', 'passing.echo'],
        ['Weather', 'passing.get-structured-content'],
        ['Sum without expectations', 'passing.get-sum'],
      ]);
    },
    RUN_MS,
  );

  it(
    'exits 4 when an expectation fails, saying which and why, in the output and the JUnit report',
    async () => {
      const dir = await tempDir();
      const file = await collection(dir, 'failing.json', failing);
      const report = join(dir, 'report.xml');
      const run = await runTest([file, '--stdio', EVERYTHING_STDIO, '--junit', report], dir);
      expect(run.code).toBe(4);
      expect(run.stdout).toMatch(/^ {2}PASS {2}Echo hello/m);
      expect(run.stdout).toMatch(/^ {2}FAIL {2}Sum is four \(get-sum, \d+ ms, 1\/2 expectations\)$/m);
      expect(run.stdout).toContain('✗ Expected the text to match /is 4\\.$/, got "The sum of 1 and 2 is 3."');
      expect(run.stdout).toMatch(/^2 requests in 1 file: 1 passed, 1 failed/m);
      const junit = checkJunit(await readFile(report, 'utf8'));
      expect(junit).toMatchObject({ tests: 2, failures: 1, errors: 0 });
      const failure = junit.cases[1]!.children[0]!;
      expect(failure.name).toBe('failure');
      expect(failure.attributes.message).toBe(
        '1 of 2 expectations failed: Text matches /is 4\\.$/: Expected the text to match /is 4\\.$/, got "The sum of 1 and 2 is 3."',
      );
      expect(failure.text).toContain('got "The sum of 1 and 2 is 3."');
    },
    RUN_MS,
  );

  it(
    'says a run stopped with Ctrl+C was interrupted, for the request under way and those not run',
    async () => {
      const dir = await tempDir();
      const file = await collection(dir, 'stopped.json', {
        version: 1,
        serverId: 'tools',
        requests: [request('Waits', 'slow', { ms: 60_000 }), request('Pings', 'ping', {})],
      });
      const env: NodeJS.ProcessEnv = { ...process.env, INSPECTOR_DATA_DIR: dir };
      for (const name of ['INSPECTOR_TOKEN', 'INSPECTOR_CONFIG', 'NODE_ENV']) delete env[name];
      const child = spawn(
        process.execPath,
        [
          ...DAEMON_COMMAND,
          'test',
          file,
          '--stdio',
          fixtureStdioLine('tools-server.ts'),
          '--cwd',
          ROOT,
          '--verbose',
        ],
        { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      const code = new Promise((resolve) => child.on('close', resolve));
      // The first request is under way once --verbose shows its tools/call sent.
      while (!/"method":"tools\/call"/.test(stderr)) await new Promise((resolve) => setTimeout(resolve, 50));
      child.kill('SIGINT');
      expect(await code).toBe(130);
      expect(stdout).toContain('  ERROR Waits (slow): interrupted (SIGINT)');
      expect(stdout).toContain('  ERROR 1 more not run: interrupted (SIGINT)');
      expect(stdout).not.toMatch(/could not be reached|disconnected/);
    },
    RUN_MS,
  );

  it(
    'runs to its end and exits 4 when the reader of its output stops reading (| head -1)',
    async () => {
      const dir = await tempDir();
      const file = await collection(dir, 'failing.json', failing);
      const report = join(dir, 'report.xml');
      const env: NodeJS.ProcessEnv = { ...process.env, INSPECTOR_DATA_DIR: dir };
      for (const name of ['INSPECTOR_TOKEN', 'INSPECTOR_CONFIG', 'NODE_ENV']) delete env[name];
      const child = spawn(
        process.execPath,
        [...DAEMON_COMMAND, 'test', file, '--stdio', EVERYTHING_STDIO, '--junit', report],
        { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      // Like `head -1`: the first line, then the pipe is closed.
      child.stdout.once('data', () => child.stdout.destroy());
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(4);
      expect(checkJunit(await readFile(report, 'utf8'))).toMatchObject({ tests: 2, failures: 1 });
    },
    RUN_MS,
  );

  it(
    'prints no control character of a title or of what the server sent: a terminal would act on them',
    async () => {
      const dir = await tempDir();
      const sneaky = '\u001b]0;pwned\u0007\u001b[2J';
      const file = await collection(dir, 'sneaky.json', {
        version: 1,
        serverId: 'everything',
        requests: [
          request(`Bell\u0007 ring`, 'echo', { message: sneaky }, [{ kind: 'text', text: 'nothing' }]),
        ],
      });
      const run = await runTest([file, '--stdio', EVERYTHING_STDIO], dir);
      expect(run.code).toBe(4);
      const controls = [...run.stdout].filter((char) => char < ' ' && char !== '\n' && char !== '\t');
      expect(controls).toEqual([]);
      expect(run.stdout).toMatch(/^ {2}FAIL {2}Bell\\u0007 ring \(echo, /m);
      expect(run.stdout).toContain('got "Echo: \\u001b]0;pwned\\u0007\\u001b[2J"');
    },
    RUN_MS,
  );

  it(
    'fails a request whose 2026-07-28 result breaks the schema, whatever its expectations, saying what is wrong',
    async () => {
      const dir = await tempDir();
      const file = await collection(dir, 'broken.json', {
        version: 1,
        serverId: 'modern',
        requests: [request('Broken result', 'broken', {}, [{ kind: 'noError' }])],
      });
      const report = join(dir, 'report.xml');
      const run = await runTest([file, '--stdio', MODERN_STDIO, '--junit', report], dir);
      expect(run.code).toBe(4);
      // The one expectation held on the result as the server sent it; the result itself fails the request.
      expect(run.stdout).toMatch(/^ {2}FAIL {2}Broken result \(broken, \d+ ms, 1\/1 expectations\)$/m);
      expect(run.stdout).toMatch(/✗ The result breaks the 2026-07-28 schema: content\.1\.type: /);
      const junit = checkJunit(await readFile(report, 'utf8'));
      expect(junit).toMatchObject({ tests: 1, failures: 1, errors: 0 });
      expect(junit.cases[0]!.children[0]!.attributes.message).toMatch(
        /^The result breaks the 2026-07-28 schema: content\.1\.type: /,
      );
    },
    RUN_MS,
  );

  it(
    'runs each file against the server its export names, from --config, in one report',
    async () => {
      const dir = await tempDir();
      const config = await collection(dir, 'mcp.json', {
        mcpServers: {
          other: { command: 'no-such-command-for-inspector-tests' },
          everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
        },
      });
      const first = await collection(dir, 'first.json', passing);
      const second = await collection(dir, 'second.json', failing);
      const report = join(dir, 'report.xml');
      const run = await runTest([first, second, '--config', config, '--junit', report], dir);
      expect(run.code).toBe(4);
      expect(run.stdout).toContain(`${first}: 3 requests against "everything" of ${config}`);
      expect(run.stdout).toMatch(/^5 requests in 2 files: 4 passed, 1 failed/m);
      const junit = checkJunit(await readFile(report, 'utf8'));
      expect(junit.suites.map((s) => s.attributes.name)).toEqual(['first', 'second']);
      expect(junit).toMatchObject({ tests: 5, failures: 1, errors: 0 });
    },
    RUN_MS,
  );

  it(
    'runs through a running daemon with --daemon, against the daemon server the export names',
    async () => {
      const dir = await tempDir();
      const daemon = await startDaemon();
      onTestFinished(() => daemon.close());
      const put = await daemon.api('PUT', '/api/mcp/servers/everything', { config: everythingStdio() });
      expect(put.status).toBe(201);
      const file = await collection(dir, 'passing.json', passing);
      const run = await runTest([file, '--daemon', daemon.url, '--token', daemon.token], dir);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`${file}: 3 requests against "everything" of the daemon`);
      expect(run.stdout).toMatch(/^3 requests in 1 file: 3 passed, 0 failed/m);
      expect(run.stdout).not.toContain(daemon.token);
    },
    RUN_MS,
  );

  it(
    'exits 3 when the server cannot be reached, and reports each request as an error',
    async () => {
      const dir = await tempDir();
      const file = await collection(dir, 'passing.json', passing);
      const report = join(dir, 'report.xml');
      const missing = await runTest(
        [file, '--stdio', 'no-such-command-for-inspector-tests', '--junit', report],
        dir,
      );
      expect(missing.code).toBe(3);
      expect(missing.stdout).toMatch(/ERROR cannot connect/);
      expect(missing.stdout).toMatch(/^3 requests in 1 file: 0 passed, 0 failed, 3 errors/m);
      const junit = checkJunit(await readFile(report, 'utf8'));
      expect(junit).toMatchObject({ tests: 3, failures: 0, errors: 3 });

      const port = await freePort();
      const closed = await runTest([file, '--url', `http://127.0.0.1:${port}/mcp`], dir);
      expect(closed.code).toBe(3);
      expect(closed.stdout).toMatch(/ERROR cannot connect/);
    },
    RUN_MS,
  );

  describe('usage errors exit 2 before any server starts', () => {
    it.each([
      ['no file', [], /test needs at least one collection file/],
      ['a missing file', ['missing.json'], /cannot read .*missing\.json: no such file/],
      ['an unknown option', ['passing.json', '--frobnicate'], /unknown option --frobnicate/],
      ['--junit without a value', ['passing.json', '--junit'], /--junit needs a value/],
      [
        'both --stdio and --url',
        ['passing.json', '--stdio', 'x', '--url', 'http://127.0.0.1:1/'],
        /not both/,
      ],
      ['a file that is not JSON', ['broken.json'], /broken\.json is not JSON: /],
      [
        'a collection of no request',
        ['empty.json'],
        /empty\.json holds no requests: there is nothing to test/,
      ],
      [
        'parameters nested deeper than a message may be',
        ['deep.json'],
        /deep\.json nests objects or arrays more than 1024 levels deep/,
      ],
      [
        'a malformed expectation',
        ['malformed.json'],
        /malformed\.json is not a saved-requests collection: requests\[0\]\.expectations\[0\]: maxMs must be a number of milliseconds/,
      ],
      [
        'a list of requests that names no server',
        ['bare.json'],
        /bare\.json: name the server with --server ID/,
      ],
      ['a server the registry does not have', ['passing.json'], /passing\.json: no server "everything" in /],
      [
        'a report in a folder that does not exist, before anything runs',
        [
          'passing.json',
          '--stdio',
          'no-such-command-for-inspector-tests',
          '--junit',
          '/nonexistent-folder/r.xml',
        ],
        /cannot write the JUnit report \/nonexistent-folder\/r\.xml: its folder \/nonexistent-folder does not exist/,
      ],
      [
        'a report that would be a folder, before anything runs',
        ['passing.json', '--stdio', 'no-such-command-for-inspector-tests', '--junit', '.'],
        /cannot write the JUnit report \.: it is a folder; name a file in it/,
      ],
    ])(
      '%s',
      async (_, args, message) => {
        const dir = await tempDir();
        await collection(dir, 'passing.json', passing);
        await collection(dir, 'broken.json', '{"version": 1,');
        await collection(dir, 'empty.json', { version: 1, serverId: 'everything', requests: [] });
        const deep = `${'{"d":'.repeat(200_000)}1${'}'.repeat(200_000)}`;
        await collection(
          dir,
          'deep.json',
          `{"version":1,"serverId":"everything","requests":[{"title":"Deep","toolName":"echo","parameters":${deep}}]}`,
        );
        await collection(dir, 'malformed.json', {
          version: 1,
          serverId: 'everything',
          requests: [request('Echo', 'echo', {}, [{ kind: 'latency', maxMs: 'fast' }])],
        });
        await collection(dir, 'bare.json', [request('Echo', 'echo', { message: 'x' })]);
        const run = await runTest(
          args.map((arg) => (arg.endsWith('.json') ? join(dir, arg) : arg)),
          dir,
        );
        expect(run.code).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toMatch(/^inspector-daemon test: /);
        expect(run.stderr).toMatch(message);
        // One pointer to the help, the line under the error.
        expect(run.stderr.match(/--help/g)).toHaveLength(1);
      },
      RUN_MS,
    );
  });
});
