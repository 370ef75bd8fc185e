import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeFolder } from '../../daemon/make-folder.ts';

let dir = '';
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('makeFolder', () => {
  it('makes the folder and the parents it lacks, mode 0700, and takes one that is there', async () => {
    dir = await mkdtemp(join(tmpdir(), 'make-folder-'));
    const deep = join(dir, 'a', 'b', 'c');
    await makeFolder(deep);
    for (const folder of [join(dir, 'a'), join(dir, 'a', 'b'), deep]) {
      const info = await stat(folder);
      expect([info.isDirectory(), info.mode & 0o777]).toEqual([true, 0o700]);
    }
    await makeFolder(deep);
    await makeFolder(`${deep}/`);
  });

  it('refuses an empty path, which would be the current folder', async () => {
    await expect(makeFolder('')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a path through a file, as Node does', async () => {
    dir = await mkdtemp(join(tmpdir(), 'make-folder-'));
    const file = join(dir, 'file');
    await writeFile(file, 'x');
    await expect(makeFolder(file)).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(makeFolder(join(file, 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('says ENOENT for a folder the kernel will not make under a parent that is there (/proc)', async () => {
    await expect(makeFolder('/proc/make-folder-test/data')).rejects.toMatchObject({
      code: 'ENOENT',
      path: '/proc/make-folder-test',
    });
  });
});
