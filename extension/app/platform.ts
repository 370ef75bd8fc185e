import { inject, type InjectionKey } from 'vue';
import type { KeyValueStore } from './key-value-store';

/** What differs between the extension and the web page; everything else is one app. */
export interface Platform {
  kind: 'extension' | 'web';
  store: KeyValueStore;
  /** The daemon URL offered at pairing. */
  defaultDaemonUrl: string;
  /** Asks for access to a daemon URL the extension has no host permission for; the web page has it. */
  requestHostAccess(url: string): Promise<boolean>;
  hasHostAccess(url: string): Promise<boolean>;
  /**
   * The extension's widget sandbox page (public/sandbox.html), where widget HTML is rendered. The
   * web page has none and renders widgets in a `srcdoc` frame with `sandbox="allow-scripts"`.
   */
  widgetSandboxUrl?: string;
  /**
   * The extension's browser step of a user sign-in (SPEC part 5): the provider's pages open in the
   * browser's web-auth window, which ends at `redirectUri` and answers that address with its query. The
   * web page has none: it goes to the provider itself and comes back to its own address.
   */
  signInWindow?: SignInWindow;
}

export interface SignInWindow {
  /** The redirect URI to register at the OpenID provider: `https://<extension id>.chromiumapp.org/`. */
  redirectUri(): string;
  /** Opens `url` (the authorization request) and answers the address the provider sent it back to. */
  launch(url: string): Promise<string>;
}

/** What the form says when the browser did not grant the daemon's address (or never asked). */
export function noHostAccess(url: string): string {
  return `The extension has no permission to reach ${url}. Allow it when the browser asks.`;
}

export const PLATFORM: InjectionKey<Platform> = Symbol('platform');

export function usePlatform(): Platform {
  const platform = inject(PLATFORM);
  if (!platform) throw new Error('The inspector app was mounted without a platform');
  return platform;
}
