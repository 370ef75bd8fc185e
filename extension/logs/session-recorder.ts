/**
 * The Logs view's Record button: keeps the log entries of one server from Start to Stop and downloads
 * them as a session file (shared/session-file.ts), the format `inspector-daemon replay` and `diff`
 * read. Starting lists the server's tools, resources and prompts, so the session has them.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { RpcLogEntry } from '../../shared/logs';
import { sessionHeader, sessionText } from '../../shared/session-file';
import { requireClient, useServersStore } from '../servers/servers-store';
import { downloadJsonlFile, fileTime } from '../ui/download';
import { useLogsStore } from './logs-store';

export const useSessionRecorderStore = defineStore('session-recorder', () => {
  const logs = useLogsStore();
  const servers = useServersStore();
  /** The server being recorded, or last recorded. */
  const serverId = ref<string | null>(null);
  const recording = ref(false);
  /** The entries recorded (not reactive: a long session is not copied per message). */
  let entries: RpcLogEntry[] = [];
  /** How many JSON-RPC messages are recorded, shown on the Stop button. */
  const messageCount = ref(0);
  let unsubscribe: (() => void) | undefined;

  /** The server Record would record: the one checked in the servers filter, or the only one there is. */
  const candidate = computed(() => {
    const ids = logs.serverFilter.length ? logs.serverFilter : servers.servers.map((server) => server.id);
    return ids.length === 1 ? (ids[0] ?? null) : null;
  });

  function start(): void {
    const id = candidate.value;
    if (!id || recording.value) return;
    serverId.value = id;
    messageCount.value = 0;
    recording.value = true;
    const recorded: RpcLogEntry[] = (entries = []);
    unsubscribe = logs.onEntry((entry) => {
      if (entry.serverId !== id) return;
      const index = recorded.push(entry) - 1;
      if (entry.direction === 'send' || entry.direction === 'receive') messageCount.value++;
      // Missed while the live channel reconnected, and too big for its replay: the session needs it whole.
      if (entry.cut) {
        requireClient()
          .logEntry(entry.seq, entry.cut.bootId)
          .then((whole) => (recorded[index] = whole.entry))
          .catch(() => {});
      }
    });
    // A failed listing shows in the log (and the views); the recording goes on without it.
    listEverything(id).catch(() => {});
  }

  /** The listings a replay and a diff need, through the daemon; their traffic is recorded. */
  async function listEverything(id: string): Promise<void> {
    const record = servers.servers.find((server) => server.id === id);
    if (record?.status !== 'connected') return;
    const { tools, resources, prompts } = record.capabilities ?? {};
    if (!tools && !resources && !prompts) return;
    const client = requireClient();
    await Promise.allSettled([
      tools && client.listTools(id),
      resources && client.listResources(id),
      prompts && client.listPrompts(id),
    ]);
  }

  function stop(): void {
    unsubscribe?.();
    unsubscribe = undefined;
    recording.value = false;
  }

  /** The recorded session, with the server's info and capabilities as the daemon has them now. */
  function sessionFile(): string {
    const record = servers.servers.find((server) => server.id === serverId.value);
    return sessionText(sessionHeader(record ?? { name: serverId.value ?? undefined }), entries);
  }

  function download(): void {
    downloadJsonlFile(`mcp-session-${serverId.value ?? 'server'}-${fileTime()}.jsonl`, sessionFile());
  }

  return { serverId, recording, candidate, messageCount, start, stop, sessionFile, download };
});
