import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { DaemonError } from '../../extension/app/daemon-client';
import { localStorageStore } from '../../extension/app/key-value-store';
import type { Platform } from '../../extension/app/platform';
import { pairingProblem, useConnectionStore } from '../../extension/app/connection-store';
import { collectFailedFetches } from './failed-fetches';

function platform(access: boolean): Platform & { asked: string[] } {
  const asked: string[] = [];
  return {
    kind: 'extension',
    store: localStorageStore(),
    defaultDaemonUrl: 'http://127.0.0.1:6274',
    asked,
    hasHostAccess: async () => access,
    requestHostAccess: async (url) => {
      asked.push(url);
      return access;
    },
  };
}

describe('pairing problems', () => {
  it('says what to do for a daemon that is down, a wrong token and a refused page', () => {
    const url = 'http://127.0.0.1:6274';
    expect(pairingProblem(new DaemonError(0, { error: 'x' }), url)).toBe(
      'No daemon answers at http://127.0.0.1:6274. Start it (npx inspector-daemon) and check the URL.',
    );
    expect(pairingProblem(new DaemonError(401, { error: 'Unauthorized' }), url)).toBe(
      'The daemon refused the token. Copy the token it printed at start.',
    );
    // Nothing typed in the token box: the daemon's 401 is not a refusal of anything typed.
    expect(pairingProblem(new DaemonError(401, { error: 'Unauthorized' }), url, '')).toBe(
      'Enter the token: the daemon printed it at start, on the line "token: …".',
    );
    expect(pairingProblem(new DaemonError(403, { error: 'Forbidden Origin "x"' }), url)).toBe(
      'The daemon refused this page: Forbidden Origin "x"',
    );
  });
});

describe('connection store', () => {
  beforeEach(() => {
    localStorage.clear();
    setActivePinia(createPinia());
  });

  it('starts unpaired and loads a stored pairing', async () => {
    // Loading checks the daemon's health: nothing listens on port 9.
    const failed = collectFailedFetches();
    const store = useConnectionStore();
    await store.load(platform(true));
    expect(store.paired).toBe(false);
    localStorage.setItem('pairing', JSON.stringify({ url: 'http://127.0.0.1:9', token: 't' }));
    setActivePinia(createPinia());
    const reloaded = useConnectionStore();
    await reloaded.load(platform(true));
    expect(reloaded.pairing).toEqual({ url: 'http://127.0.0.1:9', token: 't' });
    expect(reloaded.client?.baseUrl).toBe('http://127.0.0.1:9');
    expect(failed.codes()).toEqual(['ECONNREFUSED']);
  });

  it('refuses a URL with a path before asking anything', async () => {
    const store = useConnectionStore();
    const p = platform(true);
    await store.load(p);
    expect(await store.pair('http://127.0.0.1:6274/api', 'token')).toBe(false);
    expect(store.problem).toMatch(/scheme, host and port only/);
    expect(p.asked).toEqual([]);
  });

  it('explains a host permission the user did not grant, and stores nothing', async () => {
    const store = useConnectionStore();
    const p = platform(false);
    await store.load(p);
    expect(await store.pair('http://127.0.0.1:7000/', 'token')).toBe(false);
    expect(p.asked).toEqual(['http://127.0.0.1:7000']);
    expect(store.problem).toBe(
      'The extension has no permission to reach http://127.0.0.1:7000. Allow it when the browser asks.',
    );
    expect(localStorage.getItem('pairing')).toBeNull();
  });
});
