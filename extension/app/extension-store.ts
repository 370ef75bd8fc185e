import browser from 'webextension-polyfill';
import type { KeyValueStore } from './key-value-store';

/** `browser.storage.local`: survives browser restarts and is not readable by web pages or widgets. */
export function extensionStore(): KeyValueStore {
  return {
    async get<T>(key: string) {
      const items = await browser.storage.local.get(key);
      return items[key] as T | undefined;
    },
    async set(key, value) {
      await browser.storage.local.set({ [key]: value });
    },
    async remove(key) {
      await browser.storage.local.remove(key);
    },
  };
}
