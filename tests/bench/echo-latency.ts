/**
 * What the daemon adds to one tool call. From one interleaved run, the latency of an `echo` call on
 * server-everything over STDIO, three ways:
 *   (a) through the daemon: POST /api/mcp/tools/execute, daemon in its own process;
 *   (b) straight through the SDK client (Client + StdioClientTransport) in this process;
 *   (c) a bare HTTP round trip (small JSON body, JSON reply) to a minimal node:http server in its own process.
 * (b)+(c) is the floor a daemon could reach; (a)−(b)−(c) is the daemon's own overhead.
 *
 * The daemon and the bare server run in child processes, as the daemon does for its real callers: (a) and
 * (c) cross the same process boundary, and the daemon's garbage collection and timers stay out of the (b)
 * and (c) timings (with everything in one process they would not). (a) and (c) use the same HTTP client:
 * undici's `request` on one keep-alive connection, which measured faster than node:http with a keep-alive
 * Agent (maxSockets 1).
 *
 *   npm run bench
 *   BENCH_ITERATIONS=5000 BENCH_WARMUP=3000 npm run bench   # measured rounds, warm-up rounds (defaults 3000 each)
 *   BENCH_CHILD_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/bench-prof" npm run bench   # profile both children
 *
 * The daemon's rate limit (20 000 requests a minute, not settable from the command line) caps warm-up plus
 * measured rounds at about 19 000 per run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as HttpClient } from 'undici';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** The daemon's command line from source, as `npm run daemon` runs it. */
const DAEMON_COMMAND = ['--import', 'tsx', join(ROOT, 'daemon/main.ts')];
const TOKEN = 'bench-token-0123456789abcdef';
const BARE_SERVER_ROLE = 'bare-server';

const ECHO = { name: 'echo', arguments: { message: 'hi' } };
const EXECUTE_BODY = JSON.stringify({ serverId: 'ev', toolName: ECHO.name, parameters: ECHO.arguments });
// Built once, as the daemon does: a schema built per call costs ~15 µs more.
const PASSTHROUGH_RESULT = ResultSchema.passthrough();
const JSON_HEADERS = { 'content-type': 'application/json', 'x-inspector-token': TOKEN };

type Call = () => Promise<void>;
type Kind = 'a' | 'b' | 'c';

const LABELS: Record<Kind, string> = {
  a: '(a) daemon  POST /api/mcp/tools/execute',
  b: '(b) SDK     client.request tools/call   ',
  c: '(c) HTTP    bare JSON round trip        ',
};

function wholeNumber(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number from ${min}`);
  return value;
}

/** The minimal server of (c): parses the JSON body and answers a JSON object of about the daemon's size. */
function runBareServer(): void {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      const reply = JSON.stringify({ status: 'completed', executionId: 'bare', result: body });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
      res.end(reply);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

/** Starts a child that prints `listening on <url>` and resolves with that URL. */
async function startChild(args: string[], name: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        child.stdout?.off('data', onData);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with code ${code}:\n${output}`)));
    setTimeout(() => reject(new Error(`${name} did not start within 30 s:\n${output}`)), 30_000).unref();
  }).catch(async (error: unknown) => {
    await stopChild(child);
    throw error;
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return { child, url };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

async function postJson(
  http: HttpClient,
  path: string,
  body: string,
): Promise<{ status: number; json: any }> {
  const response = await http.request({ path, method: 'POST', headers: JSON_HEADERS, body });
  return { status: response.statusCode, json: await response.body.json() };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const iterations = wholeNumber('BENCH_ITERATIONS', 3000, 1);
  const warmup = wholeNumber('BENCH_WARMUP', 3000, 0);
  const childNodeArgs = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const dataDir = await mkdtemp(join(tmpdir(), 'inspector-bench-'));
  const children: ChildProcess[] = [];
  const httpClients: HttpClient[] = [];
  let sdk: Client | undefined;

  try {
    const daemon = await startChild(
      [...childNodeArgs, ...DAEMON_COMMAND, '--port', '0', '--data-dir', dataDir, '--token', TOKEN],
      'the daemon',
    );
    children.push(daemon.child);
    const bare = await startChild(
      [...childNodeArgs, '--import', 'tsx', fileURLToPath(import.meta.url), BARE_SERVER_ROLE],
      'the bare server',
    );
    children.push(bare.child);

    const daemonHttp = new HttpClient(daemon.url, { pipelining: 1 });
    const bareHttp = new HttpClient(bare.url, { pipelining: 1 });
    httpClients.push(daemonHttp, bareHttp);

    const config = { transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] };
    const response = await daemonHttp.request({
      path: '/api/mcp/servers/ev',
      method: 'PUT',
      headers: JSON_HEADERS,
      body: JSON.stringify({ config }),
    });
    await response.body.dump();
    if (response.statusCode !== 201)
      throw new Error(`PUT /api/mcp/servers/ev answered ${response.statusCode}`);

    sdk = new Client({ name: 'echo-latency-bench', version: '1.0.0' });
    await sdk.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
    );
    const connected = sdk;

    const calls: Record<Kind, Call> = {
      async a() {
        const { status, json } = await postJson(daemonHttp, '/api/mcp/tools/execute', EXECUTE_BODY);
        if (status !== 200 || json.status !== 'completed') {
          throw new Error(`The daemon answered ${status}: ${JSON.stringify(json)}`);
        }
      },
      async b() {
        // The daemon's own path: the generic request with a pass-through result schema.
        const result = await connected.request({ method: 'tools/call', params: ECHO }, PASSTHROUGH_RESULT);
        if (!Array.isArray(result.content)) throw new Error(`Unexpected result ${JSON.stringify(result)}`);
      },
      async c() {
        const { status } = await postJson(bareHttp, '/echo', EXECUTE_BODY);
        if (status !== 200) throw new Error(`The bare server answered ${status}`);
      },
    };
    const kinds: Kind[] = ['a', 'b', 'c'];

    // Warm-up rounds run exactly like measured ones and without a pause before them: round trips between
    // processes get several times faster over the first seconds of steady traffic (and slow down again
    // after a pause of a few seconds), not only through JIT compilation.
    const samples: Record<Kind, number[]> = { a: [], b: [], c: [] };
    for (let round = 0; round < warmup + iterations; round++) {
      // Each round starts with a different kind, so none always follows the same one.
      for (let step = 0; step < kinds.length; step++) {
        const kind = kinds[(round + step) % kinds.length] as Kind;
        const start = process.hrtime.bigint();
        await calls[kind]();
        const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
        if (round >= warmup) samples[kind].push(elapsed);
      }
    }

    const median: Record<Kind, number> = { a: 0, b: 0, c: 0 };
    const ms = (value: number): string => `${value.toFixed(3).padStart(7)} ms`;
    console.log(
      `echo latency: Node ${process.version}, ${availableParallelism()} CPUs, ${iterations} interleaved rounds after ${warmup} warm-up rounds`,
    );
    console.log(
      'daemon and bare server in child processes; HTTP client: undici request, one keep-alive connection',
    );
    for (const kind of kinds) {
      const sorted = samples[kind].sort((x, y) => x - y);
      median[kind] = percentile(sorted, 0.5);
      console.log(`${LABELS[kind]}  median ${ms(median[kind])}   p90 ${ms(percentile(sorted, 0.9))}`);
    }
    const floor = median.b + median.c;
    console.log(`floor (b)+(c)                             median ${ms(floor)}`);
    console.log(`daemon overhead (a)-(b)-(c)               median ${ms(median.a - floor)}`);
  } finally {
    await sdk?.close();
    await Promise.all(httpClients.map((client) => client.close()));
    // SIGTERM: the daemon closes its MCP connections (ending server-everything) before it exits.
    await Promise.all(children.map(stopChild));
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === BARE_SERVER_ROLE) runBareServer();
else await main();
