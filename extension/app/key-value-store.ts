/** Where the front end keeps its data: extension storage in the extension, localStorage on the web page. */
export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  remove(key: string): Promise<void>;
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
  };
}
