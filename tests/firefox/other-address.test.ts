import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startDaemon, type TestDaemon } from '../daemon/helpers.ts';
import { byTestId, waitForText } from '../e2e/support/pages/dom.ts';
import {
  type AuthorizationServer,
  registerPublicClient,
  startAuthorizationServer,
} from '../fixtures/authorization-server.ts';
import { startUserBackend, type UserBackend } from '../fixtures/user-backend.ts';
import { EVERYTHING_COMMAND } from '../e2e/support/daemon.ts';
import { PanelPage } from '../e2e/support/pages/panel.ts';
import { answerSignInWindow } from '../e2e/support/sign-in-window.ts';
import { USER_FLOW } from '../e2e/support/user-flow.ts';
import { type FirefoxExtension, launchFirefoxWithExtension, openExtensionPage } from './support/firefox.ts';
import { firefoxScreenshot } from './support/screenshot.ts';

/** The origins the add-on holds, as its own page sees them. */
function grantedOrigins(panel: PanelPage): Promise<string[]> {
  return panel.page.evaluate(async () => {
    const api = (
      globalThis as unknown as { browser: { permissions: { getAll(): Promise<{ origins: string[] }> } } }
    ).browser;
    return (await api.permissions.getAll()).origins;
  });
}

// A daemon at an address the manifest names nowhere, as a daemon shared on another machine is:
// 127.0.0.2 (a loopback address to the daemon, another host to the browser's permissions).
describe('the Firefox build with a daemon at another address', USER_FLOW, () => {
  let ext: FirefoxExtension;
  let daemon: TestDaemon;
  let panel: PanelPage;

  beforeAll(async () => {
    ext = await launchFirefoxWithExtension();
    daemon = await startDaemon({ host: '127.0.0.2', port: 0 });
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('pairs: Firefox grants that host from the Connect click, and the live channel reaches it', async () => {
    expect(daemon.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    const page = await openExtensionPage(
      ext.browser,
      ext.pageUrl('devtools-panel.html'),
      byTestId('pair-url'),
    );
    panel = new PanelPage(page);
    expect(await grantedOrigins(panel)).not.toContain('http://127.0.0.2/*');
    await panel.pairing.pair(daemon.url, daemon.token);
    expect(await panel.pairing.waitUntilPaired()).toContain('daemon');
    expect(await grantedOrigins(panel)).toContain('http://127.0.0.2/*');
    expect(await panel.waitForLive()).toBe('live');
    await panel.servers.waitForEmpty();
  });
});

describe('signing in from the Firefox build to a shared daemon at another address', USER_FLOW, () => {
  let ext: FirefoxExtension;
  let provider: AuthorizationServer;
  let backend: UserBackend;
  let daemon: TestDaemon;
  let options: PanelPage;
  let redirectUri: string;

  beforeAll(async () => {
    ext = await launchFirefoxWithExtension();
    const page = await openExtensionPage(ext.browser, ext.pageUrl('options.html'), byTestId('pair-url'));
    options = new PanelPage(page);
    redirectUri = await page.evaluate(() =>
      (
        globalThis as unknown as { browser: { identity: { getRedirectURL(): string } } }
      ).browser.identity.getRedirectURL(),
    );
    const port = await freePort();
    provider = await startAuthorizationServer({
      resource: () => `http://127.0.0.2:${port}/`,
      redirectUris: () => ['http://127.0.0.1/unused'],
      // The add-on's own origin, `moz-extension://<uuid>` (Node's URL gives such an address no origin).
      corsOrigins: () => [ext.pageUrl('').replace(/\/$/, '')],
      pages: true,
    });
    backend = await startUserBackend(provider.provider);
    const clientId = await registerPublicClient(provider.issuer, redirectUri);
    daemon = await startDaemon({
      host: '127.0.0.2',
      port,
      userAuth: { backendUrl: backend.url, signIn: { issuer: provider.issuer, clientId } },
    });
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
    await backend?.close();
    await provider?.close();
  });

  it('offers sign-in for the daemon the form names and signs in through Firefox’s sign-in window', async () => {
    expect(redirectUri).toMatch(/^https:\/\/[0-9a-f]+\.extensions\.allizom\.org\/$/);
    expect(await waitForText(options.page, byTestId('sign-in-redirect-uri'), redirectUri)).toContain(
      'redirect URI',
    );
    // Asking the daemon whether it offers sign-in needs no permission; signing in asks for its host.
    await options.page.locator(byTestId('pair-url')).fill(daemon.url);
    await options.page.waitForSelector(byTestId('sign-in-button'));
    expect(await grantedOrigins(options)).not.toContain('http://127.0.0.2/*');
    await options.page.locator(byTestId('sign-in-button')).click();
    expect(await answerSignInWindow(ext.browser, provider.issuer)).toEqual(['login', 'consent']);
    expect(await waitForText(options.page, byTestId('signed-in-user'), 'Alice Liddell')).toContain(
      'alice@example.test',
    );
    expect(await grantedOrigins(options)).toContain('http://127.0.0.2/*');
    const [asked] = provider.authorizations;
    expect(asked?.searchParams.get('redirect_uri')).toBe(redirectUri);
    expect(asked?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(await options.pairing.ok()).toContain('Paired with daemon');
    expect(await waitForText(options.page, byTestId('signed-in'), 'Signed in at')).toContain(daemon.url);
    await firefoxScreenshot(options.page, 'firefox-signed-in');
  });

  it('opens the panel signed in, which runs a tool on the shared daemon with the user’s token', async () => {
    const page = await openExtensionPage(
      ext.browser,
      ext.pageUrl('devtools-panel.html'),
      byTestId('signed-in-user'),
    );
    const panel = new PanelPage(page);
    expect(await panel.pairing.daemonUrl()).toBe(daemon.url);
    expect(await panel.waitForLive()).toBe('live');
    await panel.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await panel.servers.connect('everything');
    expect(await panel.tools.echo('hello from Firefox, signed in')).toContain('signed in');
    // The daemon asked the backend whose the extension's bearer token is: the user's, not a session token.
    const { accessToken } = await page.evaluate(async () => {
      const api = (
        globalThis as unknown as {
          browser: {
            storage: { local: { get(key: string): Promise<Record<string, { accessToken: string }>> } };
          };
        }
      ).browser;
      return (await api.storage.local.get('userSession')).userSession!;
    });
    expect(backend.asked).toContain(`Bearer ${accessToken}`);
    await firefoxScreenshot(page, 'firefox-signed-in-tools');
  });
});
