import browser from 'webextension-polyfill';
import { extensionStore } from './extension-store';
import type { Platform } from './platform';

/** A host permission pattern for the daemon's origin: a host without a port matches every port. */
export function originPattern(url: string): string {
  const { protocol, hostname } = new URL(url);
  return `${protocol}//${hostname}/*`;
}

const exactPattern = (url: string): string => `${new URL(url).origin}/*`;

export function extensionPlatform(): Platform {
  return {
    kind: 'extension',
    store: extensionStore(),
    defaultDaemonUrl: 'http://127.0.0.1:6274',
    widgetSandboxUrl: browser.runtime.getURL('/sandbox.html'),
    async hasHostAccess(url) {
      return browser.permissions.contains({ origins: [exactPattern(url)] });
    },
    async requestHostAccess(url) {
      // Chrome asks the user; it needs a user gesture, which the Connect click is.
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
