/** The browser half of the SPEC part 5 sign-in: what the page sends the provider and what it accepts back. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { finishSignIn, type PendingSignIn, renewDelay, startSignIn } from '../../extension/auth-user/oidc';

const METADATA = {
  issuer: 'https://id.example',
  authorizationEndpoint: 'https://id.example/authorize?tenant=1',
  tokenEndpoint: 'https://id.example/token',
  scopesSupported: ['openid', 'email'],
};

describe('starting a sign-in', () => {
  it('asks for a code with an S256 challenge of a fresh verifier and a fresh state', async () => {
    const { url, pending } = await startSignIn(METADATA, 'inspector-web', 'http://127.0.0.1:6274/');
    const asked = new URL(url);
    expect(asked.origin + asked.pathname).toBe('https://id.example/authorize');
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'inspector-web',
      redirect_uri: 'http://127.0.0.1:6274/',
      scope: 'openid email',
      state: pending.state,
      code_challenge: createHash('sha256').update(pending.codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    expect(pending.codeVerifier).toMatch(/^[\w-]{43}$/);
    const again = await startSignIn(METADATA, 'inspector-web', 'http://127.0.0.1:6274/');
    expect(again.pending.state).not.toBe(pending.state);
    expect(again.pending.codeVerifier).not.toBe(pending.codeVerifier);
  });

  it('asks for offline access, with the consent OpenID Connect requires for it, when the provider has it', async () => {
    const offline = { ...METADATA, scopesSupported: ['openid', 'profile', 'offline_access'] };
    const asked = new URL((await startSignIn(offline, 'inspector-web', 'http://127.0.0.1:6274/')).url);
    expect(asked.searchParams.get('scope')).toBe('openid profile offline_access');
    expect(asked.searchParams.get('prompt')).toBe('consent');
  });
});

describe('when to renew a token', () => {
  const now = 1_000_000;

  it('renews a long-lived token a minute before it expires', () => {
    expect(renewDelay(now + 3_600_000, now)).toBe(3_540_000);
    expect(renewDelay(now + 240_000, now)).toBe(180_000);
  });

  it('renews a short-lived token once three quarters of its time are gone', () => {
    expect(renewDelay(now + 8_000, now)).toBe(6_000);
    expect(renewDelay(now + 120_000, now)).toBe(90_000);
  });

  it('renews an expired token at once', () => {
    expect(renewDelay(now - 5_000, now)).toBe(0);
    expect(renewDelay(now, now)).toBe(0);
  });
});

describe('coming back from the provider', () => {
  const pending: PendingSignIn = {
    issuer: 'https://id.example',
    clientId: 'inspector-web',
    redirectUri: 'http://127.0.0.1:6274/',
    state: 'the-state',
    codeVerifier: 'v'.repeat(43),
    // Nothing listens here: each case must be refused before the token request.
    tokenEndpoint: 'http://127.0.0.1:9/token',
  };
  const back = (query: string): Promise<unknown> => finishSignIn(new URLSearchParams(query), pending);

  it('refuses another request, another issuer, a refusal and a missing code', async () => {
    await expect(back('code=c&state=other')).rejects.toThrow(/state does not match/);
    await expect(back('code=c&state=the-state&iss=https://evil.example')).rejects.toThrow(/another provider/);
    await expect(back('error=access_denied&error_description=no&state=the-state')).rejects.toThrow(
      'The provider refused the sign-in: access_denied (no)',
    );
    await expect(back('state=the-state')).rejects.toThrow(/without a code/);
  });
});
