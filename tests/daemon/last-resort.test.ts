import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, TSX_LOADER } from './helpers.ts';

/** Runs a module in a fresh Node process and collects what it printed and how it ended. */
function run(source: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...TSX_LOADER, '--input-type=module', '-e', source], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('last-resort handlers', () => {
  it('log an uncaught exception and an unhandled rejection in one line each, and the process keeps running', async () => {
    const module = JSON.stringify(join(ROOT, 'daemon/last-resort.ts'));
    const { code, stdout, stderr } = await run(`
      import { installLastResortHandlers } from ${module};
      installLastResortHandlers((line) => console.error(line));
      setTimeout(() => { throw new TypeError('first line\\nsecond line with a secret'); }, 1);
      setTimeout(() => { void Promise.reject(new RangeError('Maximum call stack size exceeded')); }, 2);
      setTimeout(() => { console.log('still running'); }, 50);
    `);
    expect(code).toBe(0);
    expect(stdout).toBe('still running\n');
    expect(stderr.trim().split('\n')).toEqual([
      'inspector-daemon: internal error, still serving: TypeError: first line',
      'inspector-daemon: unhandled rejection, still serving: RangeError: Maximum call stack size exceeded',
    ]);
  });
});
