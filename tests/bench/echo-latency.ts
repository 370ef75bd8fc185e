/**
 * What the daemon adds to one tool call. From one interleaved run, the latency of an `echo` call on
 * server-everything over STDIO, several ways:
 *   (a) through the daemon: POST /api/mcp/tools/execute, the compiled daemon in its own process;
 *   (b) straight through the SDK client (Client + StdioClientTransport) in this process;
 *   (c) a bare HTTP round trip (small JSON body, JSON reply) to a minimal node:http server in its own process;
 *   (m) the least a daemon could do (minimal-proxy.ts): HTTP in, the SDK v2 client over STDIO, HTTP out;
 *   and the peers (peers.ts), each in its own process: the official inspector's v1 proxy and MCPJam.
 * (b)+(c) is the floor a daemon could reach; (a)−(b)−(c) is the daemon's own overhead, of which (m)−(b)−(c)
 * is what any process between caller and server costs and (a)−(m) what the daemon does beyond that.
 *
 * The daemon and the bare server run in child processes, as the daemon does for its real callers: (a) and
 * (c) cross the same process boundary, and the daemon's garbage collection and timers stay out of the (b)
 * and (c) timings. (a), (c) and MCPJam use the same HTTP client: undici's `request` on one keep-alive
 * connection. Every run starts its processes afresh, so a run with 200 warm-up rounds sees them as cold
 * as a user's first minutes do.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as HttpClient } from 'undici';
import { type Peer, startMcpJam, startOfficialProxy } from './peers.ts';
import {
  CHILD_NODE_ARGS,
  cpuMs,
  EVERYTHING_STDIO,
  JSON_HEADERS,
  median,
  percentile,
  ROOT,
  startChild,
  startDaemon,
  stopChild,
  watchLoad,
} from './support.ts';

const ECHO = { name: 'echo', arguments: { message: 'hi' } };
const EXECUTE_BODY = JSON.stringify({ serverId: 'ev', toolName: ECHO.name, parameters: ECHO.arguments });
// Built once, as the daemon does: a schema built per call costs ~15 µs more.
const PASSTHROUGH_RESULT = ResultSchema.passthrough();

export interface PathResult {
  label: string;
  median: number;
  p90: number;
  /** CPU time of the path's own server process per call, ms (NaN when there is none). */
  cpuPerCall: number;
  /** Another inspector (peers.ts), which the daemon must beat. */
  peer: boolean;
}

export interface EchoResult {
  warmup: number;
  iterations: number;
  paths: Record<string, PathResult>;
  /** Median (a) − ((b) + (c)), ms. */
  overhead: number;
  /** Median (a) − (m): the daemon beyond the least a proxy does, ms. */
  beyondMinimal: number;
  /** Peers that could not be measured, with why. */
  skipped: string[];
  /** Share of all the machine's cores busy during the measured rounds, this run's processes included. */
  load: number;
}

interface Path {
  label: string;
  peer?: boolean;
  call(): Promise<void>;
  pid?: number;
}

/**
 * The order of the paths in each round: shuffled anew every round, the same sequence in every run (a
 * fixed seed). How fast a call is depends on which path ran just before it (the bare round trip by up
 * to about 120 µs), and in a fixed rotation each path would be measured almost only after the one
 * before it in the list.
 */
function shuffledRounds(kinds: readonly string[]): { next(): string[] } {
  let state = 0x9e3779b9;
  // mulberry32: a small, well-spread 32-bit generator; enough to vary an order.
  const random = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next() {
      const order = [...kinds];
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j] as string, order[i] as string];
      }
      return order;
    },
  };
}

async function post(http: HttpClient, path: string, body: string): Promise<{ status: number; json: any }> {
  const response = await http.request({ path, method: 'POST', headers: JSON_HEADERS, body });
  return { status: response.statusCode, json: await response.body.json() };
}

/** An echo call to an execute route (the daemon's, the minimal proxy's), which must complete. */
async function execute(http: HttpClient, path: string, who: string): Promise<void> {
  const { status, json } = await post(http, path, EXECUTE_BODY);
  if (status !== 200 || json.status !== 'completed') {
    throw new Error(`${who} answered ${status}: ${JSON.stringify(json)}`);
  }
}

export async function measureEcho(options: {
  warmup: number;
  iterations: number;
  peers: boolean;
}): Promise<EchoResult> {
  const closers: Array<() => Promise<void>> = [];
  const skipped: string[] = [];
  try {
    const daemon = await startDaemon();
    closers.push(() => daemon.close());
    const bare = await startChild(
      process.execPath,
      [...CHILD_NODE_ARGS, join(ROOT, 'tests/bench/bare-server.ts')],
      { name: 'the bare server', ready: /listening on (http:\/\/\S+)/ },
    );
    closers.push(() => stopChild(bare.child));
    const minimal = await startChild(
      process.execPath,
      [
        ...CHILD_NODE_ARGS,
        join(ROOT, 'tests/bench/minimal-proxy.ts'),
        EVERYTHING_STDIO.command,
        ...EVERYTHING_STDIO.args,
      ],
      { name: 'the minimal proxy', ready: /listening on (http:\/\/\S+)/ },
    );
    closers.push(() => stopChild(minimal.child));

    const daemonHttp = new HttpClient(daemon.url, { pipelining: 1 });
    const bareHttp = new HttpClient(bare.match, { pipelining: 1 });
    const minimalHttp = new HttpClient(minimal.match, { pipelining: 1 });
    closers.push(
      () => daemonHttp.close(),
      () => bareHttp.close(),
      () => minimalHttp.close(),
    );

    const response = await daemonHttp.request({
      path: '/api/mcp/servers/ev',
      method: 'PUT',
      headers: JSON_HEADERS,
      body: JSON.stringify({ config: { transport: 'stdio', ...EVERYTHING_STDIO } }),
    });
    await response.body.dump();
    if (response.statusCode !== 201)
      throw new Error(`PUT /api/mcp/servers/ev answered ${response.statusCode}`);

    const sdk = new Client({ name: 'echo-latency-bench', version: '1.0.0' });
    await sdk.connect(new StdioClientTransport({ ...EVERYTHING_STDIO, stderr: 'ignore' }));
    closers.push(() => sdk.close());

    const paths: Record<string, Path> = {
      a: {
        label: '(a) daemon  POST /api/mcp/tools/execute',
        pid: daemon.child.pid,
        call: () => execute(daemonHttp, '/api/mcp/tools/execute', 'The daemon'),
      },
      b: {
        label: '(b) SDK     client.request tools/call',
        async call() {
          // The daemon's own path: the generic request with a pass-through result schema.
          const result = await sdk.request({ method: 'tools/call', params: ECHO }, PASSTHROUGH_RESULT);
          if (!Array.isArray(result.content)) throw new Error(`Unexpected result ${JSON.stringify(result)}`);
        },
      },
      c: {
        label: '(c) HTTP    bare JSON round trip',
        pid: bare.child.pid,
        async call() {
          const { status } = await post(bareHttp, '/echo', EXECUTE_BODY);
          if (status !== 200) throw new Error(`The bare server answered ${status}`);
        },
      },
      m: {
        label: '(m) minimal proxy: node:http + SDK client, nothing else',
        pid: minimal.child.pid,
        call: () => execute(minimalHttp, '/', 'The minimal proxy'),
      },
    };
    if (options.peers) {
      const starters: Array<[string, string, () => Promise<Peer>]> = [
        ['o', 'the official inspector proxy', startOfficialProxy],
        ['j', 'MCPJam', startMcpJam],
      ];
      for (const [key, name, start] of starters) {
        try {
          const peer = await start();
          closers.push(() => peer.close());
          paths[key] = {
            label: `(${key}) ${peer.label}`,
            peer: true,
            pid: peer.pid,
            call: () => peer.call('hi'),
          };
        } catch (error) {
          skipped.push(`${name}: ${(error as Error).message.replace(/\s+/g, ' ').slice(0, 300)}`);
        }
      }
    }
    const kinds = Object.keys(paths);
    const samples: Record<string, number[]> = Object.fromEntries(kinds.map((kind) => [kind, []]));
    const cpuStart: Record<string, number> = {};
    let load = (): number => Number.NaN;

    const order = shuffledRounds(kinds);
    // Warm-up rounds run exactly like measured ones and without a pause before them: round trips between
    // processes get several times faster over the first seconds of steady traffic (and slow down again
    // after a pause of a few seconds), not only through JIT compilation.
    for (let round = 0; round < options.warmup + options.iterations; round++) {
      if (round === options.warmup) {
        for (const kind of kinds) cpuStart[kind] = cpuMs(paths[kind]?.pid);
        load = watchLoad();
      }
      for (const kind of order.next()) {
        const start = process.hrtime.bigint();
        await (paths[kind] as Path).call();
        const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
        if (round >= options.warmup) samples[kind]?.push(elapsed);
      }
    }

    const busy = load();
    const results: Record<string, PathResult> = {};
    for (const kind of kinds) {
      const path = paths[kind] as Path;
      const values = samples[kind] ?? [];
      const cpu = path.pid === undefined ? Number.NaN : cpuMs(path.pid) - (cpuStart[kind] ?? Number.NaN);
      results[kind] = {
        label: path.label,
        median: median(values),
        p90: percentile(values, 0.9),
        cpuPerCall: cpu / options.iterations,
        peer: path.peer === true,
      };
    }
    const overhead =
      (results.a?.median ?? Number.NaN) -
      (results.b?.median ?? Number.NaN) -
      (results.c?.median ?? Number.NaN);
    return {
      warmup: options.warmup,
      iterations: options.iterations,
      paths: results,
      overhead,
      beyondMinimal: (results.a?.median ?? Number.NaN) - (results.m?.median ?? Number.NaN),
      skipped,
      load: busy,
    };
  } finally {
    // SIGTERM: the daemon closes its MCP connections (ending server-everything) before it exits.
    for (const close of closers.reverse()) await close().catch(() => {});
  }
}

export function printEcho(result: EchoResult): void {
  const ms = (value: number): string => `${value.toFixed(3).padStart(7)} ms`;
  console.log(
    `\necho over STDIO on server-everything: ${result.iterations} interleaved rounds after ${result.warmup} warm-up rounds`,
  );
  for (const path of Object.values(result.paths)) {
    const cpu = Number.isNaN(path.cpuPerCall) ? '' : `   server CPU/call ${ms(path.cpuPerCall)}`;
    console.log(`  ${path.label.padEnd(68)} median ${ms(path.median)}   p90 ${ms(path.p90)}${cpu}`);
  }
  const floor = (result.paths.b?.median ?? Number.NaN) + (result.paths.c?.median ?? Number.NaN);
  console.log(`  ${'floor (b)+(c)'.padEnd(68)} median ${ms(floor)}`);
  console.log(`  ${'daemon overhead (a)-(b)-(c)'.padEnd(68)} median ${ms(result.overhead)}`);
  const minimal = (result.paths.m?.median ?? Number.NaN) - floor;
  console.log(`  ${'  of which any proxy process (m)-(b)-(c)'.padEnd(68)} median ${ms(minimal)}`);
  console.log(
    `  ${'  and the daemon beyond a minimal proxy (a)-(m)'.padEnd(68)} median ${ms(result.beyondMinimal)}`,
  );
  for (const reason of result.skipped) console.log(`  not measured: ${reason}`);
  if (!Number.isNaN(result.load)) {
    console.log(
      `  the machine's cores were ${Math.round(result.load * 100)}% busy during the measured rounds, this run included`,
    );
  }
}
