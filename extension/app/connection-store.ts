import { defineStore } from 'pinia';
import { computed, hasInjectionContext, inject, ref, watch } from 'vue';
import { AUTH_USER } from '../auth-user/auth-user';
import type { HealthResponse } from '../../shared/health';
import { DaemonClient, DaemonError } from './daemon-client';
import { noHostAccess, type Platform } from './platform';

export interface Pairing {
  url: string;
  token: string;
}

const STORAGE_KEY = 'pairing';

/** Explains a failed pairing check in words a user can act on. */
export function pairingProblem(error: unknown, url: string, token?: string): string {
  if (error instanceof DaemonError) {
    if (error.unreachable)
      return `No daemon answers at ${url}. Start it (npx inspector-daemon) and check the URL.`;
    if (error.status === 401 && token === '') {
      return 'Enter the token: the daemon printed it at start, on the line "token: …".';
    }
    if (error.status === 401) return 'The daemon refused the token. Copy the token it printed at start.';
    if (error.status === 403) return `The daemon refused this page: ${error.message}`;
    return `The daemon answered ${error.status}: ${error.message}`;
  }
  return (error as Error).message;
}

/** A daemon URL as typed, without the spaces and trailing slashes a paste brings. */
export function cleanDaemonUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/** What the app says when the daemon stops accepting the stored token. */
export function refusedProblem(url: string): string {
  return (
    `The daemon at ${url} no longer accepts the saved token: it was probably restarted with a new one ` +
    '(another data folder, --token or INSPECTOR_TOKEN). Paste the token it printed at start and connect again.'
  );
}

/**
 * The daemon URL, token and health: paired once, kept in storage. A stored pairing whose token the
 * daemon refuses (401) counts as unpaired: `refused` is set and the app asks for the new token.
 */
export const useConnectionStore = defineStore('connection', () => {
  const pairing = ref<Pairing | null>(null);
  const health = ref<HealthResponse | null>(null);
  const problem = ref<string | null>(null);
  const checking = ref(false);
  const loaded = ref(false);
  /** The daemon answered 401 to the stored token. */
  const refused = ref(false);
  let platform: Platform | undefined;
  // The signed-in user (SPEC part 5), when the app provides one: a pairing with an empty token is theirs.
  const auth = hasInjectionContext() ? inject(AUTH_USER, null) : null;
  const byUser = computed(() => pairing.value?.token === '');

  const client = computed(() =>
    pairing.value
      ? new DaemonClient(pairing.value.url, pairing.value.token, {
          onUnauthorized: markRefused,
          bearer: () => (byUser.value ? auth?.token : undefined),
          renewBearer: async (refused) => (byUser.value && auth ? auth.renew(refused) : false),
        })
      : null,
  );
  const paired = computed(() => pairing.value !== null && !refused.value);
  /** What the live channel presents in `?token=`: the session token, or the signed-in user's. */
  const credential = computed(() => (byUser.value ? (auth?.token ?? '') : (pairing.value?.token ?? '')));

  // Signing out (or the token expiring) ends the user's pairing: the form offers sign-in again. Signing
  // in, here or in another page of the inspector, pairs the app as the user with the daemon they signed
  // in at, as it does when the app loads; a renewed token changes nothing.
  watch(
    () => [auth?.token, auth?.daemonUrl] as const,
    ([token, daemonUrl], [previous]) => {
      if (token) {
        const signedIn = !previous || !byUser.value || pairing.value?.url !== daemonUrl;
        if (signedIn && loaded.value) void pairAsUser();
        return;
      }
      if (!byUser.value) return;
      pairing.value = null;
      health.value = null;
    },
  );

  function markRefused(): void {
    if (!pairing.value) return;
    if (byUser.value) {
      // A token that could not be renewed has signed out already, saying why.
      if (auth?.token) void auth.signOut('The daemon refused your sign-in: sign in again.');
      return;
    }
    refused.value = true;
    health.value = null;
    problem.value = refusedProblem(pairing.value.url);
  }

  async function load(from: Platform): Promise<void> {
    platform = from;
    await auth?.ready;
    pairing.value = (await from.store.get<Pairing>(STORAGE_KEY)) ?? null;
    // A signed-in user needs no token: their sign-in pairs the app with the daemon they signed in at.
    if (!pairing.value && auth?.token && auth.daemonUrl) pairing.value = { url: auth.daemonUrl, token: '' };
    loaded.value = true;
    if (pairing.value) await refreshHealth();
  }

  /**
   * Asks the daemon for its health and, as health needs no token, checks the token with an authenticated
   * call: a daemon restarted with a new token answers health but refuses everything else.
   */
  async function refreshHealth(): Promise<void> {
    const current = client.value;
    if (!current) return;
    try {
      const answer = await current.health();
      await current.listServers();
      health.value = answer;
      problem.value = null;
    } catch (error) {
      health.value = null;
      if (error instanceof DaemonError && error.status === 401) markRefused();
      else problem.value = pairingProblem(error, pairing.value?.url ?? '');
    }
  }

  /** Checks URL and token (health, then an authenticated call) and stores them only when both work. */
  async function pair(url: string, token: string): Promise<boolean> {
    if (!platform) throw new Error('connection store used before load()');
    const cleanUrl = cleanDaemonUrl(url);
    checking.value = true;
    problem.value = null;
    try {
      if (!/^https?:\/\/[^/]+$/.test(cleanUrl)) {
        problem.value = 'The daemon URL looks like http://127.0.0.1:6274 (scheme, host and port only).';
        return false;
      }
      if (!(await platform.hasHostAccess(cleanUrl)) && !(await platform.requestHostAccess(cleanUrl))) {
        problem.value = noHostAccess(cleanUrl);
        return false;
      }
      const candidate = new DaemonClient(cleanUrl, token.trim());
      health.value = await candidate.health();
      await candidate.listServers();
      pairing.value = { url: cleanUrl, token: token.trim() };
      refused.value = false;
      await platform.store.set(STORAGE_KEY, pairing.value);
      return true;
    } catch (error) {
      problem.value = pairingProblem(error, cleanUrl, token.trim());
      return false;
    } finally {
      checking.value = false;
    }
  }

  /**
   * The user just signed in (the extension's sign-in window): the app pairs with the daemon they signed
   * in at, with their token. A stored token pairing gives way: the sign-in is the user's newer choice.
   */
  let pairingAsUser: Promise<void> | undefined;

  function pairAsUser(): Promise<void> {
    // The sign-in's own page calls this as the watch above does: the two share one pairing.
    pairingAsUser ??= pairAsUserNow().finally(() => (pairingAsUser = undefined));
    return pairingAsUser;
  }

  async function pairAsUserNow(): Promise<void> {
    if (!auth?.token || !auth.daemonUrl) return;
    if (byUser.value && pairing.value?.url === auth.daemonUrl && health.value && !refused.value) return;
    pairing.value = { url: auth.daemonUrl, token: '' };
    refused.value = false;
    await platform?.store.remove(STORAGE_KEY);
    await refreshHealth();
  }

  async function unpair(): Promise<void> {
    if (byUser.value) await auth?.signOut();
    pairing.value = null;
    health.value = null;
    refused.value = false;
    await platform?.store.remove(STORAGE_KEY);
  }

  return {
    pairing,
    health,
    problem,
    checking,
    loaded,
    refused,
    client,
    paired,
    credential,
    load,
    refreshHealth,
    pair,
    pairAsUser,
    unpair,
  };
});
