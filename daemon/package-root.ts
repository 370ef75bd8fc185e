import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The package's folder: the nearest one above this file that holds package.json. That is the
 * repository when the daemon runs from source (daemon/) and the installed package when it runs
 * compiled (dist/server/daemon/), so paths built on it are right both ways.
 */
export const PACKAGE_ROOT: string = findPackageRoot(import.meta.dirname);

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json in ${start} or above`);
  }
}
