/**
 * The browser's part of OAuth for the conformance adapter: the server's `auth` settings for a scenario
 * (from MCP_CONFORMANCE_CONTEXT, as a person would type them), and following an authorization URL the
 * daemon answers with, as a browser would, until the redirect reaches the daemon's own callback.
 */
import type { ErrorBody } from '../../shared/errors.ts';
import type { OAuthSettings } from '../../shared/oauth.ts';

/** The client metadata document URL a person would give for a CIMD client. */
export const CONFORMANCE_CIMD_URL = 'https://conformance-test.local/client-metadata.json';

interface ConformanceContext {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  /** Workload identity federation: a workload token issued for the authorization server. */
  valid_jwt?: string;
  /** Enterprise-managed authorization: the person's ID token and the IdP it is from. */
  idp_id_token?: string;
  idp_token_endpoint?: string;
  idp_client_id?: string;
}

/** The `auth` settings of the scenario's server: none for scenarios that are not about OAuth. */
export function authSettingsFor(scenario: string): OAuthSettings | undefined {
  if (!scenario.startsWith('auth/')) return undefined;
  let context: ConformanceContext = {};
  try {
    context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as ConformanceContext;
  } catch {
    // no context: a dynamically registered client
  }
  if (scenario.startsWith('auth/client-credentials')) {
    return {
      grant: 'client_credentials',
      clientId: context.client_id,
      ...(context.client_secret && { clientSecret: context.client_secret }),
      ...(context.private_key_pem && { privateKey: context.private_key_pem }),
      ...(context.signing_algorithm && { signingAlgorithm: context.signing_algorithm }),
    };
  }
  if (scenario === 'auth/wif-jwt-bearer') {
    return { grant: 'jwt_bearer', clientId: context.client_id, assertion: context.valid_jwt };
  }
  if (scenario === 'auth/enterprise-managed-authorization') {
    return {
      grant: 'token_exchange',
      clientId: context.client_id,
      clientSecret: context.client_secret,
      // Its IdP's discovery document lacks fields OpenID Discovery requires: the endpoint is given.
      idpTokenEndpoint: context.idp_token_endpoint,
      idpClientId: context.idp_client_id,
      idToken: context.idp_id_token,
    };
  }
  if (context.client_id) {
    return {
      clientId: context.client_id,
      ...(context.client_secret && { clientSecret: context.client_secret }),
    };
  }
  if (scenario === 'auth/basic-cimd') return { clientMetadataUrl: CONFORMANCE_CIMD_URL };
  if (scenario.startsWith('auth/dpop')) return { dpop: true };
  return {};
}

/** The authorization URL of a daemon answer that asks for a person to sign in, if it is one. */
export function authorizationUrlOf(body: unknown): string | undefined {
  const error = body as ErrorBody | undefined;
  if (error?.code !== 'authorization_required') return undefined;
  const data = error.mcpError?.data as { authorizationUrl?: unknown } | undefined;
  return typeof data?.authorizationUrl === 'string' ? data.authorizationUrl : undefined;
}

/**
 * Opens the authorization URL like a browser: follows redirects (at most 10) until a page answers,
 * which is the daemon's callback page once the authorization server sends the browser back.
 */
export async function followAuthorization(
  url: string,
  /** Called with each URL before it is opened: a test may change one, as a hostile page would. */
  visit: (url: string) => string = (next) => next,
): Promise<{ status: number; page: string; url: string }> {
  let next = url;
  // Cookies by origin, as a browser keeps them for the authorization server's login and consent.
  const cookies = new Map<string, Map<string, string>>();
  for (let hop = 0; hop < 20; hop++) {
    next = visit(next);
    const origin = new URL(next).origin;
    const jar = cookies.get(origin) ?? new Map<string, string>();
    cookies.set(origin, jar);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(next, { redirect: 'manual', headers: cookie ? { Cookie: cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      next = new URL(location, next).href;
      continue;
    }
    return { status: response.status, page: await response.text(), url: next };
  }
  throw new Error(`more than 20 redirects from ${url}`);
}
