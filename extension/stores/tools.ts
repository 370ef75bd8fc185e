import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type {
  ElicitationRequired,
  ElicitationResponse,
  ExecutionOutcome,
  JsonObject,
} from '../../shared/api';
import { initialValue, parametersFromValue } from '../../shared/forms';
import { DaemonError } from '../lib/daemon-client';
import { requireClient } from './servers';

export type Tool = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  _meta?: JsonObject;
};

export interface Run {
  toolName: string;
  serverId: string;
  startedAt: number;
  state: 'running' | 'elicitation' | 'completed' | 'cancelled' | 'failed';
  executionId?: string;
  elicitation?: ElicitationRequired;
  result?: JsonObject;
  error?: string;
  /** Set on a 409: the call that holds the daemon's lock. */
  blockedBy?: { id: string; serverId: string; toolName: string };
}

/** The selected server's tools, the form values per tool, and the current run with its elicitations. */
export const useToolsStore = defineStore('tools', () => {
  const serverId = ref<string | null>(null);
  const tools = ref<Tool[]>([]);
  const loading = ref(false);
  const listError = ref<string | null>(null);
  const query = ref('');
  const selectedName = ref<string | null>(null);
  const values = ref<Record<string, Record<string, unknown>>>({});
  const run = ref<Run | null>(null);

  const filtered = computed(() => {
    const q = query.value.trim().toLowerCase();
    if (!q) return tools.value;
    return tools.value.filter((t) =>
      [t.name, t.title ?? '', t.description ?? ''].some((text) => text.toLowerCase().includes(q)),
    );
  });
  const selected = computed(() => tools.value.find((t) => t.name === selectedName.value) ?? null);
  const running = computed(() => run.value?.state === 'running' || run.value?.state === 'elicitation');
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
      run.value = null;
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

  function settle(outcome: ExecutionOutcome): void {
    if (!run.value) return;
    run.value.executionId = outcome.executionId;
    if (outcome.status === 'completed') {
      run.value.state = 'completed';
      run.value.result = outcome.result;
      run.value.elicitation = undefined;
    } else if (outcome.status === 'elicitation_required') {
      run.value.state = 'elicitation';
      run.value.elicitation = outcome;
    } else {
      run.value.state = 'cancelled';
      run.value.elicitation = undefined;
    }
  }

  function fail(error: unknown): void {
    if (!run.value) return;
    run.value.state = 'failed';
    run.value.elicitation = undefined;
    if (error instanceof DaemonError && error.status === 409 && error.body.activeExecution) {
      run.value.blockedBy = error.body.activeExecution;
      const { toolName, serverId: busyServer } = error.body.activeExecution;
      run.value.error = `Another tool call is running: "${toolName}" on ${busyServer}. The daemon runs one call at a time; wait for it or cancel it.`;
    } else if (error instanceof DaemonError && error.status === 504) {
      run.value.error = `Timed out: ${error.message}`;
    } else {
      run.value.error = (error as Error).message;
    }
  }

  async function execute(): Promise<void> {
    const tool = selected.value;
    if (!tool || !serverId.value || running.value) return;
    run.value = { toolName: tool.name, serverId: serverId.value, startedAt: Date.now(), state: 'running' };
    try {
      settle(
        await requireClient().execute({
          serverId: serverId.value,
          toolName: tool.name,
          parameters: parametersFromValue(tool.inputSchema, currentValue.value),
        }),
      );
    } catch (error) {
      fail(error);
    }
  }

  async function respond(response: ElicitationResponse): Promise<void> {
    const elicitation = run.value?.elicitation;
    if (!run.value || !elicitation) return;
    run.value.state = 'running';
    run.value.elicitation = undefined;
    try {
      settle(await requireClient().respond(elicitation.requestId, response));
    } catch (error) {
      fail(error);
    }
  }

  /** Cancels the current run, or the call that blocked it. The waiting request then answers `cancelled`. */
  async function cancel(): Promise<void> {
    const client = requireClient();
    const id =
      run.value?.blockedBy?.id ??
      run.value?.executionId ??
      (await client.request<{ activeExecution: { id: string } | null }>('GET', '/tools/active'))
        .activeExecution?.id;
    if (!id) return;
    try {
      await client.cancel(id);
      if (run.value?.blockedBy) run.value = null;
    } catch (error) {
      fail(error);
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
    run,
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
