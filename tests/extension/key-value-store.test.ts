import { describe, expect, it } from 'vitest';
import { localStorageStore } from '../../extension/app/key-value-store';

/** What another tab's change of localStorage (or sessionStorage) looks like to this one. */
function changedElsewhere(
  key: string | null,
  newValue: string | null,
  storageArea: Storage = localStorage,
): void {
  dispatchEvent(new StorageEvent('storage', { key, newValue, storageArea }));
}

describe("the web page's store, watching another tab", () => {
  it('tells the new value of its key, undefined once removed or cleared, and nothing else', () => {
    const store = localStorageStore();
    const seen: unknown[] = [];
    const stop = store.watch!('userSession', (value) => seen.push(value));
    changedElsewhere('userSession', JSON.stringify({ accessToken: 'a' }));
    changedElsewhere('pairing', JSON.stringify({ url: 'http://127.0.0.1:6274' }));
    changedElsewhere('userSession', '{"accessToken": ');
    changedElsewhere('userSession', JSON.stringify({ accessToken: 'b' }), sessionStorage);
    changedElsewhere('userSession', null);
    changedElsewhere(null, null);
    stop();
    changedElsewhere('userSession', JSON.stringify({ accessToken: 'c' }));
    expect(seen).toEqual([{ accessToken: 'a' }, undefined, undefined]);
  });
});
