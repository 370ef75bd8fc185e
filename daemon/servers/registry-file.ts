import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  configFromEntry,
  entryFromConfig,
  type McpServersFile,
  SERVER_ID_PATTERN,
  type ServerConfig,
} from '../../shared/servers.ts';

export interface StoredServer {
  id: string;
  name: string;
  config: ServerConfig;
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

export async function readRegistry(file: string): Promise<StoredServer[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return parseMcpServers(JSON.parse(text), file);
}

/** Writes a temporary file beside the target and renames it over: readers never see half a file. */
export async function writeRegistry(file: string, servers: StoredServer[]): Promise<void> {
  const body: McpServersFile = {
    mcpServers: Object.fromEntries(servers.map((s) => [s.id, entryFromConfig(s.name, s.id, s.config)])),
  };
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    // 0600: the file holds the servers' env and headers, which are secrets.
    await writeFile(temporary, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
