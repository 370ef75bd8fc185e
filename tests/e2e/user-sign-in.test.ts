import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, HTTPRequest } from 'puppeteer';
import {
  type AuthorizationServer,
  registerPublicClient,
  startAuthorizationServer,
} from '../fixtures/authorization-server.ts';
import { startUserBackend, type UserBackend } from '../fixtures/user-backend.ts';
import { freePort, type TestDaemon } from '../daemon/helpers.ts';
import { launchBrowser } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonWithWebPage } from './support/daemon.ts';
import { echoAsUser } from './support/echo-as-user.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

interface StoredSession {
  accessToken: string;
  expiresAt: number;
  user: { sub: string; name?: string };
  refresh?: { tokenEndpoint: string; clientId: string; refreshToken: string };
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
  /** Seconds the provider's next access token lives. */
  let tokenTtl = 3600;
  let tokenDelay = 0;
  const RACE_ROUNDS = 60;
  let clientId: string;
  /** Every request the page sent to the daemon, to prove the refresh token never went there. */
  const toDaemon: HTTPRequest[] = [];

  /** Every refresh token the page has held. */
  const refreshTokens = new Set<string>();

  async function session(): Promise<StoredSession | null> {
    const stored = await web.page.evaluate(
      () => JSON.parse(localStorage.getItem('userSession') ?? 'null') as StoredSession | null,
    );
    if (stored?.refresh) refreshTokens.add(stored.refresh.refreshToken);
    return stored;
  }

  beforeAll(async () => {
    const port = await freePort();
    provider = await startAuthorizationServer({
      resource: () => `http://127.0.0.1:${port}/`,
      redirectUris: () => ['http://127.0.0.1/unused'],
      accessTokenTtl: () => tokenTtl,
      tokenDelayMs: () => tokenDelay,
    });
    backend = await startUserBackend(provider.provider);
    clientId = await registerPublicClient(provider.issuer, `http://127.0.0.1:${port}/`);
    daemon = await startDaemonWithWebPage({
      port,
      userAuth: { backendUrl: backend.url, signIn: { issuer: provider.issuer, clientId } },
      // The two-tab renewal test has the daemon refuse a token again and again on purpose.
      authFailuresPerMinute: 1000,
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
    web.page.on('request', (request) => {
      if (request.url().startsWith(daemon.url)) toDaemon.push(request);
    });
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
    // The provider lists offline_access: the page asks for it, with the consent it requires.
    expect(asked.searchParams.get('scope')).toBe('openid offline_access');
    expect(asked.searchParams.get('prompt')).toBe('consent');

    expect(await waitForText(web.page, byTestId('signed-in-user'), 'Alice Liddell')).toContain(
      'alice@example.test',
    );
    expect(provider.interactions).toBeGreaterThanOrEqual(1);
    // The code is spent and gone from the address; the token is kept with its expiry.
    expect(web.page.url()).toBe(`${daemon.url}/`);
    const stored = await session();
    expect(stored?.user).toEqual({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.test' });
    expect(stored?.expiresAt).toBeGreaterThan(Date.now() + 60_000);
    expect(stored?.refresh).toEqual({
      tokenEndpoint: `${provider.issuer}/token`,
      clientId,
      refreshToken: expect.stringMatching(/^\S{20,}$/),
    });
    expect(await web.pairing.waitUntilPaired()).toContain('daemon');
    await waitForText(web.page, byTestId('live-state'), 'live');
    await web.screenshot('user-signed-in');
  });

  it('calls the API with the user token: adds a server and runs a tool', async () => {
    const token = (await session())?.accessToken ?? '';
    await web.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await web.servers.connect('everything');
    expect(await web.tools.echo('hello as Alice')).toContain('Echo: hello as Alice');
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

  it('treats an expired token without a refresh token as signed out', async () => {
    await web.page.locator(byTestId('sign-in-button')).click();
    await waitForText(web.page, byTestId('signed-in-user'), 'Alice Liddell');
    await web.page.evaluate(() => {
      const stored = JSON.parse(localStorage.getItem('userSession') ?? '{}') as Record<string, unknown>;
      delete stored.refresh;
      localStorage.setItem('userSession', JSON.stringify({ ...stored, expiresAt: Date.now() - 1000 }));
    });
    await web.reload();
    await web.page.waitForSelector(byTestId('sign-in-button'));
    expect(await web.page.$(byTestId('signed-in-user'))).toBeNull();
    expect(await session()).toBeNull();
  });

  it('renews a short-lived token before it expires: the user stays signed in and runs a call', async () => {
    tokenTtl = 6;
    await web.page.locator(byTestId('sign-in-button')).click();
    await waitForText(web.page, byTestId('signed-in-user'), 'Alice Liddell');
    const first = (await session())!;
    expect(first.expiresAt).toBeLessThanOrEqual(Date.now() + 6_000);
    // Renewed at three quarters of its life; the old token is past its expiry when this goes on.
    await web.page.waitForFunction(
      (old: string) => !localStorage.getItem('userSession')?.includes(old),
      { timeout: 10_000 },
      first.accessToken,
    );
    await sleep(Math.max(0, first.expiresAt + 500 - Date.now()));
    const renewed = (await session())!;
    expect(renewed.expiresAt).toBeGreaterThan(first.expiresAt);
    // The provider rotates the refresh token of a public client: the new one is kept.
    expect(renewed.refresh?.refreshToken).not.toBe(first.refresh?.refreshToken);
    expect(await web.page.$(byTestId('sign-in-button'))).toBeNull();
    expect(await waitForText(web.page, byTestId('signed-in-user'), 'Alice Liddell')).toBeTruthy();

    await web.servers.connect('everything');
    await web.tools.select('echo');
    await web.tools.fill('message', 'still Alice');
    await web.tools.run();
    expect(await web.tools.resultWith('Echo: still Alice')).toContain('Echo: still Alice');
    expect(backend.asked).toContain(`Bearer ${renewed.accessToken}`);
    await web.screenshot('user-sign-in-renewed');
  });

  it('renews the token once when the daemon refuses it, and the call goes through', async () => {
    tokenTtl = 3600;
    // A token the provider never issued, still within its stated life: only the daemon can tell.
    await web.page.evaluate(() => {
      const stored = JSON.parse(localStorage.getItem('userSession') ?? '{}') as Record<string, unknown>;
      const forged = {
        ...stored,
        accessToken: 'not-a-token-the-provider-issued',
        expiresAt: Date.now() + 600_000,
      };
      localStorage.setItem('userSession', JSON.stringify(forged));
    });
    const refusedBefore = backend.asked.filter((h) => h.includes('not-a-token')).length;
    await web.reload();
    await waitForText(web.page, byTestId('live-state'), 'live');
    const renewed = (await session())!;
    expect(renewed.accessToken).not.toBe('not-a-token-the-provider-issued');
    expect(renewed.expiresAt).toBeGreaterThan(Date.now() + 60_000);
    expect(backend.asked.filter((h) => h.includes('not-a-token')).length).toBeGreaterThan(refusedBefore);
    expect(await web.page.$(byTestId('sign-in-button'))).toBeNull();
    await waitForText(web.page, byTestId('signed-in-user'), 'Alice Liddell');
    await web.servers.waitFor('everything');
  });

  it('renews a token that expired while the page was closed when the page opens', async () => {
    tokenTtl = 6;
    const before = (await session())!;
    await web.page.evaluate(() => {
      const stored = JSON.parse(localStorage.getItem('userSession') ?? '{}') as Record<string, unknown>;
      localStorage.setItem('userSession', JSON.stringify({ ...stored, expiresAt: Date.now() - 1000 }));
    });
    await web.reload();
    await waitForText(web.page, byTestId('signed-in-user'), 'Alice Liddell');
    await waitForText(web.page, byTestId('live-state'), 'live');
    const renewed = (await session())!;
    expect(renewed.accessToken).not.toBe(before.accessToken);
    expect(renewed.refresh?.refreshToken).not.toBe(before.refresh?.refreshToken);
    expect(renewed.expiresAt).toBeGreaterThan(Date.now());
  });

  it('signs out, saying why, when the provider refuses to renew', async () => {
    // The provider forgets the sign-in (an administrator revoked it): its refresh tokens are refused.
    const current = (await session())!;
    const refreshToken = await provider.provider.RefreshToken.find(current.refresh!.refreshToken);
    await (await provider.provider.Grant.find(refreshToken!.grantId!))!.destroy();
    expect(await waitForText(web.page, byTestId('sign-in-problem'), 'could not be renewed')).toBe(
      'Your sign-in could not be renewed (The provider refused to issue a token: invalid_grant): sign in again.',
    );
    expect(await session()).toBeNull();
    await web.screenshot('user-sign-in-renewal-refused');
  });

  /** Signs in on the first tab, with a token of `ttl` seconds, and opens a second tab signed in by it. */
  async function signInWithSecondTab(ttl: number): Promise<{ first: StoredSession; other: PanelPage }> {
    tokenTtl = ttl;
    await web.page.locator(byTestId('sign-in-button')).click();
    await waitForText(web.page, byTestId('signed-in-user'), 'Alice Liddell');
    const first = (await session())!;
    const other = await PanelPage.open(browser, `${daemon.url}/`);
    await waitForText(other.page, byTestId('signed-in-user'), 'Alice Liddell');
    return { first, other };
  }

  it('signs every tab out when one signs out, and no other tab renews the sign-in back', async () => {
    const { first, other } = await signInWithSecondTab(6);
    try {
      await other.page.locator(byTestId('sign-out')).click();
      await other.page.waitForSelector(byTestId('sign-in-button'));
      // The first tab follows without a reload and says why; its pairing as the user ends with it.
      await web.page.bringToFront();
      await web.page.waitForSelector(byTestId('pairing-form'));
      expect(await waitForText(web.page, byTestId('sign-in-problem'), 'another')).toBe(
        'You were signed out in another tab or window of the inspector.',
      );
      expect(await web.page.$(byTestId('signed-in-user'))).toBeNull();
      // Past the time the first tab would have renewed its token: nothing signed the user back in.
      await sleep(Math.max(0, first.expiresAt + 500 - Date.now()));
      expect(await session()).toBeNull();
      expect(await web.page.$(byTestId('signed-in-user'))).toBeNull();
      await web.screenshot('user-signed-out-elsewhere');
    } finally {
      await other.close();
    }
  });

  it('signs the other tabs in when one signs in, without a reload', async () => {
    tokenTtl = 3600;
    const other = await PanelPage.open(browser, `${daemon.url}/`);
    try {
      await other.page.locator(byTestId('sign-in-button')).click();
      await waitForText(other.page, byTestId('signed-in-user'), 'Alice Liddell');
      const stored = (await session())!;
      // A tab in the background does not paint: the first one is brought to the front to be used.
      await web.page.bringToFront();
      await waitForText(web.page, byTestId('signed-in-user'), 'Alice Liddell');
      expect(await web.page.$(byTestId('sign-in-problem'))).toBeNull();
      expect(await web.pairing.waitUntilPaired()).toContain('daemon');
      await waitForText(web.page, byTestId('live-state'), 'live');
      await web.servers.waitFor('everything');
      // The first tab calls with the token the other tab was given.
      const bearers = await echoAsUser(web, toDaemon, 'signed in next door');
      expect(bearers.length).toBeGreaterThan(0);
      expect(new Set(bearers)).toEqual(new Set([`Bearer ${stored.accessToken}`]));
      await web.screenshot('user-signed-in-elsewhere');
    } finally {
      await other.close();
    }
  });

  it('renews for two tabs refused at once with one refresh token: both stay signed in', async () => {
    await web.page.locator(byTestId('sign-out')).click();
    const { other } = await signInWithSecondTab(3600);
    // A provider across a network: the second tab's renewal waits for the lock while the first's is out.
    tokenDelay = 300;
    const renewals: string[] = [];
    // Token requests that were answered: the forged token reaches the other tab as a storage event, and
    // under load that tab can start a renewal just before the reload cancels it, unanswered. One the
    // provider did answer and the page lost would leave a spent refresh token, whose second spend revokes
    // the sign-in, which each round checks.
    const countRenewal = (request: HTTPRequest): void => {
      if (request.url().endsWith('/token')) renewals.push(request.url());
    };
    for (const tab of [web, other]) tab.page.on('requestfinished', countRenewal);
    try {
      for (let round = 1; round <= RACE_ROUNDS; round++) {
        // A token the daemon refuses, in both tabs, as they load: each renews when refused, at once. The
        // provider rotates refresh tokens and revokes the sign-in when one is spent twice, so the tab
        // that gets the renewal lock second must take the session the first wrote, though its
        // localStorage can still show the old one for a moment after the lock passed (it failed so
        // about once in 60 rounds before tabs waited for it).
        const forged = `forged-${round}`;
        await web.page.evaluate((accessToken: string) => {
          const stored = JSON.parse(localStorage.getItem('userSession') ?? '{}') as Record<string, unknown>;
          localStorage.setItem(
            'userSession',
            JSON.stringify({ ...stored, accessToken, expiresAt: Date.now() + 600_000 }),
          );
        }, forged);
        await Promise.all([web.reload(), other.reload()]);
        for (const tab of [web, other]) {
          await tab.page.bringToFront();
          const settled = await tab.page.waitForFunction(
            (problemSel: string, userSel: string, liveSel: string) => {
              const problem = document.querySelector(problemSel)?.textContent;
              if (problem) return `round's problem: ${problem}`;
              const live = document.querySelector<HTMLElement>(liveSel)?.innerText.trim();
              return live === 'live' && document.querySelector(userSel) ? 'signed in and live' : false;
            },
            {},
            byTestId('sign-in-problem'),
            byTestId('signed-in-user'),
            byTestId('live-state'),
          );
          expect(await settled.jsonValue(), `round ${round}`).toBe('signed in and live');
        }
        const stored = (await session())!;
        expect(stored.accessToken).not.toBe(forged);
        expect(renewals).toHaveLength(round);
        expect(await other.page.evaluate(() => localStorage.getItem('userSession'))).toBe(
          JSON.stringify(stored),
        );
      }
    } finally {
      tokenDelay = 0;
      web.page.off('requestfinished', countRenewal);
      await other.close();
    }
  });

  it('never sent a refresh token to the daemon', () => {
    const sent = toDaemon.map((request) =>
      JSON.stringify([request.url(), request.headers(), request.postData()]),
    );
    expect(sent.length).toBeGreaterThan(10);
    expect(refreshTokens.size).toBeGreaterThanOrEqual(3);
    for (const token of refreshTokens) expect(sent.join('\n')).not.toContain(token);
  });
});
