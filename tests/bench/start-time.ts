/**
 * Start to listening: the compiled bin (`bin/inspector-daemon.js`, what `npx inspector-daemon` runs) spawned
 * with a data folder that already holds its token, as on every start but the first, timed from the spawn
 * to its `listening on` line, and on to the answer of a `GET /api/mcp/health` sent as that line comes (the
 * daemon loads some of its code once it listens: this shows what that costs a request that comes at
 * once). The first start of a run is timed too but is reported apart: it fills Node's compile cache if
 * nothing has yet.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAEMON_BIN, median, startChild, stopChild } from './support.ts';

export interface StartResult {
  /** Median ms from spawning Node itself to its first line, for comparison. */
  node: number;
  first: number;
  /** Every start after the first, in ms. */
  starts: number[];
  median: number;
  /** Median ms from the spawn to the answer of the first request, starts after the first. */
  answer: number;
}

/** The status of a GET, over a connection of its own. */
function getStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    }).once('error', reject);
  });
}

export async function measureStart(count: number): Promise<StartResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'inspector-bench-start-'));
  try {
    const times: number[] = [];
    const answers: number[] = [];
    for (let i = 0; i <= count; i++) {
      const started = await startChild(process.execPath, [DAEMON_BIN, '--port', '0', '--data-dir', dataDir], {
        name: 'the daemon',
        ready: /listening on (http:\/\/\S+)/,
      });
      const ready = performance.now();
      const status = await getStatus(`${started.match}/api/mcp/health`);
      if (status !== 200) throw new Error(`GET /api/mcp/health answered ${status}`);
      times.push(started.readyMs);
      answers.push(started.readyMs + performance.now() - ready);
      await stopChild(started.child);
    }
    const [first = Number.NaN, ...starts] = times;
    const node: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = await startChild(process.execPath, ['-e', 'console.log("listening on node")'], {
        name: 'node',
        ready: /listening on/,
      });
      node.push(started.readyMs);
      await stopChild(started.child);
    }
    return { node: median(node), first, starts, median: median(starts), answer: median(answers.slice(1)) };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function printStart(result: StartResult): void {
  const list = result.starts.map((ms) => ms.toFixed(0)).join(', ');
  console.log(`\nstart to listening (compiled bin): first ${result.first.toFixed(0)} ms, then ${list} ms`);
  console.log(
    `  median ${result.median.toFixed(0)} ms; to the answer of a first request: ${result.answer.toFixed(0)} ms;` +
      ` Node alone, spawned to its first line: ${result.node.toFixed(0)} ms`,
  );
}
