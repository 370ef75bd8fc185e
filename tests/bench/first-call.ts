/**
 * The first call after registering a server: `PUT /api/mcp/servers/:id` with server-everything over STDIO,
 * then `POST /api/mcp/tools/execute` of `echo`, timed from the PUT to the answer, on a daemon that is
 * already running (the compiled bin). Against it, what a program pays on its own: the SDK client
 * spawning the same server, `initialize` and the same call. Interleaved, each server new; the daemon's
 * server is deleted (and its process ended) after each round, untimed.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as HttpClient } from 'undici';
import { EVERYTHING_STDIO, JSON_HEADERS, median, startDaemon } from './support.ts';

const PASSTHROUGH_RESULT = ResultSchema.passthrough();
const ECHO = { name: 'echo', arguments: { message: 'hi' } };

export interface FirstCallResult {
  daemon: number[];
  direct: number[];
  /** Median daemon time over median direct time. */
  ratio: number;
}

async function request(http: HttpClient, method: 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown) {
  const response = await http.request({
    path,
    method,
    headers: JSON_HEADERS,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json: any = await response.body.json();
  return { status: response.statusCode, json };
}

export async function measureFirstCall(rounds: number): Promise<FirstCallResult> {
  const daemon = await startDaemon();
  const http = new HttpClient(daemon.url, { pipelining: 1 });
  const times = { daemon: [] as number[], direct: [] as number[] };
  try {
    const viaDaemon = async (id: string): Promise<number> => {
      const started = performance.now();
      const put = await request(http, 'PUT', `/api/mcp/servers/${id}`, {
        config: { transport: 'stdio', ...EVERYTHING_STDIO },
      });
      if (put.status !== 201) throw new Error(`PUT answered ${put.status}: ${JSON.stringify(put.json)}`);
      const body = { serverId: id, toolName: ECHO.name, parameters: ECHO.arguments };
      const call = await request(http, 'POST', '/api/mcp/tools/execute', body);
      const elapsed = performance.now() - started;
      if (call.status !== 200)
        throw new Error(`execute answered ${call.status}: ${JSON.stringify(call.json)}`);
      await request(http, 'DELETE', `/api/mcp/servers/${id}`);
      return elapsed;
    };
    const direct = async (): Promise<number> => {
      const started = performance.now();
      const client = new Client({ name: 'first-call-bench', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ ...EVERYTHING_STDIO, stderr: 'ignore' }));
      const result = await client.request({ method: 'tools/call', params: ECHO }, PASSTHROUGH_RESULT);
      const elapsed = performance.now() - started;
      if (!Array.isArray(result.content)) throw new Error(`Unexpected result ${JSON.stringify(result)}`);
      await client.close();
      return elapsed;
    };
    // One of each first, untimed: the daemon's and this process's first spawn also load code.
    await viaDaemon('warm');
    await direct();
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        times.daemon.push(await viaDaemon(`ev${round}`));
        times.direct.push(await direct());
      } else {
        times.direct.push(await direct());
        times.daemon.push(await viaDaemon(`ev${round}`));
      }
    }
    return { ...times, ratio: median(times.daemon) / median(times.direct) };
  } finally {
    await http.close();
    await daemon.close();
  }
}

export function printFirstCall(result: FirstCallResult): void {
  const list = (values: number[]): string => values.map((ms) => ms.toFixed(0)).join(', ');
  console.log('\nfirst call after registering a server (server-everything over STDIO, echo)');
  console.log(
    `  daemon  PUT + execute:                  median ${median(result.daemon).toFixed(0)} ms (${list(result.daemon)})`,
  );
  console.log(
    `  direct  SDK spawn + initialize + call:  median ${median(result.direct).toFixed(0)} ms (${list(result.direct)})`,
  );
  console.log(`  ratio ${result.ratio.toFixed(2)}`);
}
