import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import type { KeyValueStore } from '../app/key-value-store';
import type { PutServerRequest, ServerRecord } from '../../shared/servers';
import type { DaemonClient } from '../app/daemon-client';
import { useConnectionStore } from '../app/connection-store';

export function requireClient(): DaemonClient {
  const client = useConnectionStore().client;
  if (!client) throw new Error('Not paired with a daemon');
  return client;
}

/** Replaces the server's record in `list`, or adds it at the end. */
function put(list: ServerRecord[], record: ServerRecord): void {
  const index = list.findIndex((s) => s.id === record.id);
  if (index >= 0) list[index] = record;
  else list.push(record);
}

/** Where the selected server is kept, so a reload (or the next DevTools session) comes back to it. */
export const SELECTED_SERVER_KEY = 'selectedServer';

/** The daemon's server registry as the sidebar shows it, with the selected server. */
export const useServersStore = defineStore('servers', () => {
  const servers = ref<ServerRecord[]>([]);
  const selectedId = ref<string | null>(null);
  const busy = ref<Record<string, boolean>>({});
  const error = ref<string | null>(null);

  const selected = computed(() => servers.value.find((s) => s.id === selectedId.value) ?? null);

  /** The server selected when the page was last open, chosen again if the daemon still has it. */
  let remembered: string | null = null;
  let store: KeyValueStore | undefined;
  /** Reads the server selected last time; the list's first refresh selects it (InspectorApp). */
  async function loadRemembered(from: KeyValueStore): Promise<void> {
    store = from;
    try {
      const id = await from.get<unknown>(SELECTED_SERVER_KEY);
      if (typeof id === 'string') remembered = id;
    } catch {
      // Unreadable storage: the first server is selected, as on a first start.
    }
  }
  watch(selectedId, (id) => {
    if (id === null) return;
    remembered = id;
    store?.set(SELECTED_SERVER_KEY, id).catch(() => undefined);
  });

  /**
   * What each refresh under way has been told since it asked (a record, or null for a server gone): the
   * daemon's answer may have been made before, so it is applied on top of the answer, in order.
   */
  const toldSince = new Set<Array<[string, ServerRecord | null]>>();
  let refreshes = 0;
  /**
   * Servers this page is removing, until the live channel says they are gone: the status the daemon
   * tells as it closes one (`disconnected`) can arrive after the DELETE's answer and must not bring it back.
   */
  const removing = new Set<string>();

  function upsert(record: ServerRecord): void {
    for (const told of toldSince) told.push([record.id, record]);
    put(servers.value, record);
  }

  /** The server is gone from the daemon (removed here or, said by the live channel, elsewhere). */
  function forget(id: string): void {
    for (const told of toldSince) told.push([id, null]);
    servers.value = servers.value.filter((s) => s.id !== id);
    if (selectedId.value === id) selectedId.value = servers.value[0]?.id ?? null;
  }

  /** A record the live channel told (`server-status`): added, changed or connected elsewhere or here. */
  function heard(record: ServerRecord): void {
    if (!removing.has(record.id)) upsert(record);
  }

  /** The live channel's `server-removed`. */
  function heardRemoved(id: string): void {
    removing.delete(id);
    forget(id);
  }

  /**
   * Reloads the list. Only the last refresh asked is applied (an earlier one answered later is older),
   * and with what the live channel told since it asked.
   */
  async function refresh(): Promise<void> {
    const mine = ++refreshes;
    const told: Array<[string, ServerRecord | null]> = [];
    toldSince.add(told);
    try {
      const listed = (await requireClient().listServers()).servers;
      if (mine !== refreshes) return;
      let next = listed;
      for (const [id, record] of told) {
        if (record) put(next, record);
        else next = next.filter((s) => s.id !== id);
      }
      servers.value = next;
      // Gone from the daemon's list: a status told for that id from now on is a server added anew.
      for (const id of removing) if (!listed.some((s) => s.id === id)) removing.delete(id);
      error.value = null;
      if (selectedId.value && !servers.value.some((s) => s.id === selectedId.value)) selectedId.value = null;
      if (!selectedId.value) {
        const again = servers.value.find((s) => s.id === remembered);
        selectedId.value = (again ?? servers.value[0])?.id ?? null;
      }
    } catch (e) {
      if (mine === refreshes) error.value = (e as Error).message;
    } finally {
      toldSince.delete(told);
    }
  }

  async function save(id: string, body: PutServerRequest): Promise<ServerRecord> {
    const record = await requireClient().putServer(id, body);
    removing.delete(id);
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
    removing.add(id);
    try {
      await requireClient().deleteServer(id);
    } catch (e) {
      removing.delete(id);
      throw e;
    }
    forget(id);
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
    loadRemembered,
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
    heard,
    heardRemoved,
    setConnected,
    upsert,
  };
});
