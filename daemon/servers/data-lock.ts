/**
 * One daemon a data folder. Two daemons on one folder would each write the server registry with only
 * their own servers, and the servers added to one would be gone at its next start. A daemon holds
 * `<data folder>/daemon.pid` (its process id) while it runs; a second one is refused, naming the first.
 * A file whose process is gone, or is no daemon (its id taken by another program since, or by this very
 * process after a restart in a new container), is taken over.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolder } from '../make-folder.ts';

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
      `another inspector-daemon (process ${pid}) is using the data folder ${folder}: stop it, or give this one a folder of its own with --data-dir (if none runs, delete ${join(folder, LOCK_FILE)})`,
    );
  }
}

const LOCK_FILE = 'daemon.pid';

/** The folders daemons of this process hold (an embedding shell, the tests): the file cannot tell. */
const heldHere = new Set<string>();

/**
 * Whether `pid` is a daemon that may hold a folder: a running process other than this one, and, where
 * the system tells (Linux's /proc), one that runs Node or the inspector, not any program that got its id.
 */
function mayHold(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let commandLine: string;
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true;
  }
  return /node|inspector|electron/i.test(commandLine);
}

/** The process id of a daemon that runs with `folder`, if one does (its lock file names a live one). */
export async function daemonHolding(folder: string): Promise<number | undefined> {
  const pid = Number((await readFile(join(folder, LOCK_FILE), 'utf8').catch(() => '')).trim());
  return Number.isSafeInteger(pid) && pid > 0 && mayHold(pid) ? pid : undefined;
}

/** Takes the folder for this process (`pid` stands for another daemon's process in tests). */
export async function lockDataFolder(folder: string, pid = process.pid): Promise<DataFolderLock> {
  const here = pid === process.pid;
  if (here && heldHere.has(folder)) throw new DataFolderTaken(folder, pid);
  if (here) heldHere.add(folder);
  const file = join(folder, LOCK_FILE);
  const mine = `${pid}\n`;
  try {
    await makeFolder(folder);
    await take(folder, file, mine);
  } catch (error) {
    if (here) heldHere.delete(folder);
    throw error;
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      if (here) heldHere.delete(folder);
      if ((await readFile(file, 'utf8').catch(() => '')) === mine) await rm(file, { force: true });
    },
  };
}

/**
 * Puts `content` in `file` unless a daemon holds it. The content is written whole beside the file and
 * linked into place: a link fails if the file exists, so no reader sees a half-written file, and of two
 * daemons only one gets it.
 */
async function take(folder: string, file: string, content: string): Promise<void> {
  const draft = `${file}.${randomBytes(6).toString('hex')}`;
  await writeFile(draft, content, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(draft, file);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 200) throw error;
      }
      const seen = await readFile(file, 'utf8').catch(() => '');
      const holder = Number.parseInt(seen, 10);
      if (Number.isSafeInteger(holder) && holder > 0 && mayHold(holder))
        throw new DataFolderTaken(folder, holder);
      await removeStale(file, seen);
    }
  } finally {
    await rm(draft, { force: true });
  }
}

/** How long a takeover may take before its mark is taken for one left by a daemon that died in it. */
const TAKEOVER_MS = 5_000;

/**
 * Removes a stale file, one daemon at a time (the mark is a folder, made atomically): the file is read
 * again under the mark and removed only if it is still the stale one, so a file another daemon has linked
 * since is never removed. A daemon that finds the mark waits for a moment and tries again.
 */
async function removeStale(file: string, stale: string): Promise<void> {
  const mark = `${file}.takeover`;
  try {
    await mkdir(mark);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const since = await stat(mark).then(
      (info) => Date.now() - info.mtimeMs,
      () => 0,
    );
    if (since > TAKEOVER_MS) await rm(mark, { recursive: true, force: true });
    else await new Promise((resolve) => setTimeout(resolve, 5));
    return;
  }
  try {
    if ((await readFile(file, 'utf8').catch(() => undefined)) === stale) await rm(file, { force: true });
  } finally {
    await rm(mark, { recursive: true, force: true });
  }
}
