/**
 * A bounded, seeded fuzz of the HTTP API: a few thousand generated bad (and some good) requests over
 * every route, against the real daemon started by its command line with a real fixture server. It
 * asserts what must hold for any input: the daemon never exits, a client error is never a 5xx (502
 * and 504 are the MCP server's own failures), and every error has the SPEC part 7 body with a `code`
 * of the daemon's list whose status it answered. The seed is
 * printed on failure; FUZZ_SEED and FUZZ_COUNT replay or widen a run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../daemon/errors.ts';
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.ts';
import { DAEMON_COMMAND, fixtureStdio, ROOT, stopProcess } from './helpers.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const COUNT = Number(process.env.FUZZ_COUNT ?? 3000);
const CONCURRENCY = 4;
const TOKEN = 'fuzz-token-0123456789abcdef';
const WRONG_TOKEN_ORIGIN = 'chrome-extension://wrongtokenclientaaaaaaaaaaaaaaaa';

/** mulberry32: a small seeded generator, so a failing run can be replayed exactly. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const chance = (p: number): boolean => next() < p;
  return { next, int, pick, chance };
}
type Random = ReturnType<typeof generator>;

const SEGMENTS = [
  'tools',
  'tools',
  'tools',
  'nope',
  '',
  '%',
  '%zz',
  '%E0%A4%A',
  '..',
  '%2e%2e',
  'a'.repeat(300),
  '%E2%9C%93',
  'x%20y',
  '%00',
  '-bad',
  'ok.id_1',
];
const TOOL_NAMES = ['ping', 'ping', 'nope', '', 'crash', 'bad-structured', 'widget', '%zz', '\u202e'];
const STRINGS = [
  '',
  'x',
  'ui://widget/x.html',
  'demo://resource/1',
  'not a url',
  'http://',
  '\u0000',
  '☃',
  '********',
  '%',
  'a'.repeat(5000),
];

function randomJson(r: Random, depth = 0): unknown {
  const kind = r.int(depth > 4 ? 5 : 8);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, 86_400_001]);
    case 3:
    case 4:
      return r.pick(STRINGS);
    case 5:
      return Array.from({ length: r.int(4) }, () => randomJson(r, depth + 1));
    default: {
      const keys = [
        'serverId',
        'toolName',
        'parameters',
        'uri',
        'name',
        'args',
        'requestId',
        'response',
        'action',
        'content',
        'executionId',
        'config',
        'transport',
        'command',
        'url',
        'headers',
        'env',
        'mcpServers',
        'toolId',
        'toolInput',
        'toolOutput',
        'globals',
        'timeoutMs',
        '__proto__',
        'constructor',
      ];
      const value: Record<string, unknown> = {};
      for (let i = r.int(5); i > 0; i--) value[r.pick(keys)] = randomJson(r, depth + 1);
      return value;
    }
  }
}

/** A body close to what a route expects, with one or two parts wrong. */
function nearlyValid(r: Random): unknown {
  const base = r.pick<Record<string, unknown>>([
    { serverId: 'tools', toolName: r.pick(TOOL_NAMES), parameters: randomJson(r) },
    { serverId: r.pick(SEGMENTS), uri: r.pick(STRINGS) },
    { serverId: 'tools', name: r.pick(STRINGS), args: randomJson(r) },
    {
      requestId: r.pick(STRINGS),
      response: { action: r.pick(['accept', 'decline', 'cancel', 'maybe']), content: randomJson(r) },
    },
    { executionId: r.pick(STRINGS) },
    {
      config: {
        transport: r.pick(['stdio', 'http', 'sse', 'websocket', 'carrier-pigeon']),
        command: 'no-such-command-for-fuzzing',
        url: r.pick(['http://127.0.0.1:1/mcp', 'not a url', 'http://', 'ws://127.0.0.1:1']),
        headers: randomJson(r),
        env: randomJson(r),
      },
    },
    {
      mcpServers: {
        [r.pick(['a', 'b', '%', 'ok'])]: r.pick([
          { url: r.pick(STRINGS) },
          { command: 'no-such-command-for-fuzzing', args: randomJson(r) },
          randomJson(r),
        ]),
      },
    },
    {
      serverId: 'tools',
      uri: 'ui://widget/x.html',
      toolInput: randomJson(r),
      toolOutput: randomJson(r),
      toolId: r.pick(['w1', '%', '', 'a'.repeat(300)]),
      globals: randomJson(r),
    },
  ]);
  if (r.chance(0.3)) base[r.pick(Object.keys(base))] = randomJson(r);
  return base;
}

const ROUTES: Array<[string, string]> = [
  ['GET', '/api/mcp/servers/'],
  ['GET', '/api/mcp/servers/{id}'],
  ['PUT', '/api/mcp/servers/{junk}'],
  ['DELETE', '/api/mcp/servers/{junk}'],
  ['POST', '/api/mcp/servers/import'],
  ['POST', '/api/mcp/servers/{id}/connect'],
  ['POST', '/api/mcp/servers/{id}/disconnect'],
  ['GET', '/api/mcp/servers/{id}/tools'],
  ['POST', '/api/mcp/servers/{id}/tools/{tool}/call'],
  ['GET', '/api/mcp/servers/{id}/resources'],
  ['GET', '/api/mcp/servers/{id}/resources/{any}'],
  ['GET', '/api/mcp/servers/{id}/prompts'],
  ['POST', '/api/mcp/servers/{id}/prompts/{any}/get'],
  ['POST', '/api/mcp/tools/list'],
  ['POST', '/api/mcp/tools/execute'],
  ['POST', '/api/mcp/tools/respond'],
  ['GET', '/api/mcp/tools/active'],
  ['POST', '/api/mcp/tools/cancel'],
  ['POST', '/api/mcp/resources/list'],
  ['POST', '/api/mcp/resources/templates/list'],
  ['POST', '/api/mcp/resources/read'],
  ['POST', '/api/mcp/resources/subscribe'],
  ['POST', '/api/mcp/resources/unsubscribe'],
  ['POST', '/api/mcp/prompts/list'],
  ['POST', '/api/mcp/prompts/get'],
  ['POST', '/api/mcp/resources/widget/store'],
  ['POST', '/api/mcp/openai/widget/store'],
  ['GET', '/api/mcp/resources/widget/{any}'],
  ['GET', '/api/mcp/openai/widget/{any}'],
  ['GET', '/api/mcp/openai/widget-content/{any}'],
  ['GET', '/api/mcp/health'],
  ['GET', '/api/mcp/rpc-logs?replay={any}&serverIds={any}'],
  ['GET', '/api/mcp/{any}'],
  ['GET', '/{any}'],
];

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

function generate(r: Random): FuzzRequest {
  let [method, path] = r.pick(ROUTES);
  if (r.chance(0.05)) method = r.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']);
  path = path
    .replace('{id}', () => r.pick(SEGMENTS))
    .replace('{junk}', () => (r.chance(0.8) ? `fuzz-${r.int(20)}` : r.pick(SEGMENTS)))
    .replace('{tool}', () => r.pick(TOOL_NAMES).replace(/[^\w%-]/g, '_'))
    .replace(/\{any\}/g, () => r.pick(SEGMENTS));
  if (r.chance(0.05)) path += `?token=${TOKEN}`;
  const headers: Record<string, string> = {};
  const auth = r.next();
  if (auth < 0.93) headers['X-Inspector-Token'] = TOKEN;
  else {
    // Failed attempts come from a client of their own: past 20 a minute it is refused (429), and the
    // rest of the run must still reach the handlers.
    if (auth < 0.97) headers['X-Inspector-Token'] = `wrong-${r.int(1000)}`;
    headers.Origin = WRONG_TOKEN_ORIGIN;
  }
  if (r.chance(0.03))
    headers.Host = r.pick(['127.0.0.1.evil.example', 'evil.example', '127.evil.example', '[::2]', 'a@b']);
  if (r.chance(0.03))
    headers.Origin = r.pick(['https://evil.example', 'null', 'http://127.0.0.1.evil.example']);
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return { method, path, headers };

  let text: string;
  const shape = r.next();
  if (shape < 0.45) text = JSON.stringify(nearlyValid(r));
  else if (shape < 0.75) text = JSON.stringify(randomJson(r));
  else if (shape < 0.82) text = `${'['.repeat(200 + r.int(10_000))}`;
  else if (shape < 0.87) {
    const depth = 200 + r.int(400);
    text = `{"serverId":"tools","toolName":"ping","parameters":{"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
  } else if (shape < 0.92)
    text = r.pick(['', '{', 'null', '"x"', '[]', '{"a":1,}', '\u0000', 'a'.repeat(100_000)]);
  else text = JSON.stringify({ serverId: 'tools', big: 'x'.repeat(r.int(300_000)) });
  let body = Buffer.from(text);
  headers['Content-Type'] = r.chance(0.9)
    ? 'application/json'
    : r.pick(['text/plain', 'application/json; charset=koi8-r', 'multipart/form-data', '']);
  const encoding = r.next();
  if (encoding < 0.04) {
    headers['Content-Encoding'] = 'gzip';
    body = r.chance(0.5) ? gzipSync(body) : body;
  } else if (encoding < 0.06) {
    headers['Content-Encoding'] = r.pick(['deflate', 'br', 'x-unknown', 'gzip, gzip']);
  }
  return { method, path, headers, body };
}

interface Answer {
  status: number;
  type: string;
  text: string;
}

function send(port: number, fuzz: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: fuzz.method, path: fuzz.path, headers: fuzz.headers },
      (res) => {
        const type = String(res.headers['content-type'] ?? '');
        if (type.startsWith('text/event-stream')) {
          // A stream never ends by itself: its status and headers are the answer.
          res.destroy();
          resolve({ status: res.statusCode ?? 0, type, text: '' });
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type, text }));
        res.on('error', reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('no answer within 60 s')));
    req.on('error', reject);
    // Node's client sends a DELETE body without framing unless told its length.
    if (fuzz.body) req.setHeader('Content-Length', fuzz.body.length);
    req.end(fuzz.body);
  });
}

/** What is wrong with an answer, or undefined when it is fine. */
function problemOf(method: string, answer: Answer): string | undefined {
  const upstream = answer.status === 502 || answer.status === 504;
  if (answer.status >= 500 && !upstream) return `status ${answer.status}`;
  if (answer.status < 400 || method === 'HEAD') return undefined;
  if (!answer.type.startsWith('application/json'))
    return `${answer.status} without a JSON body (${answer.type})`;
  let body: { error?: unknown; code?: unknown; mcpError?: { name?: unknown; message?: unknown } };
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'error body is not JSON';
  }
  if (typeof body.error !== 'string' || body.error === '') return 'error body without an error string';
  if (!ERROR_CODES.includes(body.code as ErrorCode))
    return `error body with code ${JSON.stringify(body.code)}`;
  if (ERROR_STATUS[body.code as ErrorCode] !== answer.status)
    return `${answer.status} with code ${body.code}`;
  if (
    body.mcpError !== undefined &&
    (typeof body.mcpError.name !== 'string' || typeof body.mcpError.message !== 'string')
  ) {
    return 'mcpError without name and message';
  }
  if (answer.status === 502 && body.mcpError === undefined) return '502 without mcpError';
  if (body.error.includes(TOKEN)) return 'the token in an error';
  return undefined;
}

describe('fuzzing the HTTP API', () => {
  let daemon: ChildProcess;
  let port = 0;
  let dataDir = '';
  const stderr: string[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'inspector-fuzz-'));
    const config = join(dataDir, 'config.json');
    const { command, args, cwd } = fixtureStdio('tools-server.ts');
    await writeFile(config, JSON.stringify({ mcpServers: { tools: { command, args, cwd } } }));
    daemon = spawn(
      process.execPath,
      [...DAEMON_COMMAND, '--port', '0', '--data-dir', dataDir, '--token', TOKEN, '--config', config],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } },
    );
    daemon.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    port = await new Promise<number>((resolve, reject) => {
      let out = '';
      daemon.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
        if (match) resolve(Number(match[1]));
      });
      daemon.once('exit', (code) => reject(new Error(`the daemon exited with ${code}: ${stderr.join('')}`)));
    });
  });

  afterAll(async () => {
    if (daemon) await stopProcess(daemon);
    await rm(dataDir, { recursive: true, force: true });
  });

  it(`survives ${COUNT} generated requests (seed ${SEED}) with no 5xx for a client error and every error in the SPEC part 7 shape`, async () => {
    const r = generator(SEED);
    const requests = Array.from({ length: COUNT }, () => generate(r));
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < requests.length) {
        const index = next++;
        const fuzz = requests[index] as FuzzRequest;
        let answer: Answer;
        try {
          answer = await send(port, fuzz);
        } catch (error) {
          problems.push(
            `#${index} ${fuzz.method} ${fuzz.path.slice(0, 80)} ${JSON.stringify(fuzz.headers)}: ${(error as Error).message}`,
          );
          continue;
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const problem = problemOf(fuzz.method, answer);
        if (problem)
          problems.push(
            `#${index} ${fuzz.method} ${fuzz.path.slice(0, 80)}: ${problem} ${answer.text.slice(0, 160)}`,
          );
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect(daemon.exitCode, `the daemon exited; stderr: ${stderr.join('')}`).toBeNull();
    expect(problems.slice(0, 10), `seed ${SEED}; statuses ${JSON.stringify([...statuses])}`).toEqual([]);
    // The run reached the handlers, not just the checks in front of them.
    for (const status of [200, 400, 401, 403, 404]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
    const health = await send(port, { method: 'GET', path: '/api/mcp/health', headers: {} });
    expect(health.status).toBe(200);
    expect(stderr.join('')).not.toContain('internal error');
  });
});
