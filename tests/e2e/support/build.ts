import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../daemon/helpers.ts';

function run(bin: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  try {
    execFileSync(join(ROOT, 'node_modules/.bin', bin), args, {
      cwd: ROOT,
      env,
      stdio: 'pipe',
      encoding: 'utf8',
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${bin} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
}

/**
 * Vitest global setup of the e2e project: the tests drive what the builds produce, built once per run.
 * The extension is the test build (wxt.config.ts, INSPECTOR_TEST_BUILD): in .output/test-chrome-mv3,
 * granted every loopback port, so the tests' daemons take free ports and a daemon of one's own may keep
 * 6274.
 */
export default function buildOnce(): void {
  run('wxt', ['build'], { ...process.env, INSPECTOR_TEST_BUILD: '1' });
  run('vite', ['build', '--config', 'vite.web.config.ts']);
}
