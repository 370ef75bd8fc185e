import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { makeFolder } from '../make-folder.ts';
import {
  configFromEntry,
  entryFromConfig,
  type McpServersFile,
  type Root,
  SERVER_ID_PATTERN,
  type ServerConfig,
} from '../../shared/servers.ts';

export interface StoredServer {
  id: string;
  name: string;
  config: ServerConfig;
  /** Kept only in the daemon's own registry, not taken from an imported file. */
  roots?: Root[];
}

const ID = new RegExp(SERVER_ID_PATTERN);

/** Parses an `mcpServers` file into servers, or throws one error naming every bad entry. */
export function parseMcpServers(json: unknown, source: string): StoredServer[] {
  const file = json as Partial<McpServersFile> | null;
  if (!file || typeof file !== 'object' || typeof file.mcpServers !== 'object' || file.mcpServers === null) {
    throw new Error(`${source}: expected an object with "mcpServers"`);
  }
  const servers: StoredServer[] = [];
  const problems: string[] = [];
  for (const [id, entry] of Object.entries(file.mcpServers)) {
    if (!ID.test(id)) {
      problems.push(`"${id}": ids use letters, digits, ".", "_" and "-"`);
      continue;
    }
    const config = entry && typeof entry === 'object' ? configFromEntry(entry) : 'must be an object';
    if (typeof config === 'string') problems.push(`"${id}": ${config}`);
    else servers.push({ id, name: typeof entry.name === 'string' ? entry.name : id, config });
  }
  if (problems.length) throw new Error(`${source}: ${problems.join('; ')}`);
  return servers;
}

/** The temporary files writeRegistry writes beside `file`: `<name>.<12 hex digits>.tmp`. */
function isTemporaryOf(file: string, name: string): boolean {
  const prefix = `${basename(file)}.`;
  return name.startsWith(prefix) && /^[0-9a-f]{12}\.tmp$/.test(name.slice(prefix.length));
}

/**
 * Removes temporary files an earlier run left beside the registry when it was killed mid-write: they
 * hold the servers' secrets and nothing will ever rename them.
 */
export async function removeStaleTemporaries(file: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await Promise.all(
    names
      .filter((name) => isTemporaryOf(file, name))
      .map((name) => rm(join(dirname(file), name), { force: true })),
  );
}

export async function readRegistry(file: string): Promise<StoredServer[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const json: unknown = JSON.parse(text);
  const entries = (json as Partial<McpServersFile>).mcpServers ?? {};
  // The roots are the daemon's own field: read back from its registry, never from imports.
  return parseMcpServers(json, file).map((server) => {
    const roots = rootsOf(entries[server.id]?.roots);
    return roots.length ? { ...server, roots } : server;
  });
}

/** The well-formed roots of a registry entry; anything else in the field is dropped. */
function rootsOf(value: unknown): Root[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((root): root is Root => typeof root?.uri === 'string' && root.uri.length > 0)
    .map((root) => (typeof root.name === 'string' ? { uri: root.uri, name: root.name } : { uri: root.uri }));
}

/** Flushes a folder's entries (a rename in it) to disk; not every platform can open a folder for that. */
async function syncFolder(folder: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * Writes a temporary file beside the target, flushes it to disk, renames it over the target and
 * flushes the folder: readers never see half a file, and after a crash or power loss the registry is
 * the old one or the new one, never empty. A temporary file left by a kill is removed at the next start.
 */
export async function writeRegistry(file: string, servers: StoredServer[]): Promise<void> {
  const body: McpServersFile = {
    mcpServers: Object.fromEntries(
      servers.map((s) => [
        s.id,
        { ...entryFromConfig(s.name, s.id, s.config), ...(s.roots?.length && { roots: s.roots }) },
      ]),
    ),
  };
  const folder = dirname(file);
  await makeFolder(folder);
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    // 0600: the file holds the servers' env and headers, which are secrets.
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(body, null, 2)}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncFolder(folder);
}
