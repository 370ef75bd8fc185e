import { parseArgs } from 'node:util';
import { createDaemon, type Daemon, StartupError } from './app.ts';
import { installLastResortHandlers } from './last-resort.ts';
import { type DaemonOptions, defaultDataDir, defaultOptions } from './options.ts';
import { VERSION } from './version.ts';

const USAGE = `Usage: inspector-daemon [--port N] [--host H] [--config FILE] [--data-dir DIR] [--token T] [--no-auth]
                        [--allowed-host NAME]...

  --port N            port to listen on (PORT; default 6274; 0 picks a free port)
  --host H            address to bind (HOST; default 127.0.0.1). Beyond loopback the token is mandatory.
  --config FILE       import servers from an mcpServers JSON file at start (INSPECTOR_CONFIG)
  --data-dir DIR      token and server registry folder (INSPECTOR_DATA_DIR; default ~/.config/inspector-daemon)
  --token T           use this token instead of the stored one (INSPECTOR_TOKEN)
  --no-auth           no token (loopback only; prints a warning)
  --allowed-host NAME accept this Host header name as well as loopback names (repeatable)`;

class UsageError extends Error {}

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): DaemonOptions | 'help' | 'version' {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  if (values.help) return 'help';
  if (values.version) return 'version';
  const portText = values.port ?? env.PORT ?? '6274';
  if (!/^\d+$/.test(portText) || Number(portText) > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, not "${portText}"`);
  }
  const token = values['no-auth'] ? null : (values.token ?? env.INSPECTOR_TOKEN);
  if (typeof token === 'string' && token.length < 16)
    throw new UsageError('--token must be at least 16 characters');
  const debugOn = Boolean(env.DEBUG_MCP_SELECTION && env.DEBUG_MCP_SELECTION !== '0');
  return defaultOptions({
    port: Number(portText),
    host: values.host ?? env.HOST ?? '127.0.0.1',
    mode: env.NODE_ENV === 'development' ? 'development' : 'production',
    dataDir: values['data-dir'] ?? env.INSPECTOR_DATA_DIR ?? defaultDataDir(env),
    token: token === '' ? undefined : token,
    allowedHosts: values['allowed-host'] ?? [],
    configFile: values.config ?? env.INSPECTOR_CONFIG,
    debug: debugOn ? (line) => console.error(`[debug] ${line}`) : undefined,
  });
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
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

function fail(message: string, code = 1): never {
  console.error(`inspector-daemon: ${message}`);
  process.exit(code);
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv, env);
  } catch (error) {
    fail(`${(error as Error).message} (see --help)`, 2);
  }
  if (parsed === 'help') return console.log(USAGE);
  if (parsed === 'version') return console.log(VERSION);
  const options = parsed;

  let daemon: Daemon;
  let url: string;
  try {
    daemon = await createDaemon(options);
    url = await daemon.listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      fail(`port ${options.port} is in use: stop the other process or pass --port N (0 picks a free port)`);
    if (code === 'EADDRNOTAVAIL') fail(`cannot bind ${options.host}: no such address on this machine`);
    if (code === 'EACCES') fail(`not allowed to listen on ${options.host}:${options.port}`);
    if (error instanceof StartupError) fail(error.message);
    fail(`cannot start: ${(error as Error).message}`);
  }

  installLastResortHandlers((line) => console.error(line));
  console.log(`inspector-daemon listening on ${url} (${options.mode})`);
  if (daemon.token === null) {
    console.error(
      'inspector-daemon: WARNING: --no-auth: any program on this machine can use the API and start processes',
    );
  } else {
    console.log(`token: ${daemon.token}`);
    console.log(
      `Pair the extension: open its options, enter ${url} and this token (API clients send it as X-Inspector-Token).`,
    );
  }

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    options.debug?.(`${signal}: closing connections`);
    daemon.close().then(
      () => process.exit(0),
      (error: unknown) => fail(`error while closing: ${(error as Error).message}`),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
