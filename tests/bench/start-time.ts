/**
 * Start to listening: the compiled bin (`bin/inspector-daemon.js`, what `npx inspector-daemon` runs) spawned
 * with a data folder that already holds its token, as on every start but the first, timed from the spawn
 * to its `listening on` line. The first start of a run is timed too but is reported apart: it fills
 * Node's compile cache if nothing has yet.
 */
import { mkdtemp, rm } from 'node:fs/promises';
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
}

export async function measureStart(count: number): Promise<StartResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'inspector-bench-start-'));
  try {
    const times: number[] = [];
    for (let i = 0; i <= count; i++) {
      const started = await startChild(process.execPath, [DAEMON_BIN, '--port', '0', '--data-dir', dataDir], {
        name: 'the daemon',
        ready: /listening on (http:\/\/\S+)/,
      });
      times.push(started.readyMs);
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
    return { node: median(node), first, starts, median: median(starts) };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function printStart(result: StartResult): void {
  const list = result.starts.map((ms) => ms.toFixed(0)).join(', ');
  console.log(`\nstart to listening (compiled bin): first ${result.first.toFixed(0)} ms, then ${list} ms`);
  console.log(
    `  median ${result.median.toFixed(0)} ms; Node alone, spawned to its first line: ${result.node.toFixed(0)} ms`,
  );
}
