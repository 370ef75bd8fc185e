/**
 * One daemon a data folder (daemon/servers/data-lock.ts): the pid file on disk, held, refused to a
 * second holder while the first runs, taken over from a process that is gone.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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

  it('takes over a folder whose holder is gone, is no daemon, is this process, or says nothing', async () => {
    const dir = await folder();
    // A program that got the id of a daemon gone (a reused pid), and this process's own id left by an
    // earlier run (a container restarted with the same ids).
    const other = spawn('sleep', ['30']);
    onTestFinished(() => void other.kill());
    await once(other, 'spawn');
    for (const left of [`${await endedPid()}\n`, `${other.pid}\n`, `${process.pid}\n`, '', 'not a pid']) {
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

  it('lets exactly one of several daemons starting at once take over a stale file', async () => {
    // Three daemons' processes (Node processes that stay), all taking over the same stale file at once.
    const daemons = Array.from({ length: 3 }, () =>
      spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']),
    );
    onTestFinished(() => daemons.forEach((child) => child.kill()));
    await Promise.all(daemons.map((child) => once(child, 'spawn')));
    const stale = `${await endedPid()}\n`;
    const dir = await folder();
    for (let round = 0; round < 150; round++) {
      await writeFile(join(dir, 'daemon.pid'), stale);
      const outcomes = await Promise.allSettled(daemons.map((child) => lockDataFolder(dir, child.pid)));
      const won = outcomes.flatMap((outcome, i) => (outcome.status === 'fulfilled' ? [daemons[i]!.pid] : []));
      expect(won, `round ${round}`).toHaveLength(1);
      expect(await readFile(join(dir, 'daemon.pid'), 'utf8')).toBe(`${won[0]}\n`);
      for (const outcome of outcomes) if (outcome.status === 'fulfilled') await outcome.value.release();
    }
    expect((await readdir(dir)).sort()).toEqual([]);
  });

  it('makes the folder when it does not exist yet', async () => {
    const dir = join(await folder(), 'new', 'data');
    await (await lockDataFolder(dir)).release();
  });
});
