import browser, { type Storage } from 'webextension-polyfill';
import type { KeyValueStore } from './key-value-store';

/**
 * `browser.storage.local`: survives browser restarts and is not readable by web pages or widgets. Values
 * are stored as JSON, as on the web page: Chrome serializes them so, but Firefox clones them and refuses
 * Vue's reactive proxies (DataCloneError), which is what the stores hand over.
 */
export function extensionStore(): KeyValueStore {
  return {
    async get<T>(key: string) {
      const items = await browser.storage.local.get(key);
      return items[key] as T | undefined;
    },
    async set(key, value) {
      await browser.storage.local.set({ [key]: asJson(value) });
    },
    async remove(key) {
      await browser.storage.local.remove(key);
    },
    watch(key, listener) {
      const changed = (changes: Record<string, Storage.StorageChange>, area: string): void => {
        if (area === 'local' && key in changes) listener(changes[key]?.newValue);
      };
      browser.storage.onChanged.addListener(changed);
      return () => browser.storage.onChanged.removeListener(changed);
    },
  };
}

/** A plain copy of `value` as JSON has it (undefined stays undefined). */
function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
