/**
 * The `auth/*` client scenarios of `@modelcontextprotocol/conformance` with the daemon as the client,
 * driven only through its HTTP API by the adapter (tests/conformance/adapter.ts): it puts the server
 * with the `auth` settings a person would type, and opens each authorization URL the daemon answers
 * with like a browser, which brings the redirect back to the daemon's own callback. No token is handed
 * to the daemon from outside.
 */
import { describe, it } from 'vitest';
import { expectPassed, runScenario } from './runner.ts';

/** Every check succeeded (none failed or warned), at least one ran, the named ones among them, and the runner says PASSED. */
async function expectScenarioPasses(scenario: string, checkIds: string[]): Promise<void> {
  expectPassed(await runScenario(scenario), checkIds, { someChecks: true });
}

const AUTHORIZATION_CODE = ['authorization-request', 'token-request', 'pkce-s256-method-used'];
const RESOURCE = ['resource-parameter-in-authorization', 'resource-parameter-in-token'];

describe('conformance auth scenarios with the daemon as the client', () => {
  it.each([
    ['auth/metadata-default', [...AUTHORIZATION_CODE, ...RESOURCE, 'prm-pathbased-requested']],
    ['auth/metadata-var1', AUTHORIZATION_CODE],
    ['auth/metadata-var2', AUTHORIZATION_CODE],
    ['auth/metadata-var3', AUTHORIZATION_CODE],
    ['auth/basic-cimd', ['authorization-request', 'token-request']],
    ['auth/scope-from-www-authenticate', AUTHORIZATION_CODE],
    ['auth/scope-from-scopes-supported', AUTHORIZATION_CODE],
    ['auth/scope-omitted-when-undefined', AUTHORIZATION_CODE],
    ['auth/scope-step-up', ['scope-step-up-initial', 'scope-step-up-escalation']],
    ['auth/scope-retry-limit', ['scope-retry-limit']],
    ['auth/token-endpoint-auth-basic', ['token-request']],
    ['auth/token-endpoint-auth-post', ['token-request']],
    ['auth/token-endpoint-auth-none', ['token-request']],
    ['auth/pre-registration', ['token-request']],
    ['auth/2025-03-26-oauth-metadata-backcompat', []],
    ['auth/2025-03-26-oauth-endpoint-fallback', []],
    ['auth/resource-mismatch', []],
    ['auth/iss-supported-missing', []],
    ['auth/iss-wrong-issuer', []],
    ['auth/iss-unexpected', []],
    ['auth/iss-normalized', []],
    ['auth/metadata-issuer-mismatch', []],
    ['auth/client-credentials-basic', []],
    ['auth/client-credentials-jwt', ['client-credentials-jwt-verified']],
    ['auth/dpop', ['sep-1932-client-token-request-proof', 'sep-1932-client-dpop-auth-scheme']],
    ['auth/dpop-nonce', ['sep-1932-client-fresh-proof']],
    ['auth/enterprise-managed-authorization', ['complete-flow-token-exchange', 'complete-flow-jwt-bearer']],
    ['auth/wif-jwt-bearer', ['wif-assertion-verified']],
  ])('%s passes', async (scenario, checkIds) => {
    await expectScenarioPasses(scenario, checkIds);
  });

  // These scenarios exist only at the 2026-07-28 revision: the daemon reaches their servers through
  // era auto (server/discover), as it does any modern server.
  it.each([
    ['auth/offline-access-scope'],
    ['auth/offline-access-not-supported'],
    ['auth/iss-supported'],
    ['auth/iss-not-advertised'],
    ['auth/authorization-server-migration'],
  ])('%s passes', async (scenario) => {
    await expectScenarioPasses(scenario, []);
  });
});
