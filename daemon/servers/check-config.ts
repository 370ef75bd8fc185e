import type { Problem } from '../../shared/errors.ts';
import { oauthSettingsProblems } from '../../shared/oauth.ts';
import { serverConfigSchema } from '../../shared/schemas.ts';
import type { ServerConfig } from '../../shared/servers.ts';
import { invalidRequest, problemsOf } from '../http/validate.ts';

const SCHEMES: Record<string, readonly string[]> = {
  sse: ['http:', 'https:'],
  http: ['http:', 'https:'],
  websocket: ['ws:', 'wss:'],
};

/** What is wrong with a server config, by the same schema as `PUT`, plus a URL that really parses. */
export function configProblems(config: unknown): Problem[] {
  // Checked against the one branch its transport picks: the other branch's complaints would only confuse.
  const [stdioSchema, remoteSchema] = serverConfigSchema.oneOf;
  const stdio = (config as { transport?: unknown } | null)?.transport === 'stdio';
  const problems = problemsOf(stdio ? stdioSchema : remoteSchema, config);
  if (problems.length) return problems;
  const remote = config as ServerConfig;
  if (remote.transport === 'stdio') return stdioProblems(remote);
  let url: URL;
  try {
    url = new URL(remote.url);
  } catch {
    return [{ path: 'url', message: 'is not a valid URL' }];
  }
  const schemes = SCHEMES[remote.transport] ?? [];
  const authProblems = [...headerProblems(remote.headers), ...oauthProblems(remote)];
  if (authProblems.length) return authProblems;
  return schemes.includes(url.protocol)
    ? []
    : [
        {
          path: 'url',
          message: `a ${remote.transport} server needs ${schemes.map((s) => `${s}//`).join(' or ')}`,
        },
      ];
}

/** Rejects once, naming every config that is wrong by its path (`config`, `mcpServers.<id>`). */
export function checkServerConfigs(configs: ReadonlyArray<{ path: string; config: unknown }>): void {
  const problems = serverConfigProblems(configs);
  if (problems.length) throw invalidRequest(problems);
}

/** Every problem of these server configs, each under its own path (`config.url`, `mcpServers.x.url`). */
export function serverConfigProblems(configs: ReadonlyArray<{ path: string; config: unknown }>): Problem[] {
  return configs.flatMap(({ path, config }) =>
    configProblems(config).map((problem) => ({ ...problem, path: `${path}.${problem.path}` })),
  );
}

/** OAuth settings that cannot work: on a WebSocket server, or a grant without what it needs. */
function oauthProblems(config: ServerConfig): Problem[] {
  if (config.transport === 'stdio' || !config.auth) return [];
  if (config.transport === 'websocket') {
    return [{ path: 'auth', message: 'OAuth is for http and sse servers' }];
  }
  return oauthSettingsProblems(config.auth).map(({ field, message }) => ({ path: `auth.${field}`, message }));
}

/**
 * What no process can be given: a NUL character ends a C string, so spawning would fail at every connect
 * (and the error would quote the value, NUL escaped, where no redaction finds it).
 */
function stdioProblems(config: Extract<ServerConfig, { transport: 'stdio' }>): Problem[] {
  const nul = 'contains a NUL character, which no process can be given';
  const problems: Problem[] = [];
  if (config.command.includes('\0')) problems.push({ path: 'command', message: nul });
  config.args?.forEach((arg, i) => {
    if (arg.includes('\0')) problems.push({ path: `args.${i}`, message: nul });
  });
  for (const [name, value] of Object.entries(config.env ?? {})) {
    if (name.includes('\0') || name.includes('=')) {
      problems.push({ path: `env.${name}`, message: 'is not a variable name (no "=" or NUL character)' });
    } else if (value.includes('\0')) problems.push({ path: `env.${name}`, message: nul });
  }
  if (config.cwd?.includes('\0')) problems.push({ path: 'cwd', message: nul });
  return problems;
}

/** An HTTP header name: a token (RFC 9110 section 5.6.2). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value the HTTP client refuses: a control character other than tab, or one beyond Latin-1. */
function badHeaderValue(value: string): boolean {
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if ((code < 0x20 && code !== 0x09) || code === 0x7f || code > 0xff) return true;
  }
  return false;
}
/** Headers the HTTP client sets itself or refuses to send. */
const CLIENT_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
]);

/** Headers that could never be sent: each would fail every connect, at the era probe or the handshake. */
function headerProblems(headers: Record<string, string> | undefined): Problem[] {
  const problems: Problem[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    const path = `headers.${name}`;
    if (!HEADER_NAME.test(name)) {
      problems.push({
        path,
        message: "is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~ only)",
      });
    } else if (CLIENT_HEADERS.has(name.toLowerCase())) {
      problems.push({ path, message: 'is set by the HTTP client itself and cannot be given' });
    } else if (badHeaderValue(value)) {
      problems.push({
        path,
        message: 'holds a character no HTTP header value may (a line break or another control character)',
      });
    }
  }
  return problems;
}
