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
}

export const PLATFORM: InjectionKey<Platform> = Symbol('platform');

export function usePlatform(): Platform {
  const platform = inject(PLATFORM);
  if (!platform) throw new Error('The inspector app was mounted without a platform');
  return platform;
}
