// @vitest-environment node
/**
 * The page's token requests (SPEC part 5) against a real OpenID provider (oidc-provider): the sign-in
 * with PKCE gives a refresh token, renewing spends it for a new access token, and a provider that
 * rotates refresh tokens gets the new one kept while one that does not keeps the old one good.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  discover,
  finishSignIn,
  type IssuedToken,
  renewToken,
  SignInError,
  startSignIn,
} from '../../extension/auth-user/oidc';
import { followAuthorization } from '../conformance/oauth-browser';
import {
  type AuthorizationServer,
  registerPublicClient,
  startAuthorizationServer,
} from '../fixtures/authorization-server';

/** Where the provider sends the browser back; nothing needs to listen there, the test reads the URL. */
const REDIRECT_URI = 'http://127.0.0.1:9/';
const providers: AuthorizationServer[] = [];

afterAll(async () => {
  for (const provider of providers) await provider.close();
});

/** A provider, a public client registered with it, and a sign-in through it as the page does one. */
async function signedIn(rotateRefreshToken?: boolean) {
  const provider = await startAuthorizationServer({
    resource: () => 'http://127.0.0.1/none',
    redirectUris: () => ['http://127.0.0.1/unused'],
    ...(rotateRefreshToken !== undefined && { rotateRefreshToken }),
  });
  providers.push(provider);
  const clientId = await registerPublicClient(provider.issuer, REDIRECT_URI);
  const metadata = await discover(provider.issuer);
  const { url, pending } = await startSignIn(metadata, clientId, REDIRECT_URI);
  let back = '';
  // The browser's last hop, to the redirect URI, is kept and replaced by a page that answers.
  await followAuthorization(url, (next) => {
    if (!next.startsWith(REDIRECT_URI)) return next;
    back = next;
    return `${provider.issuer}/.well-known/openid-configuration`;
  });
  const issued = await finishSignIn(new URL(back).searchParams, pending);
  const grant = { tokenEndpoint: metadata.tokenEndpoint, clientId, refreshToken: issued.refreshToken ?? '' };
  return { provider, issued, grant };
}

/** What the provider knows of an access token: live or not. */
async function live(provider: AuthorizationServer, token: IssuedToken): Promise<boolean> {
  const found = await provider.provider.AccessToken.find(token.accessToken);
  return found !== undefined && !found.isExpired;
}

describe('renewing with a real provider', () => {
  it('gets a refresh token with the sign-in and a new access token for it, rotated', async () => {
    const { provider, issued, grant } = await signedIn();
    expect(issued.refreshToken).toMatch(/^[\x21-\x7e]{20,}$/);
    const renewed = await renewToken(grant);
    expect(renewed.accessToken).not.toBe(issued.accessToken);
    expect(await live(provider, renewed)).toBe(true);
    expect(renewed.expiresAt).toBeGreaterThan(Date.now() + 3_000_000);
    // A public client's refresh token is rotated: the new one is kept, the old one is spent.
    expect(renewed.refreshToken).toMatch(/^[\x21-\x7e]{20,}$/);
    expect(renewed.refreshToken).not.toBe(grant.refreshToken);
    const again = await renewToken({ ...grant, refreshToken: renewed.refreshToken! });
    expect(await live(provider, again)).toBe(true);
  });

  it('keeps the refresh token when the provider does not rotate it', async () => {
    const { provider, grant } = await signedIn(false);
    const renewed = await renewToken(grant);
    expect(renewed.refreshToken).toBe(grant.refreshToken);
    expect(await live(provider, await renewToken(grant))).toBe(true);
  });

  it('says the provider refused a spent refresh token, without the token', async () => {
    const { grant } = await signedIn();
    await renewToken(grant);
    const refused = await renewToken(grant).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SignInError);
    expect((refused as Error).message).toBe('The provider refused to issue a token: invalid_grant');
  });

  it('says so when the token endpoint cannot be reached', async () => {
    const { grant } = await signedIn();
    await expect(renewToken({ ...grant, tokenEndpoint: 'http://127.0.0.1:9/token' })).rejects.toThrow(
      "The provider's token endpoint cannot be reached",
    );
  });
});
