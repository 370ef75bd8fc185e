import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../daemon/helpers.ts';

/**
 * Vitest global setup of the firefox project: the Firefox zip that `npm run zip` makes (`wxt zip -b
 * firefox`, which builds .output/firefox-mv3 and packs it), made once per run; the tests install that zip.
 * Unlike the Chromium tests they need no test build: Firefox can be told to grant a requested host
 * permission without its prompt, so each test daemon takes a free port and pairing asks for it as it
 * does for a user.
 */
export default function zipOnce(): void {
  try {
    execFileSync(join(ROOT, 'node_modules/.bin/wxt'), ['zip', '-b', 'firefox'], {
      cwd: ROOT,
      stdio: 'pipe',
      encoding: 'utf8',
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`wxt zip -b firefox failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
}
