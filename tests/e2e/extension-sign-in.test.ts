import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HTTPRequest, Page } from 'puppeteer';
import {
  type AuthorizationServer,
  registerPublicClient,
  startAuthorizationServer,
} from '../fixtures/authorization-server.ts';
import { startUserBackend, type UserBackend } from '../fixtures/user-backend.ts';
import { freePort, type TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { launchWithDevTools, openMcpPanel } from './support/devtools.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension } from './support/daemon.ts';
import { echoAsUser } from './support/echo-as-user.ts';
import { byTestId, saveScreenshot, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { answerSignInWindow } from './support/sign-in-window.ts';
import { USER_FLOW } from './support/user-flow.ts';

interface StoredSession {
  accessToken: string;
  expiresAt: number;
  user: { sub: string; name?: string; email?: string };
  refresh?: { tokenEndpoint: string; clientId: string; refreshToken: string };
  daemonUrl?: string;
}

/** What the extension keeps in `browser.storage.local` under `key`. */
async function stored<T>(page: Page, key: string): Promise<T | undefined> {
  const items = await page.evaluate(
    (name) =>
      (
        globalThis as unknown as {
          chrome: { storage: { local: { get(key: string): Promise<Record<string, unknown>> } } };
        }
      ).chrome.storage.local.get(name),
    key,
  );
  return items[key] as T | undefined;
}

/** A shared daemon, its user backend and OpenID provider, with a client registered for `ext`. */
interface SharedDaemon {
  provider: AuthorizationServer;
  backend: UserBackend;
  daemon: TestDaemon;
  clientId: string;
  redirectUri: string;
  close(): Promise<void>;
}

/**
 * Starts a shared daemon whose provider shows its login and consent pages and knows the extension as
 * its administrator registers it: the redirect URI (the extension id is its host) and the extension's
 * origin for the token endpoint's cross-origin requests.
 */
async function startSharedDaemon(ext: ExtensionBrowser): Promise<SharedDaemon> {
  const port = await freePort();
  const provider = await startAuthorizationServer({
    resource: () => `http://127.0.0.1:${port}/`,
    redirectUris: () => ['http://127.0.0.1/unused'],
    corsOrigins: () => [`chrome-extension://${ext.extensionId}`],
    pages: true,
  });
  const backend = await startUserBackend(provider.provider);
  const redirectUri = `https://${ext.extensionId}.chromiumapp.org/`;
  const clientId = await registerPublicClient(provider.issuer, redirectUri);
  const daemon = await startDaemonForExtension({
    port,
    userAuth: { backendUrl: backend.url, signIn: { issuer: provider.issuer, clientId } },
  });
  return {
    provider,
    backend,
    daemon,
    clientId,
    redirectUri,
    async close() {
      await daemon.close();
      await backend.close();
      await provider.close();
    },
  };
}

// SPEC part 5 in the extension: the options page signs a user in to a shared daemon through the browser's
// sign-in window (identity.launchWebAuthFlow) and a real OpenID provider (oidc-provider; its login and
// consent are answered by the fixture); the panel then calls the daemon with the user's token.
describe('user sign-in in the extension', USER_FLOW, () => {
  let shared: SharedDaemon;
  let provider: AuthorizationServer;
  let backend: UserBackend;
  let daemon: TestDaemon;
  let ext: ExtensionBrowser;
  let options: PanelPage;
  let panel: PanelPage;
  /** Every request the panel sent to the daemon, to prove the refresh token never went there. */
  const toDaemon: HTTPRequest[] = [];
  /** Every refresh token the extension has held. */
  const refreshTokens = new Set<string>();

  beforeAll(async () => {
    ext = await launchWithTestExtension();
    shared = await startSharedDaemon(ext);
    ({ provider, backend, daemon } = shared);
  });

  afterAll(async () => {
    await ext?.browser.close();
    await shared?.close();
  });

  it('offers sign-in for the daemon the form names and signs in through the sign-in window', async () => {
    options = await PanelPage.open(ext.browser, ext.pageUrl('options.html'));
    // The default daemon (port 6274) is not this one, and offers nothing.
    expect(await options.page.$(byTestId('sign-in-button'))).toBeNull();
    await options.page.locator(byTestId('pair-url')).fill(daemon.url);
    await options.page.waitForSelector(byTestId('sign-in-button'));
    // The address the administrator registers is on the page, to copy.
    expect(await waitForText(options.page, byTestId('sign-in-redirect-uri'), shared.redirectUri)).toContain(
      'redirect URI',
    );
    await options.screenshot('extension-sign-in-offered');

    await options.page.locator(byTestId('sign-in-button')).click();
    // The browser's sign-in window shows the provider's login, then its consent; the user says yes.
    expect(
      await answerSignInWindow(ext.browser, provider.issuer, (page) =>
        saveScreenshot(page, 'extension-sign-in-window'),
      ),
    ).toEqual(['login', 'consent']);
    // The provider sent the window to the redirect URI: the browser closed it and handed the address back.
    expect(await waitForText(options.page, byTestId('signed-in-user'), 'Alice Liddell')).toContain(
      'alice@example.test',
    );
    expect(provider.interactions).toBeGreaterThanOrEqual(1);
    const [asked] = provider.authorizations;
    expect(asked?.searchParams.get('redirect_uri')).toBe(shared.redirectUri);
    expect(asked?.searchParams.get('client_id')).toBe(shared.clientId);
    expect(asked?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked?.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(asked?.searchParams.get('scope')).toBe('openid offline_access');
    expect(await options.pairing.ok()).toContain('Paired with daemon');
    expect(await waitForText(options.page, byTestId('signed-in'), 'Signed in at')).toContain(daemon.url);
    await options.screenshot('extension-signed-in');
  });

  it('keeps the token with its expiry and refresh token in extension storage, not the session token', async () => {
    const session = await stored<StoredSession>(options.page, 'userSession');
    expect(session?.user).toEqual({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.test' });
    expect(session?.daemonUrl).toBe(daemon.url);
    expect(session?.expiresAt).toBeGreaterThan(Date.now() + 60_000);
    expect(session?.refresh).toEqual({
      tokenEndpoint: `${provider.issuer}/token`,
      clientId: shared.clientId,
      refreshToken: expect.stringMatching(/^\S{20,}$/),
    });
    // The sign-in is the pairing: no token pairing is kept beside it.
    expect(await stored(options.page, 'pairing')).toBeUndefined();
  });

  it('opens the panel paired as the user, who adds a server and runs a tool with their token', async () => {
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    panel.page.on('request', (request) => {
      if (request.url().startsWith(daemon.url)) toDaemon.push(request);
    });
    expect(await panel.pairing.daemonUrl()).toBe(daemon.url);
    await waitForText(panel.page, byTestId('signed-in-user'), 'Alice Liddell');
    await waitForText(panel.page, byTestId('live-state'), 'live');
    const { accessToken } = (await stored<StoredSession>(panel.page, 'userSession'))!;
    await panel.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await panel.servers.connect('everything');
    expect(await panel.tools.echo('hello from the extension')).toContain('Echo:');
    expect(backend.asked).toContain(`Bearer ${accessToken}`);
    const calls = toDaemon.filter((request) => request.url().includes('/api/mcp/servers'));
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.headers().authorization).toBe(`Bearer ${accessToken}`);
      expect(call.headers()['x-inspector-token']).toBeUndefined();
    }
    await panel.screenshot('extension-signed-in-tools');
  });

  it('renews a token that expired while the panel was closed, in extension storage', async () => {
    const before = (await stored<StoredSession>(panel.page, 'userSession'))!;
    refreshTokens.add(before.refresh!.refreshToken);
    await panel.page.evaluate(
      (session) =>
        (
          globalThis as unknown as {
            chrome: { storage: { local: { set(items: Record<string, unknown>): Promise<void> } } };
          }
        ).chrome.storage.local.set({ userSession: session }),
      { ...before, expiresAt: Date.now() - 1000 },
    );
    await panel.reload();
    await waitForText(panel.page, byTestId('signed-in-user'), 'Alice Liddell');
    await waitForText(panel.page, byTestId('live-state'), 'live');
    const renewed = (await stored<StoredSession>(panel.page, 'userSession'))!;
    expect(renewed.accessToken).not.toBe(before.accessToken);
    expect(renewed.refresh?.refreshToken).not.toBe(before.refresh?.refreshToken);
    expect(renewed.expiresAt).toBeGreaterThan(Date.now() + 60_000);
    expect(renewed.daemonUrl).toBe(daemon.url);
    await panel.servers.waitFor('everything');
  });

  it('never sends the refresh token to the daemon', async () => {
    const { refresh } = (await stored<StoredSession>(panel.page, 'userSession'))!;
    refreshTokens.add(refresh!.refreshToken);
    const sent = toDaemon.map((request) =>
      JSON.stringify([request.url(), request.headers(), request.postData()]),
    );
    expect(sent.length).toBeGreaterThan(3);
    expect(refreshTokens.size).toBe(2);
    for (const token of refreshTokens) expect(sent.join('\n')).not.toContain(token);
  });

  it('signs out: the token is forgotten and sign-in at the same daemon is offered again', async () => {
    await panel.page.locator(byTestId('sign-out')).click();
    await panel.page.waitForSelector(byTestId('sign-in-button'));
    expect(await panel.pairing.url()).toBe(daemon.url);
    expect(await stored(panel.page, 'userSession')).toBeUndefined();
  });

  it('keeps its pages in step: a sign-out or a sign-in on one page shows on the others at once', async () => {
    // The options page, open all along, followed the panel's sign-out.
    await options.page.bringToFront();
    expect(await waitForText(options.page, byTestId('sign-in-problem'), 'another')).toBe(
      'You were signed out in another tab or window of the inspector.',
    );
    expect(await options.page.$(byTestId('signed-in-user'))).toBeNull();

    await options.page.locator(byTestId('sign-in-button')).click();
    // The provider still knows the user from the first sign-in: its window asks for consent only (once
    // or more).
    const prompts = await answerSignInWindow(ext.browser, provider.issuer);
    expect(prompts.length).toBeGreaterThan(0);
    expect(new Set(prompts)).toEqual(new Set(['consent']));
    await waitForText(options.page, byTestId('signed-in-user'), 'Alice Liddell');
    const { accessToken } = (await stored<StoredSession>(options.page, 'userSession'))!;

    // The panel, signed out and unpaired, is signed in and paired as the user without a reload.
    await panel.page.bringToFront();
    await waitForText(panel.page, byTestId('signed-in-user'), 'Alice Liddell');
    expect(await panel.page.$(byTestId('sign-in-problem'))).toBeNull();
    await waitForText(panel.page, byTestId('live-state'), 'live');
    const bearers = await echoAsUser(panel, toDaemon, 'signed in on the options page');
    expect(bearers.length).toBeGreaterThan(0);
    expect(new Set(bearers)).toEqual(new Set([`Bearer ${accessToken}`]));
    await panel.screenshot('extension-signed-in-elsewhere');

    // Signing out on the options page signs the panel out.
    await options.page.bringToFront();
    await options.page.locator(byTestId('sign-out')).click();
    await panel.page.bringToFront();
    expect(await waitForText(panel.page, byTestId('sign-in-problem'), 'another')).toBe(
      'You were signed out in another tab or window of the inspector.',
    );
    expect(await panel.page.$(byTestId('signed-in-user'))).toBeNull();
    expect(await stored(panel.page, 'userSession')).toBeUndefined();
    await panel.screenshot('extension-signed-out-elsewhere', { height: 400 });
  });

  it('says so when the sign-in window is closed before the provider sent it back', async () => {
    await panel.page.locator(byTestId('sign-in-button')).click();
    const target = await ext.browser.waitForTarget((t) =>
      t.url().startsWith(`${provider.issuer}/interaction/`),
    );
    await (await target.page())!.close();
    expect(await waitForText(panel.page, byTestId('sign-in-problem'), 'did not finish')).toMatch(
      /^The sign-in window did not finish: /,
    );
    expect(await panel.page.$(byTestId('signed-in-user'))).toBeNull();
    await panel.screenshot('extension-sign-in-window-closed', { height: 400 });
  });
});

// The MCP panel inside real DevTools (not a tab): its page has the identity API too, and signs in.
describe('user sign-in from the MCP panel in DevTools', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let shared: SharedDaemon;

  beforeAll(async () => {
    ext = await launchWithDevTools();
    shared = await startSharedDaemon(ext);
  });

  afterAll(async () => {
    await ext?.browser.close();
    await shared?.close();
  });

  it('signs in from the pairing form of the docked panel and pairs as the user', async () => {
    const inspected = await ext.browser.newPage();
    const { devtools, panel } = await openMcpPanel(inspected, { width: 1000, height: 700 }, 'bottom');
    await panel.waitForSelector(byTestId('pair-url'));
    await panel.$eval(
      byTestId('pair-url'),
      (input, url) => {
        (input as HTMLInputElement).value = url;
        input.dispatchEvent(new Event('input'));
      },
      shared.daemon.url,
    );
    await panel.waitForSelector(byTestId('sign-in-button'));
    await panel.$eval(byTestId('sign-in-button'), (button) => (button as HTMLElement).click());
    expect(await answerSignInWindow(ext.browser, shared.provider.issuer)).toEqual(['login', 'consent']);
    await panel.waitForFunction(
      (sel: string) => document.querySelector(sel)?.textContent?.includes('Alice Liddell'),
      {},
      byTestId('signed-in-user'),
    );
    await panel.waitForFunction(
      (sel: string) => document.querySelector(sel)?.textContent?.includes('live'),
      {},
      byTestId('live-state'),
    );
    expect(await panel.$eval(byTestId('daemon-url'), (el) => el.textContent)).toBe(shared.daemon.url);
    expect(shared.backend.asked.length).toBeGreaterThan(0);
    await saveScreenshot(devtools, 'extension-signed-in-devtools');
  });
});
