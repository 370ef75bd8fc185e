/**
 * The other inspectors, measured on the same echo call in the same interleaved run. Neither is a
 * dependency of this project: each is installed on first use into a cache folder
 * (BENCH_PEERS_DIR, default ~/.cache/inspector-bench-peers) with `npm install --prefix … --no-save`.
 *
 * - The official MCP inspector's v1 proxy: `@modelcontextprotocol/inspector` 1.0.3, the last of the v1 line
 *   (2.x is a rewrite without the proxy), whose `inspector-server` package is the express proxy that
 *   `npx @modelcontextprotocol/inspector` starts (the bench starts it alone, as that launcher does). Its
 *   web client reaches a STDIO server as the SDK's SSE client of `GET /stdio?transportType=stdio&command=…`
 *   and posts each JSON-RPC message to `POST /message?sessionId=…`, whose answer comes back on the
 *   event stream; the session token goes in `X-MCP-Proxy-Auth: Bearer …`. The bench does the same.
 * - MCPJam, `@mcpjam/inspector` 1.0.24: a hono server; `POST /api/mcp/connect { serverId, serverConfig }`
 *   connects, then `POST /api/mcp/tools/execute { serverId, toolName, parameters }` calls a tool, the
 *   same body as this daemon's route. Called with the same HTTP client as the daemon.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as HttpClient } from 'undici';
import { EVERYTHING, freePort, startChild, stopChild } from './support.ts';

const PEERS_DIR = process.env.BENCH_PEERS_DIR ?? join(homedir(), '.cache/inspector-bench-peers');
// The whole package, not inspector-server alone: the server imports node-fetch without declaring it.
const OFFICIAL_PACKAGE = process.env.BENCH_OFFICIAL_PACKAGE ?? '@modelcontextprotocol/inspector@1.0.3';
const MCPJAM_PACKAGE = process.env.BENCH_MCPJAM_PACKAGE ?? '@mcpjam/inspector@1.0.24';
const PEER_TOKEN = 'bench-peer-token-0123456789abcdef0123456789abcdef';
const PASSTHROUGH_RESULT = ResultSchema.passthrough();

export interface Peer {
  label: string;
  /** One echo call with `message`; throws unless it answered. */
  call(message: string): Promise<void>;
  pid: number | undefined;
  close(): Promise<void>;
}

/** The package folder of `name@version`, installed into its own prefix under the cache when missing. */
async function installed(spec: string): Promise<string> {
  const at = spec.lastIndexOf('@');
  const name = spec.slice(0, at);
  const version = spec.slice(at + 1);
  const prefix = join(PEERS_DIR, spec.replace(/[@/]/g, '_'));
  const folder = join(prefix, 'node_modules', name);
  const manifest = join(folder, 'package.json');
  const current = existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === version;
  if (!current) {
    console.log(`installing ${spec} into ${prefix} (once; it is not a dependency of this project)…`);
    await promisify(execFile)(
      'npm',
      ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', spec],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  }
  return folder;
}

export async function startOfficialProxy(): Promise<Peer> {
  const folder = join(await installed(OFFICIAL_PACKAGE), '../inspector-server');
  const port = await freePort();
  const started = await startChild(process.execPath, [join(folder, 'build/index.js')], {
    name: 'the official inspector proxy',
    ready: /Proxy server listening on/,
    cwd: folder,
    env: { ...process.env, SERVER_PORT: String(port), HOST: '127.0.0.1', MCP_PROXY_AUTH_TOKEN: PEER_TOKEN },
  });
  try {
    const url = new URL(`http://127.0.0.1:${port}/stdio`);
    url.searchParams.set('transportType', 'stdio');
    url.searchParams.set('command', process.execPath);
    url.searchParams.set('args', `${EVERYTHING} stdio`);
    url.searchParams.set('env', '{}');
    const client = new Client({ name: 'inspector-bench', version: '1.0.0' });
    await client.connect(
      new SSEClientTransport(url, {
        requestInit: { headers: { 'X-MCP-Proxy-Auth': `Bearer ${PEER_TOKEN}` } },
      }),
    );
    return {
      label: 'official inspector v1 proxy, SSE client of /stdio + POST /message',
      pid: started.child.pid,
      async call(message) {
        const params = { name: 'echo', arguments: { message } };
        const result = await client.request({ method: 'tools/call', params }, PASSTHROUGH_RESULT);
        if (!Array.isArray(result.content)) throw new Error(`Unexpected result ${JSON.stringify(result)}`);
      },
      async close() {
        await client.close();
        await stopChild(started.child);
      },
    };
  } catch (error) {
    await stopChild(started.child);
    throw error;
  }
}

export async function startMcpJam(): Promise<Peer> {
  const folder = await installed(MCPJAM_PACKAGE);
  const port = await freePort();
  // It prints a banner but no line once it listens: its health route says when it does.
  const started = await startChild(process.execPath, [join(folder, 'dist/server/index.js')], {
    name: 'MCPJam',
    ready: /Inspector Launched/,
    cwd: folder,
    env: { ...process.env, PORT: String(port), NODE_ENV: 'production' },
  });
  const http = new HttpClient(`http://127.0.0.1:${port}`, { pipelining: 1 });
  const post = async (path: string, body: unknown): Promise<{ status: number; json: any }> => {
    const response = await http.request({
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.statusCode, json: await response.body.json() };
  };
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await http.request({ path: '/health', method: 'GET' });
        await response.body.dump();
        if (response.statusCode === 200) break;
      } catch (error) {
        if (attempt > 200) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const serverConfig = { command: process.execPath, args: [EVERYTHING, 'stdio'], env: {} };
    const connected = await post('/api/mcp/connect', { serverId: 'ev', serverConfig });
    if (connected.status !== 200)
      throw new Error(`MCPJam could not connect: ${JSON.stringify(connected.json)}`);
    return {
      label: 'MCPJam POST /api/mcp/tools/execute',
      pid: started.child.pid,
      async call(message) {
        const body = { serverId: 'ev', toolName: 'echo', parameters: { message } };
        const { status, json } = await post('/api/mcp/tools/execute', body);
        if (status !== 200 || json.status !== 'completed') {
          throw new Error(`MCPJam answered ${status}: ${JSON.stringify(json)}`);
        }
      },
      async close() {
        await http.close();
        await stopChild(started.child);
      },
    };
  } catch (error) {
    await http.close();
    await stopChild(started.child);
    throw error;
  }
}
