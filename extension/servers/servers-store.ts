import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { PutServerRequest, ServerRecord } from '../../shared/servers';
import type { DaemonClient } from '../app/daemon-client';
import { useConnectionStore } from '../app/connection-store';

export function requireClient(): DaemonClient {
  const client = useConnectionStore().client;
  if (!client) throw new Error('Not paired with a daemon');
  return client;
}

/** The daemon's server registry as the sidebar shows it, with the selected server. */
export const useServersStore = defineStore('servers', () => {
  const servers = ref<ServerRecord[]>([]);
  const selectedId = ref<string | null>(null);
  const busy = ref<Record<string, boolean>>({});
  const error = ref<string | null>(null);

  const selected = computed(() => servers.value.find((s) => s.id === selectedId.value) ?? null);

  function upsert(record: ServerRecord): void {
    const index = servers.value.findIndex((s) => s.id === record.id);
    if (index >= 0) servers.value[index] = record;
    else servers.value.push(record);
  }

  async function refresh(): Promise<void> {
    try {
      servers.value = (await requireClient().listServers()).servers;
      error.value = null;
      if (selectedId.value && !servers.value.some((s) => s.id === selectedId.value)) selectedId.value = null;
      if (!selectedId.value && servers.value[0]) selectedId.value = servers.value[0].id;
    } catch (e) {
      error.value = (e as Error).message;
    }
  }

  async function save(id: string, body: PutServerRequest): Promise<ServerRecord> {
    const record = await requireClient().putServer(id, body);
    upsert(record);
    selectedId.value = id;
    return record;
  }

  async function importJson(mcpServers: Record<string, unknown>): Promise<ServerRecord[]> {
    const { servers: imported } = await requireClient().importServers(mcpServers);
    imported.forEach(upsert);
    if (imported[0]) selectedId.value = imported[0].id;
    return imported;
  }

  async function remove(id: string): Promise<void> {
    await requireClient().deleteServer(id);
    forget(id);
  }

  /** The server is gone from the daemon (removed here or, said by the live channel, elsewhere). */
  function forget(id: string): void {
    servers.value = servers.value.filter((s) => s.id !== id);
    if (selectedId.value === id) selectedId.value = servers.value[0]?.id ?? null;
  }

  /** Connect or disconnect; a failure is kept in the record's lastError by the daemon, then shown. */
  async function setConnected(id: string, connected: boolean): Promise<void> {
    busy.value[id] = true;
    try {
      const client = requireClient();
      upsert(connected ? await client.connect(id) : await client.disconnect(id));
    } catch {
      await refresh();
    } finally {
      busy.value[id] = false;
    }
  }

  return {
    servers,
    selectedId,
    selected,
    busy,
    error,
    refresh,
    save,
    importJson,
    remove,
    forget,
    setConnected,
    upsert,
  };
});
