/**
 * One daemon a data folder (daemon/servers/data-lock.ts): the pid file on disk, held, refused to a
 * second holder while the first runs, taken over from a process that is gone.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DataFolderTaken, lockDataFolder } from '../../daemon/servers/data-lock.ts';

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inspector-lock-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The id of a process that has ended. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid as number;
}

describe('the data folder lock', () => {
  it('holds the folder with its process id until released, and refuses a second holder meanwhile', async () => {
    const dir = await folder();
    const lock = await lockDataFolder(dir);
    expect(await readFile(join(dir, 'daemon.pid'), 'utf8')).toBe(`${process.pid}\n`);
    const refused = await lockDataFolder(dir).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataFolderTaken);
    expect((refused as DataFolderTaken).pid).toBe(process.pid);
    await lock.release();
    await expect(readFile(join(dir, 'daemon.pid'), 'utf8')).rejects.toThrow(/ENOENT/);
    await (await lockDataFolder(dir)).release();
  });

  it('takes over a folder whose holder is gone, or whose file says nothing', async () => {
    const dir = await folder();
    for (const left of [`${await endedPid()}\n`, '', 'not a pid']) {
      await writeFile(join(dir, 'daemon.pid'), left);
      const lock = await lockDataFolder(dir);
      expect(await readFile(join(dir, 'daemon.pid'), 'utf8')).toBe(`${process.pid}\n`);
      await lock.release();
    }
  });

  it('leaves a file another daemon wrote since alone when released', async () => {
    const dir = await folder();
    const lock = await lockDataFolder(dir);
    await writeFile(join(dir, 'daemon.pid'), '424242\n');
    await lock.release();
    expect(await readFile(join(dir, 'daemon.pid'), 'utf8')).toBe('424242\n');
  });

  it('makes the folder when it does not exist yet', async () => {
    const dir = join(await folder(), 'new', 'data');
    await (await lockDataFolder(dir)).release();
  });
});
