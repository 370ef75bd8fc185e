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
  const problems = configs.flatMap(({ path, config }) =>
    configProblems(config).map((problem) => ({ ...problem, path: `${path}.${problem.path}` })),
  );
  if (problems.length) throw invalidRequest(problems);
}

/** OAuth settings that cannot work: on a WebSocket server, or a grant without what it needs. */
function oauthProblems(config: ServerConfig): Problem[] {
  if (config.transport === 'stdio' || !config.auth) return [];
  if (config.transport === 'websocket') {
    return [{ path: 'auth', message: 'OAuth is for http and sse servers' }];
  }
  const problems: Problem[] = [];
  if (config.auth.grant === 'client_credentials') {
    if (!config.auth.clientId)
      problems.push({ path: 'auth.clientId', message: 'is required for client_credentials' });
    if (!config.auth.clientSecret && !config.auth.privateKey) {
      problems.push({
        path: 'auth.clientSecret',
        message: 'is required for client_credentials (or a privateKey for private_key_jwt)',
      });
    }
  }
  if (config.auth.grant === 'jwt_bearer' && !config.auth.assertion) {
    problems.push({ path: 'auth.assertion', message: 'is required for jwt_bearer: the JWT to present' });
  }
  if (config.auth.grant === 'token_exchange') {
    const need = (field: keyof typeof config.auth, message: string) => {
      if (!config.auth?.[field]) problems.push({ path: `auth.${field}`, message });
    };
    need('clientId', 'is required for token_exchange: the identity assertion grant names it');
    need('idToken', "is required for token_exchange: the person's ID token from the IdP");
    need('idpClientId', "is required for token_exchange: the daemon's client id at the IdP");
    if (!config.auth.idpUrl && !config.auth.idpTokenEndpoint) {
      problems.push({
        path: 'auth.idpUrl',
        message: 'is required for token_exchange (or auth.idpTokenEndpoint)',
      });
    }
  }
  if ((config.auth.clientSecret || config.auth.privateKey) && !config.auth.clientId) {
    problems.push({ path: 'auth.clientId', message: 'is required with a clientSecret or privateKey' });
  }
  return problems;
}
