import { BlockList, isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { createDaemon, type Daemon, StartupError } from './app.ts';
import { installLastResortHandlers } from './last-resort.ts';
import { type DaemonOptions, defaultDataDir, defaultOptions, desktopOptions } from './options.ts';
import { isLoopbackHost } from './security/host-check-middleware.ts';
import { ConfigFileError, readConfigFile } from './servers/config-file.ts';
import type { StoredServer } from './servers/registry-file.ts';
import { tierUpEarly } from './tiering.ts';
import { VERSION } from './version.ts';

const USAGE = `Usage: inspector-daemon [--port N] [--host H] [--config FILE] [--data-dir DIR] [--token T] [--no-auth]
                        [--allowed-host NAME]... [--max-message-mb N] [--log-buffer-mb N]

  --port N             port to listen on (PORT; default 6274; 0 picks a free port)
  --host H             address to bind (HOST; default 127.0.0.1). Beyond loopback the token is mandatory,
                       and other machines need --allowed-host with the name or address they use.
  --config FILE        import servers from an mcpServers JSON file at start (INSPECTOR_CONFIG)
  --data-dir DIR       token and server registry folder (INSPECTOR_DATA_DIR; default ~/.config/inspector-daemon)
  --token T            use this token instead of the stored one (INSPECTOR_TOKEN)
  --no-auth            no token (loopback only; prints a warning)
  --allowed-host NAME  accept this Host header name as well as loopback names (repeatable)
  --max-message-mb N   the largest message a server may send, in MiB (default 64)
  --log-buffer-mb N    about how much of the live log is kept for replay, in MiB (default 128); a message
                       larger than a quarter of it is kept as a placeholder

A shared daemon (README "Shared daemons and user sign-in"): CLOUD_BACKEND_HTTP_URL accepts user bearer
tokens checked by that backend; INSPECTOR_OIDC_ISSUER and INSPECTOR_OIDC_CLIENT_ID let the web page sign in.

Commands (inspector-daemon COMMAND --help for each):
  tools list|call      list a server's tools, or call one (tools call NAME --args JSON)
  resources list|read  list a server's resources, or read one (resources read URI)
  prompts list|get     list a server's prompts, or get one (prompts get NAME --arg K=V)
  servers list|add|remove  the server registry (servers add ID --stdio "CMD ARGS" | --url URL)
  test FILE...         run saved-request collections as tests (--junit FILE for JUnit XML)
  record               record a session with a server to a .jsonl file
  replay               serve a recorded session as an MCP server (STDIO, or HTTP with --port)
  diff                 compare a server's tools, resources and prompts with a recording`;

/** The options that take a value, and what the value is, for "--port needs a number". */
const VALUE_OF: Record<string, string> = {
  port: 'a number',
  host: 'an address',
  config: 'a file',
  'data-dir': 'a folder',
  token: 'a value',
  'allowed-host': 'a host name',
  'max-message-mb': 'a number',
  'log-buffer-mb': 'a number',
};

/** Beyond this a message no longer fits in one JavaScript string. */
const MAX_MESSAGE_MB = 512;
/** The log buffer's bounds: room for a few messages at least, and no more than a heap holds. */
const MIN_LOG_BUFFER_MB = 4;
const MAX_LOG_BUFFER_MB = 16_384;

class UsageError extends Error {}

/** What the command line asks for: the daemon's options, and where the config file was named. */
export interface CommandLine {
  options: DaemonOptions;
  /** How the user named `options.configFile`. */
  configOrigin?: '--config' | 'INSPECTOR_CONFIG';
  /** How the user named `options.host`, for messages about it. */
  hostOrigin: '--host' | 'HOST';
}

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): CommandLine | 'help' | 'version' {
  const missing = missingValue(argv);
  if (missing) throw new UsageError(missing);
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(withNegativeNumbers(argv)).values;
  } catch (error) {
    throw new UsageError(parseProblem(error as Error & { code?: string }));
  }
  if (values.help) return 'help';
  if (values.version) return 'version';

  const portText = values.port ?? env.PORT ?? '6274';
  if (!/^\d+$/.test(portText) || Number(portText) > 65535) {
    const name = values.port !== undefined ? '--port' : 'PORT';
    throw new UsageError(`${name} must be a whole number from 0 to 65535, not "${portText}"`);
  }
  const hostOrigin = values.host !== undefined ? '--host' : 'HOST';
  const host = checkHost(values.host ?? env.HOST ?? '127.0.0.1', hostOrigin);
  if (values['no-auth'] && values.token !== undefined) {
    throw new UsageError('--no-auth and --token ask for opposite things: give one of them');
  }
  const token = values['no-auth'] ? null : (values.token ?? env.INSPECTOR_TOKEN);
  if (typeof token === 'string' && token.length < 16) {
    throw new UsageError(
      `${values.token !== undefined ? '--token' : 'INSPECTOR_TOKEN'} must be at least 16 characters`,
    );
  }
  const maxMessageBytes = mebibytes(values['max-message-mb'], '--max-message-mb', 1, MAX_MESSAGE_MB);
  const logBufferBytes = mebibytes(
    values['log-buffer-mb'],
    '--log-buffer-mb',
    MIN_LOG_BUFFER_MB,
    MAX_LOG_BUFFER_MB,
  );
  const configFile = values.config ?? (env.INSPECTOR_CONFIG || undefined);
  const userAuth = userAuthFromEnv(env);
  const debugOn = Boolean(env.DEBUG_MCP_SELECTION && env.DEBUG_MCP_SELECTION !== '0');
  // A desktop runtime (DESKTOP_APP) decides the mode itself; NODE_ENV otherwise.
  const desktopMode = desktopOptions(env).mode;
  const options = defaultOptions(
    {
      port: Number(portText),
      host,
      mode: desktopMode ?? (env.NODE_ENV === 'development' ? 'development' : 'production'),
      // An empty INSPECTOR_DATA_DIR is unset, as an empty XDG_CONFIG_HOME is: not the current folder, where
      // the token and the servers' secrets would be written (an empty --data-dir is a usage error).
      dataDir: values['data-dir'] ?? (env.INSPECTOR_DATA_DIR || defaultDataDir(env)),
      token: token === '' ? undefined : token,
      allowedHosts: (values['allowed-host'] ?? []).map(checkAllowedHost),
      configFile,
      ...(maxMessageBytes !== undefined && { maxMessageBytes }),
      ...(logBufferBytes !== undefined && { logBufferBytes }),
      ...(userAuth && { userAuth }),
      debug: debugOn ? (line) => console.error(`[debug] ${line}`) : undefined,
    },
    env,
  );
  if (!configFile) return { options, hostOrigin };
  return { options, hostOrigin, configOrigin: values.config !== undefined ? '--config' : 'INSPECTOR_CONFIG' };
}

/** An option given in MiB, as bytes; `undefined` when not given. */
function mebibytes(text: string | undefined, name: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}, not "${text}"`);
  }
  return Number(text) * 1024 * 1024;
}

/**
 * CLOUD_BACKEND_HTTP_URL turns user tokens on (SPEC part 5); INSPECTOR_OIDC_ISSUER and
 * INSPECTOR_OIDC_CLIENT_ID, both or neither, name the OpenID provider the web page signs users in with.
 */
export function userAuthFromEnv(env: NodeJS.ProcessEnv): DaemonOptions['userAuth'] {
  const backendUrl = env.CLOUD_BACKEND_HTTP_URL?.trim();
  if (!backendUrl) return undefined;
  checkHttpUrl('CLOUD_BACKEND_HTTP_URL', backendUrl);
  const issuer = env.INSPECTOR_OIDC_ISSUER?.trim();
  const clientId = env.INSPECTOR_OIDC_CLIENT_ID?.trim();
  if (!issuer !== !clientId) {
    throw new UsageError(
      'INSPECTOR_OIDC_ISSUER and INSPECTOR_OIDC_CLIENT_ID go together: set both or neither',
    );
  }
  if (!issuer || !clientId) return { backendUrl };
  checkHttpUrl('INSPECTOR_OIDC_ISSUER', issuer);
  return { backendUrl, signIn: { issuer: issuer.replace(/\/+$/, ''), clientId } };
}

function checkHttpUrl(name: string, value: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // Reported below.
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new UsageError(`${name} must be an http:// or https:// URL, not "${value.slice(0, 200)}"`);
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      config: { type: 'string' },
      'data-dir': { type: 'string' },
      token: { type: 'string' },
      'no-auth': { type: 'boolean' },
      'allowed-host': { type: 'string', multiple: true },
      'max-message-mb': { type: 'string' },
      'log-buffer-mb': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

/**
 * "--port needs a number" for an option given no value: last on the line, followed by another option,
 * or empty (`--port=`). parseArgs would take the next option as the value or call it ambiguous.
 */
function missingValue(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') return undefined;
    const match = /^--([^=]+)(=?)(.*)$/s.exec(arg);
    const name = match?.[1] ?? '';
    const what = VALUE_OF[name];
    if (!what) continue;
    if (match?.[2] === '=') {
      if (match[3] === '') return `--${name} needs ${what}`;
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined || next === '' || (next.startsWith('-') && !NEGATIVE.test(next))) {
      return `--${name} needs ${what}`;
    }
    i++;
  }
  return undefined;
}

/** A value that starts with a dash but is a number (`--port -1`), to be refused for its range. */
const NEGATIVE = /^-[\d.]/;

/** `--port -1` as `--port=-1`: parseArgs calls a value with a leading dash ambiguous. */
function withNegativeNumbers(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const next = argv[i + 1];
    if (arg === '--') return out.concat(argv.slice(i));
    if (VALUE_OF[arg.slice(2)] && arg.startsWith('--') && next !== undefined && NEGATIVE.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** parseArgs' complaint, said shortly. */
function parseProblem(error: Error & { code?: string }): string {
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? '';
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}": every option starts with --`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(error.message)) return `${quoted} takes no value`;
      break;
  }
  return error.message.split('\n')[0] ?? 'bad arguments';
}

/** A DNS host name: labels of letters, digits and hyphens. */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/**
 * The address to bind, as given (IPv6 without brackets): an IP address or a host name; `source` is
 * where it came from (`--host` or `HOST`). A URL or an address with a port is refused here, a name
 * that does not resolve when the daemon listens.
 */
function checkHost(value: string, source: string): string {
  const host = hostOf(value);
  if (host !== undefined) return host;
  const hint = withSchemeOrPort(value) ? ': give the address alone, the port goes in --port' : '';
  throw new UsageError(
    `${source} must be an address to listen on, such as 127.0.0.1 or 0.0.0.0, not "${value}"${hint}`,
  );
}

/** An IP address (IPv6 without brackets) or a host name, as given; undefined for anything else. */
function hostOf(value: string): string | undefined {
  const host = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  return isIP(host) || HOST_NAME.test(host) ? host : undefined;
}

/** A URL or an address with a port, where a host alone was wanted. */
const withSchemeOrPort = (value: string): boolean => /^[a-z]+:\/\/|:\d+$/i.test(value);

/**
 * A name for `--allowed-host`: what clients send in their Host header, without its port. A URL or an
 * address with a port would never match one, and the daemon would refuse them without a word.
 */
function checkAllowedHost(value: string): string {
  const host = hostOf(value);
  if (host !== undefined) return host;
  const hint = withSchemeOrPort(value) ? ': give the name alone, without scheme or port' : '';
  throw new UsageError(
    `--allowed-host must be a host name or address, such as myhost.local or 192.168.1.20, not "${value}"${hint}`,
  );
}

const WILDCARD = new BlockList();
WILDCARD.addAddress('0.0.0.0', 'ipv4');
WILDCARD.addAddress('::', 'ipv6');

/** `0.0.0.0` or `::` (however written): every address of the machine. */
function isWildcard(host: string): boolean {
  const family = isIP(host);
  return family !== 0 && WILDCARD.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

function fail(message: string, code = 1): never {
  console.error(`inspector-daemon: ${message}`);
  process.exit(code);
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  if (argv[0] !== undefined && !argv[0].startsWith('-')) {
    // A subcommand (tools, resources, test, record…): loaded only when one is asked for.
    const { runCommand } = await import('./commands/index.ts');
    process.exitCode = await runCommand(argv[0], argv.slice(1), env);
    return;
  }
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv, env);
  } catch (error) {
    fail(`${(error as Error).message} (see --help)`, 2);
  }
  if (parsed === 'help') return console.log(USAGE);
  if (parsed === 'version') return console.log(VERSION);
  const { options, configOrigin, hostOrigin } = parsed;

  let daemon: Daemon | undefined;
  let url: string;
  try {
    // Read and checked here, before anything starts, so the message can name --config or INSPECTOR_CONFIG.
    let servers: StoredServer[] = [];
    if (options.configFile && configOrigin) servers = await readConfigFile(options.configFile, configOrigin);
    daemon = await createDaemon({ ...options, configFile: undefined });
    if (servers.length) await daemon.manager.put(servers);
    url = await daemon.listen();
  } catch (error) {
    // Made but not listening (the port is taken): it lets its data folder go before the process ends.
    await daemon?.close().catch(() => {});
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      fail(
        `port ${options.port} is in use (another inspector-daemon?): stop that process or pass --port N (0 picks a free port)`,
      );
    }
    if (code === 'EADDRNOTAVAIL')
      fail(`cannot listen on ${hostOrigin} ${options.host}: no such address on this machine`);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      fail(
        `cannot listen on ${hostOrigin} ${options.host}: no address has that name; give an address such as 127.0.0.1`,
      );
    }
    if (code === 'EACCES') fail(`not allowed to listen on ${options.host}:${options.port}`);
    if (error instanceof StartupError || error instanceof ConfigFileError) fail(error.message);
    fail(`cannot start: ${(error as Error).message}`);
  }

  installLastResortHandlers((line) => console.error(line));
  tierUpEarly(env);
  const port = new URL(url).port;
  // A daemon on every address is reached on this machine at the loopback one: the address to pair with.
  const wildcard = isWildcard(options.host);
  const pairUrl = wildcard ? `http://127.0.0.1:${port}` : url;
  console.log(
    `inspector-daemon listening on ${pairUrl} (${options.mode})` +
      (wildcard ? `, and on all addresses (--host ${options.host})` : ''),
  );
  if (isIP(options.host) && !isLoopbackHost(options.host) && options.allowedHosts.length === 0) {
    // The Host check lets through loopback names and the bound address: not the names others use.
    console.error(
      wildcard
        ? `inspector-daemon: WARNING: on all addresses, but requests from other machines are refused (403 Forbidden Host) unless they use a name or address given with --allowed-host; on this machine use ${pairUrl}`
        : `inspector-daemon: WARNING: only requests to ${url} are answered; to reach it by a name for this machine, add --allowed-host NAME`,
    );
  }
  if (daemon.token === null) {
    console.error(
      'inspector-daemon: WARNING: --no-auth: any program on this machine can use the API and start processes' +
        (env.INSPECTOR_TOKEN ? ' (INSPECTOR_TOKEN is set, and not used)' : ''),
    );
  } else {
    console.log(`token: ${daemon.token}`);
    console.log(
      `Pair the extension: open its options, enter ${pairUrl} and this token (API clients send it as X-Inspector-Token).`,
    );
  }

  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    options.debug?.(`${why}: closing connections`);
    daemon.close().then(
      () => process.exit(0),
      (error: unknown) => fail(`error while closing: ${(error as Error).message}`),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  stopWithNpm(env, stop);
}

/**
 * npm (`npm start`, `npx inspector-daemon`) runs the daemon under `sh -c`. A SIGTERM npm passes on
 * ends that shell but, where the shell is dash, not the daemon under it: the daemon then notices that
 * its parent is gone and stops as if it had the signal itself. (Ctrl+C in a terminal reaches the whole
 * process group, the daemon too; a SIGINT npm alone passes on is held by dash while it waits.)
 */
function stopWithNpm(env: NodeJS.ProcessEnv, stop: (why: string) => void): void {
  if (!env.npm_lifecycle_event) return;
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop(`the process that started it (${parent}) is gone`);
  }, 250).unref();
}
