import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { HealthResponse } from '../../shared/health';
import { DaemonClient, DaemonError } from './daemon-client';
import type { Platform } from './platform';

export interface Pairing {
  url: string;
  token: string;
}

const STORAGE_KEY = 'pairing';

/** Explains a failed pairing check in words a user can act on. */
export function pairingProblem(error: unknown, url: string): string {
  if (error instanceof DaemonError) {
    if (error.unreachable)
      return `No daemon answers at ${url}. Start it with \`npx inspector-daemon\` and check the URL.`;
    if (error.status === 401) return 'The daemon refused the token. Copy the token it printed at start.';
    if (error.status === 403) return `The daemon refused this page: ${error.message}`;
    return `The daemon answered ${error.status}: ${error.message}`;
  }
  return (error as Error).message;
}

/** The daemon URL, token and health: paired once, kept in storage. */
export const useConnectionStore = defineStore('connection', () => {
  const pairing = ref<Pairing | null>(null);
  const health = ref<HealthResponse | null>(null);
  const problem = ref<string | null>(null);
  const checking = ref(false);
  const loaded = ref(false);
  let platform: Platform | undefined;

  const client = computed(() =>
    pairing.value ? new DaemonClient(pairing.value.url, pairing.value.token) : null,
  );
  const paired = computed(() => pairing.value !== null);

  async function load(from: Platform): Promise<void> {
    platform = from;
    pairing.value = (await from.store.get<Pairing>(STORAGE_KEY)) ?? null;
    loaded.value = true;
    if (pairing.value) await refreshHealth();
  }

  async function refreshHealth(): Promise<void> {
    if (!client.value) return;
    try {
      health.value = await client.value.health();
      problem.value = null;
    } catch (error) {
      health.value = null;
      problem.value = pairingProblem(error, pairing.value?.url ?? '');
    }
  }

  /** Checks URL and token (health, then an authenticated call) and stores them only when both work. */
  async function pair(url: string, token: string): Promise<boolean> {
    if (!platform) throw new Error('connection store used before load()');
    const cleanUrl = url.trim().replace(/\/+$/, '');
    checking.value = true;
    problem.value = null;
    try {
      if (!/^https?:\/\/[^/]+$/.test(cleanUrl)) {
        problem.value = 'The daemon URL looks like http://127.0.0.1:6274 (scheme, host and port only).';
        return false;
      }
      if (!(await platform.hasHostAccess(cleanUrl)) && !(await platform.requestHostAccess(cleanUrl))) {
        problem.value = `The extension has no permission to reach ${cleanUrl}. Allow it when the browser asks.`;
        return false;
      }
      const candidate = new DaemonClient(cleanUrl, token.trim());
      health.value = await candidate.health();
      await candidate.listServers();
      pairing.value = { url: cleanUrl, token: token.trim() };
      await platform.store.set(STORAGE_KEY, pairing.value);
      return true;
    } catch (error) {
      problem.value = pairingProblem(error, cleanUrl);
      return false;
    } finally {
      checking.value = false;
    }
  }

  async function unpair(): Promise<void> {
    pairing.value = null;
    health.value = null;
    await platform?.store.remove(STORAGE_KEY);
  }

  return { pairing, health, problem, checking, loaded, client, paired, load, refreshHealth, pair, unpair };
});
