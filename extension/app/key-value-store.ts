/** Where the front end keeps its data: extension storage in the extension, localStorage on the web page. */
export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  remove(key: string): Promise<void>;
  /**
   * Calls `listener` with the new value of `key` (undefined once removed) when another page of the app
   * changes it: another tab of the web page, another page of the extension (where the page's own changes
   * are told too). Returns the function that stops listening.
   */
  watch?(key: string, listener: (value: unknown) => void): () => void;
}

export function localStorageStore(storage: Storage = globalThis.localStorage): KeyValueStore {
  return {
    async get<T>(key: string) {
      const text = storage.getItem(key);
      return text === null ? undefined : (JSON.parse(text) as T);
    },
    async set(key, value) {
      storage.setItem(key, JSON.stringify(value));
    },
    async remove(key) {
      storage.removeItem(key);
    },
    watch(key, listener) {
      // Fired in the other tabs of the origin only; `key` null when the storage was cleared.
      const changed = (event: StorageEvent): void => {
        if (event.storageArea !== storage || (event.key !== key && event.key !== null)) return;
        const text = event.key === null ? null : event.newValue;
        let value: unknown;
        try {
          value = text === null ? undefined : JSON.parse(text);
        } catch {
          return; // Not JSON: not a value this app wrote, as get() would also refuse it.
        }
        listener(value);
      };
      addEventListener('storage', changed);
      return () => removeEventListener('storage', changed);
    },
  };
}
