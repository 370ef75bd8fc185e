import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ElicitationResponse, JsonObject } from '../../shared/api';
import { initialValue, parametersFromValue } from '../forms/forms';
import { failRun, type Run, settleRun } from './tool-run';
import { useLiveStore } from '../app/live-store';
import { requireClient } from '../servers/servers-store';

export type Tool = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  _meta?: JsonObject;
};

export type { Run };

/** The selected server's tools, the form values per tool, and the current run with its elicitations. */
export const useToolsStore = defineStore('tools', () => {
  const serverId = ref<string | null>(null);
  // Replaced whole on every load, never changed in place: a shallow ref spares the reactive proxies of a
  // thousand tools and their schemas that a deep one would make as the list renders.
  const tools = shallowRef<Tool[]>([]);
  const loading = ref(false);
  const listError = ref<string | null>(null);
  const query = ref('');
  const selectedName = ref<string | null>(null);
  const values = ref<Record<string, Record<string, unknown>>>({});
  /** The last run of each tool; the daemon runs one call at a time, so at most one is active. */
  const runs = ref<Record<string, Run>>({});

  const filtered = computed(() => {
    const q = query.value.trim().toLowerCase();
    if (!q) return tools.value;
    return tools.value.filter((t) =>
      [t.name, t.title ?? '', t.description ?? ''].some((text) => text.toLowerCase().includes(q)),
    );
  });
  const selected = computed(() => tools.value.find((t) => t.name === selectedName.value) ?? null);
  const isActive = (r: Run): boolean => r.state === 'running' || r.state === 'elicitation';
  const run = computed(() => (selectedName.value ? (runs.value[selectedName.value] ?? null) : null));
  const activeRun = computed(() => Object.values(runs.value).find(isActive) ?? null);
  const running = computed(() => activeRun.value !== null);
  const live = useLiveStore();
  live.on('progress', (message) => {
    const target = activeRun.value;
    if (!target || target.serverId !== message.serverId || target.toolName !== message.toolName) return;
    target.executionId = message.executionId;
    target.progress = {
      progress: message.progress,
      ...(message.total !== undefined && { total: message.total }),
      ...(message.message !== undefined && { message: message.message }),
    };
  });
  live.on('notification', (message) => {
    if (message.method === 'notifications/tools/list_changed' && message.serverId === serverId.value) {
      void load(message.serverId);
    }
  });

  const currentValue = computed({
    get: () => (selectedName.value ? (values.value[selectedName.value] ?? {}) : {}),
    set: (value: Record<string, unknown>) => {
      if (selectedName.value) values.value[selectedName.value] = value;
    },
  });

  async function load(id: string): Promise<void> {
    if (serverId.value !== id) {
      tools.value = [];
      selectedName.value = null;
      values.value = {};
      runs.value = {};
    }
    serverId.value = id;
    loading.value = true;
    listError.value = null;
    try {
      const listed = await requireClient().listTools(id);
      if (serverId.value !== id) return;
      tools.value = listed.tools as Tool[];
      if (!selectedName.value && tools.value[0]) select(tools.value[0].name);
    } catch (error) {
      listError.value = (error as Error).message;
    } finally {
      loading.value = false;
    }
  }

  function select(name: string, parameters?: Record<string, unknown>): void {
    selectedName.value = name;
    const tool = tools.value.find((t) => t.name === name);
    if (parameters) values.value[name] = { ...initialValue(tool?.inputSchema), ...parameters };
    else values.value[name] ??= initialValue(tool?.inputSchema);
  }

  async function execute(): Promise<void> {
    const tool = selected.value;
    if (!tool || !serverId.value || running.value) return;
    const parameters = parametersFromValue(tool.inputSchema, currentValue.value);
    runs.value[tool.name] = {
      toolName: tool.name,
      serverId: serverId.value,
      startedAt: Date.now(),
      state: 'running',
      parameters,
    };
    // The reactive proxy, so updates after the await reach the view.
    const target = runs.value[tool.name]!;
    try {
      settleRun(
        target,
        await requireClient().execute({ serverId: serverId.value, toolName: tool.name, parameters }),
      );
    } catch (error) {
      failRun(target, error);
    }
  }

  async function respond(response: ElicitationResponse): Promise<void> {
    const target = activeRun.value;
    const elicitation = target?.elicitation;
    if (!target || !elicitation) return;
    target.state = 'running';
    target.elicitation = undefined;
    try {
      settleRun(target, await requireClient().respond(elicitation.requestId, response));
    } catch (error) {
      failRun(target, error);
    }
  }

  /** Cancels the current run, or the call that blocked it. The waiting request then answers `cancelled`. */
  async function cancel(): Promise<void> {
    const client = requireClient();
    const shown = run.value;
    const id =
      shown?.blockedBy?.id ??
      activeRun.value?.executionId ??
      (await client.request<{ activeExecution: { id: string } | null }>('GET', '/tools/active'))
        .activeExecution?.id;
    if (!id) return;
    try {
      await client.cancel(id);
      if (shown?.blockedBy && selectedName.value) delete runs.value[selectedName.value];
    } catch (error) {
      if (shown) failRun(shown, error);
    }
  }

  return {
    serverId,
    tools,
    loading,
    listError,
    query,
    selectedName,
    values,
    runs,
    run,
    activeRun,
    filtered,
    selected,
    running,
    currentValue,
    load,
    select,
    execute,
    respond,
    cancel,
  };
});
