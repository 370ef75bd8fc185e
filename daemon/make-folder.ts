import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * Creates `folder` and the parents it lacks (mode 0700: the data folder holds the token and secrets),
 * one level at a time. Node's own `mkdir(…, { recursive: true })` loops for good, at full CPU, where the
 * kernel answers ENOENT for a parent that exists (`/proc`, `/sys`): a daemon given `--data-dir /proc/x`
 * spun at start. Here that is an ENOENT error naming the folder.
 */
export async function makeFolder(folder: string, mode = 0o700): Promise<void> {
  // Not the current folder by accident, as `resolve('')` would have it.
  if (folder === '') throw Object.assign(new Error('ENOENT: no folder named'), { code: 'ENOENT' });
  const path = resolve(folder);
  if (await made(path, mode)) return;
  const parent = dirname(path);
  if (parent !== path) await makeFolder(parent, mode);
  if (!(await made(path, mode))) {
    throw Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${path}'`), {
      code: 'ENOENT',
      errno: -2,
      syscall: 'mkdir',
      path,
    });
  }
}

/** Makes the one folder `path`: true once it is there, false when its parent is missing. */
async function made(path: string, mode: number): Promise<boolean> {
  try {
    await mkdir(path, { mode });
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'EEXIST' && (await stat(path)).isDirectory()) return true;
    throw error;
  }
}
