/**
 * `inspector-daemon servers list | add ID | remove ID`: the server registry, edited in the data folder
 * (written atomically, as the daemon writes it) or, with --daemon, through the running daemon.
 */
import { SERVER_ID_PATTERN, type ServerConfig } from '../../shared/servers.ts';
import { dirname } from 'node:path';
import { daemonHolding } from '../servers/data-lock.ts';
import { writeRegistry } from '../servers/registry-file.ts';
import { maskConfig } from '../servers/secrets.ts';
import { DaemonApi, DaemonCallError } from './daemon-session.ts';
import { EXIT } from './exit-codes.ts';
import { guarded, usageError } from './failure.ts';
import { type OutputMode, outputMode, print } from './output.ts';
import { terminalSafe } from './terminal-safe.ts';
import {
  daemonAccess,
  inlineConfig,
  parseCommand,
  PLACE_OPTIONS,
  registryFileOf,
  registryServers,
  SERVER_OPTIONS,
  type Values,
} from './target.ts';

const USAGE = `Usage: inspector-daemon servers list
       inspector-daemon servers add ID (--stdio "CMD ARGS" [--env NAME=VALUE]... [--cwd DIR]
                                        | --url URL [--header 'Name: value']... [--transport sse|http])
                                       [--name NAME]
       inspector-daemon servers remove ID

  --daemon URL         change the running daemon's registry (with --token T) instead of the file
  --data-dir DIR       the registry's folder (INSPECTOR_DATA_DIR; default ~/.config/inspector-daemon)
  --json | --pretty    JSON (default when stdout is not a terminal) or readable text

A running daemon reads <data-dir>/servers.json when it starts: to change one that runs, use --daemon.
Secrets (env and header values) are stored, never printed.`;

const OPTIONS = { ...SERVER_OPTIONS, ...PLACE_OPTIONS, name: { type: 'string' } } as const;
const ID = new RegExp(SERVER_ID_PATTERN);

interface Listed {
  id: string;
  name: string;
  config: ServerConfig;
  status?: string;
}

/** A word of a command line as a shell would need it: quoted when it holds a space or a quote. */
function shellWord(word: string): string {
  return word === '' || /[\s'"\\]/.test(word) ? JSON.stringify(word) : word;
}

function describe(config: ServerConfig): string {
  return config.transport === 'stdio'
    ? [config.command, ...(config.args ?? [])].map(shellWord).join(' ')
    : config.url;
}

function readableServers({ servers }: { servers: Listed[] }): string {
  if (!servers.length) return '(no servers)';
  const rows = servers.map((s) => [s.id, s.config.transport, describe(s.config), s.status ?? '']);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        // Columns line up; the command pads only when a status follows it (through a daemon).
        .map((cell, i) => (i < 2 || (i === 2 && r[3]) ? cell.padEnd(widths[i] ?? 0) : cell))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function list(values: Values, env: NodeJS.ProcessEnv, mode: OutputMode): Promise<number> {
  const access = await daemonAccess(values, env);
  let servers: Listed[];
  if (access) {
    servers = (await new DaemonApi(access).call('GET /servers/', {})).servers;
  } else {
    servers = (await registryServers(registryFileOf(values, env))).map(({ id, name, config }) => ({
      id,
      name,
      config: maskConfig(config),
    }));
  }
  print(mode, { servers }, readableServers);
  return EXIT.ok;
}

/** A line on stderr beside the command's output (which stays the JSON or text asked for). */
function note(text: string): void {
  console.error(terminalSafe(`inspector-daemon servers: ${text}`));
}

/** A daemon that runs with this folder keeps its own list: a change to the file is not what it serves. */
async function warnIfDaemonHolds(folder: string): Promise<void> {
  const pid = await daemonHolding(folder);
  if (pid === undefined) return;
  note(
    `a daemon (process ${pid}) runs with ${folder}: it does not read this change, and writes its own ` +
      'list over it; to change its servers, add --daemon URL',
  );
}

async function add(id: string, values: Values, env: NodeJS.ProcessEnv, mode: OutputMode): Promise<number> {
  const config = inlineConfig(values);
  if (!config) throw usageError(`servers add ${id} needs --stdio "command args" or --url URL`);
  const name = typeof values.name === 'string' ? values.name : id;
  const access = await daemonAccess(values, env);
  let server: Listed;
  if (access) {
    // The daemon checks the config as this command did: what it still refuses is a 400, a usage error.
    server = await new DaemonApi(access).call('PUT /servers/:id', { id }, { name, config });
  } else {
    const file = registryFileOf(values, env);
    const servers = await registryServers(file);
    const existing = servers.find((s) => s.id === id);
    const entry = { id, name, config, ...(existing?.roots && { roots: existing.roots }) };
    await writeRegistry(file, existing ? servers.map((s) => (s.id === id ? entry : s)) : [...servers, entry]);
    server = { id, name, config: maskConfig(config) };
    if (existing) {
      note(`replaced "${id}": its earlier settings (${describe(maskConfig(existing.config))}) are gone`);
    }
    await warnIfDaemonHolds(dirname(file));
  }
  print(mode, server, (s) => `saved "${s.id}" (${s.config.transport}: ${describe(s.config)})`);
  return EXIT.ok;
}

async function remove(id: string, values: Values, env: NodeJS.ProcessEnv, mode: OutputMode): Promise<number> {
  const access = await daemonAccess(values, env);
  if (access) {
    try {
      await new DaemonApi(access).call('DELETE /servers/:id', { id });
    } catch (error) {
      if (error instanceof DaemonCallError && error.status === 404) {
        throw usageError(
          `the daemon at ${access.url} has no server "${id}" (see servers list --daemon ${access.url})`,
        );
      }
      throw error;
    }
  } else {
    const file = registryFileOf(values, env);
    const servers = await registryServers(file);
    if (!servers.some((s) => s.id === id))
      throw usageError(`no server "${id}" in ${file} (see servers list)`);
    await writeRegistry(
      file,
      servers.filter((s) => s.id !== id),
    );
    await warnIfDaemonHolds(dirname(file));
  }
  print(mode, { removed: id }, () => `removed "${id}"`);
  return EXIT.ok;
}

export function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return guarded('servers', async () => {
    const { values, positionals } = parseCommand(argv, OPTIONS);
    if (values.help) {
      console.log(USAGE);
      return EXIT.ok;
    }
    const [action, id, ...extra] = positionals;
    const mode = outputMode(values);
    const extraArg = action === 'list' ? id : extra[0];
    if (extraArg !== undefined) throw usageError(`unexpected argument "${extraArg}"`);
    if (action === 'list') return list(values, env, mode);
    if (action !== 'add' && action !== 'remove') {
      throw usageError(
        action === undefined
          ? 'servers needs list, add or remove'
          : `servers has no "${action}": use list, add or remove`,
      );
    }
    if (id === undefined) throw usageError(`servers ${action} needs the server's id`);
    if (!ID.test(id)) {
      throw usageError(
        `"${id}" is not a server id: use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
      );
    }
    if (action === 'remove' && (inlineConfig(values) || values.name !== undefined)) {
      throw usageError('servers remove takes only the id');
    }
    return action === 'add' ? add(id, values, env, mode) : remove(id, values, env, mode);
  });
}
