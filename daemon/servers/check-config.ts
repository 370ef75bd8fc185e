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
  if (remote.transport === 'stdio') return [];
  let url: URL;
  try {
    url = new URL(remote.url);
  } catch {
    return [{ path: 'url', message: 'is not a valid URL' }];
  }
  const schemes = SCHEMES[remote.transport] ?? [];
  const authProblems = oauthProblems(remote);
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
