/**
 * Which server a command talks to, and opening it: `--server ID` (from the registry in the data
 * folder, or from `--config FILE`), or inline with `--stdio "command args"` or `--url U`; in this
 * process, or through a running daemon with `--daemon URL`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { configFromEntry, type ServerConfig } from '../../shared/servers.ts';
import { defaultDataDir } from '../options.ts';
import { ConfigFileError, readConfigFile } from '../servers/config-file.ts';
import { configProblems } from '../servers/check-config.ts';
import { readRegistry, type StoredServer } from '../servers/registry-file.ts';
import { Answerer, readAnswers } from './answers.ts';
import { type DaemonAccess, openDaemon } from './daemon-session.ts';
import { usageError } from './failure.ts';
import { openLocal } from './local-session.ts';
import { type Session, track } from './session.ts';
import { shellWords } from './shell-words.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** How an inline server is given: shared by the calling commands and `servers add`. */
export const SERVER_OPTIONS = {
  stdio: { type: 'string' },
  env: { type: 'string', multiple: true },
  cwd: { type: 'string' },
  url: { type: 'string' },
  header: { type: 'string', multiple: true },
  transport: { type: 'string' },
} as const satisfies Options;

/** Where the registry and the daemon are. */
export const PLACE_OPTIONS = {
  daemon: { type: 'string' },
  token: { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  pretty: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export const TARGET_OPTIONS = {
  ...SERVER_OPTIONS,
  ...PLACE_OPTIONS,
  server: { type: 'string' },
  config: { type: 'string' },
  answer: { type: 'string', multiple: true },
  verbose: { type: 'boolean' },
  timeout: { type: 'string' },
} as const satisfies Options;

/** The longest `--timeout` a call may have: the daemon's own bound on a call's time-out (a day). */
const MAX_TIMEOUT_SECONDS = 86_400;

/**
 * `--timeout SECONDS`: how long a tool call may go without an answer (or progress) before it fails;
 * undefined for the default (5 minutes, as in the daemon).
 */
export function callTimeoutMs(values: Values): number | undefined {
  const text = values.timeout;
  if (typeof text !== 'string') return undefined;
  const seconds = Number(text);
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text) || seconds <= 0 || seconds > MAX_TIMEOUT_SECONDS) {
    throw usageError(
      `--timeout must be a number of seconds above 0, at most ${MAX_TIMEOUT_SECONDS}, not "${text}"`,
    );
  }
  return Math.max(1, Math.round(seconds * 1000));
}

export type Values = Partial<Record<string, string | boolean | string[]>>;

/** Parses a command's arguments, turning parseArgs' complaints into one usage line. */
export function parseCommand<T extends Options>(
  args: string[],
  options: T,
): { values: Values; positionals: string[] } {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') break;
    const name = /^--([^=]+)$/.exec(arg)?.[1];
    const option = name ? options[name] : undefined;
    if (option?.type !== 'string') continue;
    const next = args[i + 1];
    // A value that starts with "-" is taken as given (parseArgs would call it ambiguous): --arg n=-1.
    if (next === undefined || /^--[a-z]/.test(next)) throw usageError(`--${name} needs a value`);
    args = [...args.slice(0, i), `--${name}=${next}`, ...args.slice(i + 2)];
  }
  try {
    const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals: true });
    return { values: values as Values, positionals };
  } catch (error) {
    const { code, message } = error as Error & { code?: string };
    const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw usageError(`unknown option ${quoted}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && /does not take an argument/.test(message)) {
      throw usageError(`${quoted.split(' ')[0]} takes no value`);
    }
    throw usageError(message.split('\n')[0] ?? 'bad arguments');
  }
}

const text = (values: Values, name: string): string | undefined => {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
};
const list = (values: Values, name: string): string[] => {
  const value = values[name];
  return Array.isArray(value) ? value : [];
};

/** `NAME=value` pairs (--env), or `Name: value` (--header). */
function pairs(values: string[], option: string, separator: '=' | ':'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(separator);
    const name = at > 0 ? value.slice(0, at).trim() : '';
    if (!name) {
      throw usageError(
        `${option} needs ${separator === '=' ? 'NAME=value' : "'Name: value'"}, not "${value}"`,
      );
    }
    out[name] = separator === ':' ? value.slice(at + 1).trim() : value.slice(at + 1);
  }
  return out;
}

/** The server given inline with --stdio or --url, checked as the daemon checks a PUT; none when neither. */
export function inlineConfig(values: Values): ServerConfig | undefined {
  const stdio = text(values, 'stdio');
  const url = text(values, 'url');
  if (stdio !== undefined && url !== undefined) throw usageError('give --stdio or --url, not both');
  let config: ServerConfig;
  if (stdio !== undefined) {
    if (values.header || values.transport)
      throw usageError('--header and --transport go with --url, not --stdio');
    let words: string[];
    try {
      words = shellWords(stdio);
    } catch (error) {
      throw usageError(`--stdio: ${(error as Error).message}`);
    }
    const [command, ...args] = words;
    if (!command) throw usageError('--stdio needs a command, such as --stdio "npx -y my-server"');
    const env = pairs(list(values, 'env'), '--env', '=');
    const cwd = text(values, 'cwd');
    config = {
      transport: 'stdio',
      command,
      ...(args.length && { args }),
      ...(Object.keys(env).length && { env }),
      ...(cwd && { cwd }),
    };
  } else if (url !== undefined) {
    if (values.env || values.cwd) throw usageError('--env and --cwd go with --stdio, not --url');
    const transport = text(values, 'transport');
    if (transport !== undefined && transport !== 'sse' && transport !== 'http') {
      throw usageError(`--transport is sse or http, not "${transport}"`);
    }
    const headers = pairs(list(values, 'header'), '--header', ':');
    const entry = configFromEntry({
      url,
      ...(transport && { type: transport }),
      ...(Object.keys(headers).length && { headers }),
    });
    if (typeof entry === 'string') throw usageError(`--url: ${entry}`);
    config = entry;
  } else {
    if (values.env || values.cwd || values.header || values.transport) {
      throw usageError(
        '--env, --cwd, --header and --transport describe a server given with --stdio or --url',
      );
    }
    return undefined;
  }
  const problems = configProblems(config);
  if (problems.length) {
    const where = config.transport === 'stdio' ? '--stdio' : '--url';
    throw usageError(`${where}: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`);
  }
  return config;
}

export function dataDirOf(values: Values, env: NodeJS.ProcessEnv): string {
  return text(values, 'data-dir') ?? env.INSPECTOR_DATA_DIR ?? defaultDataDir(env);
}

export const registryFileOf = (values: Values, env: NodeJS.ProcessEnv): string =>
  join(dataDirOf(values, env), 'servers.json');

/** The registry's servers, or a usage error naming the file when it cannot be read. */
export async function registryServers(file: string): Promise<StoredServer[]> {
  try {
    return await readRegistry(file);
  } catch (error) {
    throw usageError(`cannot read the server registry ${file}: ${(error as Error).message}`);
  }
}

/** The daemon named with --daemon, and the token: --token, else INSPECTOR_TOKEN, else the token file. */
export async function daemonAccess(
  values: Values,
  env: NodeJS.ProcessEnv,
): Promise<DaemonAccess | undefined> {
  const given = text(values, 'daemon');
  if (given === undefined) {
    if (values.token !== undefined) throw usageError('--token goes with --daemon URL');
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `http://${given}`);
  } catch {
    throw usageError(`--daemon needs the daemon's address, such as http://127.0.0.1:6274, not "${given}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`--daemon needs an http:// address, not "${given}"`);
  }
  const origin = url.origin;
  const flag = text(values, 'token');
  if (flag !== undefined) return { url: origin, token: flag, tokenOrigin: '--token' };
  if (env.INSPECTOR_TOKEN) return { url: origin, token: env.INSPECTOR_TOKEN, tokenOrigin: 'INSPECTOR_TOKEN' };
  const file = join(dataDirOf(values, env), 'token');
  const stored = await readFile(file, 'utf8').then(
    (t) => t.trim(),
    () => undefined,
  );
  return stored
    ? { url: origin, token: stored, tokenOrigin: `the token file ${file}` }
    : { url: origin, tokenOrigin: `none: no --token, INSPECTOR_TOKEN or ${file}` };
}

export type Target =
  | { kind: 'daemon'; access: DaemonAccess; serverId: string }
  /** `label` names the server in messages: `"id"`, or how it was given inline. */
  | { kind: 'local'; server: StoredServer; label: string };

const NAME_IT = 'name the server with --server ID, --stdio "command args" or --url URL';

/**
 * The server the command line names. `collectionServer` is the server a test collection was saved
 * against: used when --server is not given, before --stdio/--url, if the registry (or the daemon) has it.
 */
export async function resolveTarget(
  values: Values,
  env: NodeJS.ProcessEnv,
  collectionServer?: string,
): Promise<Target> {
  const id = text(values, 'server');
  const inline = inlineConfig(values);
  const config = text(values, 'config');
  if (id !== undefined && inline) throw usageError('give --server or --stdio/--url, not both');
  const access = await daemonAccess(values, env);
  if (access) {
    if (inline || config !== undefined) {
      throw usageError(
        "with --daemon, name one of the daemon's servers with --server ID (add it with `servers add`)",
      );
    }
    const serverId = id ?? collectionServer;
    if (!serverId) throw usageError("with --daemon, name one of the daemon's servers with --server ID");
    return { kind: 'daemon', access, serverId };
  }
  if (config !== undefined) {
    if (inline) throw usageError('give --config with --server ID, or --stdio/--url alone');
    let servers: StoredServer[];
    try {
      servers = await readConfigFile(config, '--config');
    } catch (error) {
      if (error instanceof ConfigFileError) throw usageError(error.message);
      throw error;
    }
    const wanted = id ?? collectionServer ?? (servers.length === 1 ? servers[0]?.id : undefined);
    const server = servers.find((s) => s.id === wanted);
    if (!server) {
      const ids = servers.map((s) => s.id).join(', ') || 'none';
      throw usageError(
        wanted === undefined
          ? `--config ${config} has several servers (${ids}): pick one with --server ID`
          : `--config ${config} has no server "${wanted}" (it has: ${ids})`,
      );
    }
    return { kind: 'local', server, label: `"${server.id}" of ${config}` };
  }
  if (id === undefined && inline) {
    if (collectionServer) {
      const stored = (await registryServers(registryFileOf(values, env))).find(
        (s) => s.id === collectionServer,
      );
      if (stored) return { kind: 'local', server: stored, label: `"${stored.id}"` };
    }
    const label = `the ${inline.transport === 'stdio' ? '--stdio' : '--url'} server`;
    const inlineId = collectionServer ?? 'inline';
    return { kind: 'local', server: { id: inlineId, name: inlineId, config: inline }, label };
  }
  const wanted = id ?? collectionServer;
  if (wanted === undefined) throw usageError(NAME_IT);
  const file = registryFileOf(values, env);
  const server = (await registryServers(file)).find((s) => s.id === wanted);
  if (!server) {
    throw usageError(
      `no server "${wanted}" in ${file}: add it with \`inspector-daemon servers add ${wanted} --stdio "…"\`, or ${NAME_IT}`,
    );
  }
  return { kind: 'local', server, label: `"${server.id}"` };
}

/** Opens the target; the session is closed on Ctrl+C, and must be closed by the caller otherwise. */
export async function openTarget(target: Target, values: Values): Promise<Session> {
  const answerer = new Answerer(readAnswers(list(values, 'answer')));
  const toolTimeoutMs = callTimeoutMs(values);
  const session =
    target.kind === 'daemon'
      ? await openDaemon(target.access, target.serverId, answerer, toolTimeoutMs)
      : await openLocal(target.server, {
          answerer,
          label: target.label,
          verbose: values.verbose === true,
          toolTimeoutMs,
        });
  return track(session);
}

/** Opens the server the command line names, runs `work` and closes it, whatever happens. */
export async function withSession<T>(
  values: Values,
  env: NodeJS.ProcessEnv,
  work: (session: Session) => Promise<T>,
): Promise<T> {
  const session = await openTarget(await resolveTarget(values, env), values);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}
