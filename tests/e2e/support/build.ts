import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../daemon/helpers.ts';

function run(bin: string, args: string[]): void {
  try {
    execFileSync(join(ROOT, 'node_modules/.bin', bin), args, { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${bin} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
}

/** Vitest global setup of the e2e project: the tests drive what the builds produce, built once per run. */
export default function buildOnce(): void {
  run('wxt', ['build']);
  run('vite', ['build', '--config', 'vite.web.config.ts']);
}
