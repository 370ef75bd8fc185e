/**
 * One daemon a data folder. Two daemons on one folder would each write the server registry with only
 * their own servers, and the servers added to one would be gone at its next start. A daemon holds
 * `<data folder>/daemon.pid` (its process id) while it runs; a second one is refused, naming the first.
 * A file whose process is gone (a daemon that was killed) is taken over.
 */
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export interface DataFolderLock {
  /** Lets the folder go: the file is removed if it is still this daemon's. */
  release(): Promise<void>;
}

/** Another daemon holds the folder: `pid` is its process. */
export class DataFolderTaken extends Error {
  constructor(
    readonly folder: string,
    readonly pid: number,
  ) {
    super(
      `another inspector-daemon (process ${pid}) is using the data folder ${folder}: stop it, or give this one a folder of its own with --data-dir`,
    );
  }
}

/** Whether a process with this id runs (one of another user's counts: EPERM). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function lockDataFolder(folder: string, pid = process.pid): Promise<DataFolderLock> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const file = join(folder, 'daemon.pid');
  const mine = `${pid}\n`;
  for (;;) {
    try {
      const handle = await open(file, 'wx', 0o600);
      try {
        await handle.writeFile(mine);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
    if (Number.isSafeInteger(holder) && holder > 0 && running(holder))
      throw new DataFolderTaken(folder, holder);
    // Left by a daemon that is gone (or half written): taken over.
    await rm(file, { force: true });
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      if ((await readFile(file, 'utf8').catch(() => '')) === mine) await rm(file, { force: true });
    },
  };
}
