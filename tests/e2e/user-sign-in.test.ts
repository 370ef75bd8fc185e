import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'puppeteer';
import { type AuthorizationServer, startAuthorizationServer } from '../fixtures/authorization-server.ts';
import { startUserBackend, type UserBackend } from '../fixtures/user-backend.ts';
import { freePort, type TestDaemon } from '../daemon/helpers.ts';
import { launchBrowser } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonWithWebPage } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

interface StoredSession {
  accessToken: string;
  expiresAt: number;
  user: { sub: string; name?: string };
}

/** The public client the web page signs in as, registered with the provider as an operator would. */
async function registerWebClient(issuer: string, redirectUri: string): Promise<string> {
  const response = await fetch(`${issuer}/reg`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    }),
  });
  const body = (await response.json()) as { client_id?: string };
  if (!response.ok || !body.client_id) throw new Error(`registration failed: ${JSON.stringify(body)}`);
  return body.client_id;
}

// SPEC part 5 on a shared daemon: the page the daemon serves signs in through a real OpenID provider
// (oidc-provider; its login and consent are answered by the fixture), and the daemon checks the user's
// token with a backend that asks that provider.
describe('user sign-in on the web page of a shared daemon', USER_FLOW, () => {
  let provider: AuthorizationServer;
  let backend: UserBackend;
  let daemon: TestDaemon;
  let browser: Browser;
  let web: PanelPage;

  const session = (): Promise<StoredSession | null> =>
    web.page.evaluate(
      () => JSON.parse(localStorage.getItem('userSession') ?? 'null') as StoredSession | null,
    );

  beforeAll(async () => {
    const port = await freePort();
    provider = await startAuthorizationServer({
      resource: () => `http://127.0.0.1:${port}/`,
      redirectUris: () => ['http://127.0.0.1/unused'],
    });
    backend = await startUserBackend(provider.provider);
    const clientId = await registerWebClient(provider.issuer, `http://127.0.0.1:${port}/`);
    daemon = await startDaemonWithWebPage({
      port,
      userAuth: { backendUrl: backend.url, signIn: { issuer: provider.issuer, clientId } },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await daemon?.close();
    await backend?.close();
    await provider?.close();
  });

  it('offers sign-in, goes through the provider with PKCE and comes back signed in', async () => {
    web = await PanelPage.open(browser, `${daemon.url}/`);
    await web.page.waitForSelector(byTestId('sign-in-button'));
    await web.screenshot('user-sign-in-offered');

    const authorization = web.page.waitForRequest((request) =>
      request.url().startsWith(`${provider.issuer}/auth`),
    );
    await web.page.locator(byTestId('sign-in-button')).click();
    const asked = new URL((await authorization).url());
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(asked.searchParams.get('redirect_uri')).toBe(`${daemon.url}/`);

    expect(await waitForText(web.page, byTestId('signed-in-user'), 'Alice Liddell')).toContain(
      'alice@example.test',
    );
    expect(provider.interactions).toBeGreaterThanOrEqual(1);
    // The code is spent and gone from the address; the token is kept with its expiry.
    expect(web.page.url()).toBe(`${daemon.url}/`);
    const stored = await session();
    expect(stored?.user).toEqual({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.test' });
    expect(stored?.expiresAt).toBeGreaterThan(Date.now() + 60_000);
    expect(await web.pairing.waitUntilPaired()).toContain('daemon');
    await waitForText(web.page, byTestId('live-state'), 'live');
    await web.screenshot('user-signed-in');
  });

  it('calls the API with the user token: adds a server and runs a tool', async () => {
    const token = (await session())?.accessToken ?? '';
    await web.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await web.servers.connect('everything');
    await web.tools.select('echo');
    await web.tools.fill('message', 'hello as Alice');
    await web.tools.run();
    expect(await web.tools.resultWith('Echo: hello as Alice')).toContain('Echo: hello as Alice');
    expect(backend.asked).toContain(`Bearer ${token}`);
    // The page never had the session token.
    const keys = await web.page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(keys).not.toContain(daemon.token);
    await web.screenshot('user-signed-in-tools');
  });

  it('signs out: the token is forgotten and sign-in is offered again', async () => {
    await web.page.locator(byTestId('sign-out')).click();
    await web.page.waitForSelector(byTestId('sign-in-button'));
    expect(await session()).toBeNull();
  });

  it('treats an expired token as signed out', async () => {
    await web.page.locator(byTestId('sign-in-button')).click();
    await waitForText(web.page, byTestId('signed-in-user'), 'Alice Liddell');
    await web.page.evaluate(() => {
      const stored = JSON.parse(localStorage.getItem('userSession') ?? '{}') as { expiresAt: number };
      localStorage.setItem('userSession', JSON.stringify({ ...stored, expiresAt: Date.now() - 1000 }));
    });
    await web.reload();
    await web.page.waitForSelector(byTestId('sign-in-button'));
    expect(await web.page.$(byTestId('signed-in-user'))).toBeNull();
    expect(await session()).toBeNull();
  });
});
