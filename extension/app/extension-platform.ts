import browser from 'webextension-polyfill';
import { SignInError } from '../auth-user/oidc';
import { extensionStore } from './extension-store';
import type { Platform, SignInWindow } from './platform';

/** A host permission pattern for the daemon's origin: a host without a port matches every port. */
export function originPattern(url: string): string {
  const { protocol, hostname } = new URL(url);
  return `${protocol}//${hostname}/*`;
}

const exactPattern = (url: string): string => `${new URL(url).origin}/*`;

/**
 * The host patterns the extension holds, kept current. Firefox grants a permission only while the
 * user's click is being handled: once pairing has waited for a reply from the browser (as
 * `permissions.contains` takes), `permissions.request` fails there. Known grants answer at once, so the
 * request, when one is needed, is still made from the click. Undefined until the browser has answered.
 */
function grantedHosts(): (url: string) => boolean | undefined {
  let origins: Set<string> | undefined;
  const load = (): void => {
    void browser.permissions.getAll().then((all) => {
      origins = new Set(all.origins ?? []);
    });
  };
  load();
  browser.permissions.onAdded.addListener(load);
  browser.permissions.onRemoved.addListener(load);
  return (url) =>
    origins &&
    (origins.has(exactPattern(url)) || origins.has(originPattern(url)) || origins.has('<all_urls>'));
}

/**
 * Sign-in through `identity.launchWebAuthFlow`: an extension page cannot be a redirect URI, so the
 * browser opens the provider in a window of its own and hands back the address it was redirected to,
 * `https://<extension id>.chromiumapp.org/` in Chromium (`<hash>.extensions.allizom.org` in Firefox).
 */
const signInWindow: SignInWindow = {
  redirectUri: () => browser.identity.getRedirectURL(),
  async launch(url) {
    try {
      return await browser.identity.launchWebAuthFlow({ url, interactive: true });
    } catch (error) {
      // Chromium: "The user did not approve access." when the window is closed before the redirect.
      throw new SignInError(`The sign-in window did not finish: ${(error as Error).message}`);
    }
  },
};

export function extensionPlatform(): Platform {
  const granted = grantedHosts();
  return {
    kind: 'extension',
    store: extensionStore(),
    defaultDaemonUrl: 'http://127.0.0.1:6274',
    widgetSandboxUrl: browser.runtime.getURL('/sandbox.html'),
    signInWindow,
    async hasHostAccess(url) {
      return granted(url) ?? browser.permissions.contains({ origins: [exactPattern(url)] });
    },
    async requestHostAccess(url) {
      // The browser asks the user; it needs a user gesture, which the Connect click is.
      try {
        return await browser.permissions.request({ origins: [originPattern(url)] });
      } catch {
        return false;
      }
    },
  };
}

/** Follows DevTools' light or dark theme; outside DevTools (a tab) `browser.devtools` does not exist. */
export function applyDevtoolsTheme(): void {
  const theme = browser.devtools?.panels?.themeName;
  if (theme) document.documentElement.dataset.theme = theme === 'dark' ? 'dark' : 'light';
}
