import { defineStore } from 'pinia';
import { reactive, ref } from 'vue';
import type { AuthTrace, AuthTraceMode } from '../../shared/oauth';
import { useLiveStore } from '../app/live-store';
import { requireClient } from '../servers/servers-store';
import { describeError } from '../ui/mcp-error';

/**
 * The auth debugger's steps per server (`GET /servers/:id/auth/trace`), kept current by the live
 * channel's `auth-trace` messages, and the moves: sign in quickly or step by step, go on, clear.
 */
export const useAuthStore = defineStore('auth', () => {
  const traces = reactive<Record<string, AuthTrace>>({});
  const busy = ref(false);
  const error = ref<string | null>(null);

  /**
   * Keeps the newer of two views: an HTTP answer can arrive after the live channel's later messages
   * (Next answers with the record as it was when the request went on), and must not undo them.
   */
  function keep(trace: AuthTrace): void {
    const current = traces[trace.serverId];
    if (current && current.epoch === trace.epoch && current.version > trace.version) return;
    traces[trace.serverId] = trace;
  }

  useLiveStore().on('auth-trace', ({ trace }) => keep(trace));

  async function act(run: () => Promise<AuthTrace | void>): Promise<void> {
    busy.value = true;
    error.value = null;
    try {
      const trace = await run();
      if (trace) keep(trace);
    } catch (failure) {
      error.value = describeError(failure);
    } finally {
      busy.value = false;
    }
  }

  const load = (serverId: string) =>
    act(() => requireClient().call('GET /servers/:id/auth/trace', { id: serverId }));

  /** A fresh sign-in: `quick` answers when it is done (or needs the person), `guided` at once. */
  const start = (serverId: string, mode: AuthTraceMode) =>
    act(async () => {
      await requireClient().call('POST /servers/:id/auth/start', { id: serverId }, { mode });
    });

  const next = (serverId: string) =>
    act(() => requireClient().call('POST /servers/:id/auth/trace/next', { id: serverId }));

  const clear = (serverId: string) =>
    act(() => requireClient().call('DELETE /servers/:id/auth/trace', { id: serverId }));

  return { traces, busy, error, load, start, next, clear };
});
