import type { Problem } from '../../shared/errors.ts';
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
  const problems = configs.flatMap(({ path, config }) =>
    configProblems(config).map((problem) => ({ ...problem, path: `${path}.${problem.path}` })),
  );
  if (problems.length) throw invalidRequest(problems);
}
