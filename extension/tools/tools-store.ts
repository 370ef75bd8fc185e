import { defineStore } from 'pinia';
import { computed, ref, shallowReactive, shallowRef } from 'vue';
import type { ElicitationResponse } from '../../shared/api';
import type { Tool } from '../../shared/mcp';
import { initialValue, parametersFromValue } from '../forms/forms';
import { isActive, newRun, type Run, ToolRunner } from './tool-run';
import { useTasksStore } from './tasks-store';
import { coalesced } from '../app/coalesce';
import { useLiveStore } from '../app/live-store';
import { requireClient } from '../servers/servers-store';
import { listProblemOf } from '../ui/list-problem';
import { isMethodNotFound } from '../ui/mcp-error';
import { keptKey, positionOf, repeatedKeys } from '../ui/list-repeats';

export type { Run, Tool };

/** What the panel keeps of a server's tools while another server is shown, to find it as it was left. */
interface ParkedServer {
  selectedName: string | null;
  selectedIndex: number | null;
  values: Record<string, Record<string, unknown>>;
  runs: Record<string, Run>;
}

/** The selected server's tools, the form values per tool, and the current run with its elicitations. */
export const useToolsStore = defineStore('tools', () => {
  const serverId = ref<string | null>(null);
  // Replaced whole on every load, never changed in place: a shallow ref spares the reactive proxies of a
  // thousand tools and their schemas that a deep one would make as the list renders.
  const tools = shallowRef<Tool[]>([]);
  const loading = ref(false);
  const listError = ref<string | null>(null);
  /** The server answered tools/list "method not found": it offers no tools (an empty state, not an error). */
  const unsupported = ref(false);
  /** What the daemon found wrong in the server's tools/list answer (tools left out, a list cut short). */
  const listProblem = ref<string | null>(null);
  const query = ref('');
  /** The selected tool's name: what it is called by, run by, and saved by. */
  const selectedName = ref<string | null>(null);
  /**
   * Its position in the server's list, as a server may list one name twice and each is shown and selected
   * on its own; when the tool there is no longer so named (a changed list), the first one that is.
   */
  const selectedIndex = ref<number | null>(null);
  /** The form's values per tool, by name, and by position too for a name listed twice (keptKey). */
  const values = ref<Record<string, Record<string, unknown>>>({});
  /** The last run of each tool; the daemon runs one call at a time, so at most one is active. */
  const runs = ref<Record<string, Run>>({});
  /**
   * The selection, form values and runs of the servers not shown, by server: switching servers and back
   * finds them as they were, and a call still running on another server keeps its progress, its
   * elicitations and its result.
   */
  const parked = shallowReactive(new Map<string, ParkedServer>());
  /** A tool to select once the server lists it (a deep link from the popup). */
  let wanted: { serverId: string; name: string } | null = null;

  const filtered = computed(() => {
    const q = query.value.trim().toLowerCase();
    if (!q) return tools.value;
    return tools.value.filter((t) =>
      [t.name, t.title ?? '', t.description ?? ''].some((text) => text.toLowerCase().includes(q)),
    );
  });
  const nameOf = (tool: Tool): string => tool.name;
  const selectedPosition = computed(() =>
    positionOf(tools.value, nameOf, selectedName.value, selectedIndex.value),
  );
  const selected = computed(() =>
    selectedPosition.value === null ? null : (tools.value[selectedPosition.value] ?? null),
  );
  /** The names the server lists more than once, with how many times. */
  const repeats = computed(() => repeatedKeys(tools.value, nameOf));
  const runner = new ToolRunner(requireClient);
  const run = computed(() => (selectedName.value ? (runs.value[selectedName.value] ?? null) : null));
  /** The call under way, on the server shown or on another one: its progress and elicitations go on. */
  const activeRun = computed(
    () =>
      Object.values(runs.value).find(isActive) ??
      [...parked.values()].flatMap((server) => Object.values(server.runs)).find(isActive) ??
      null,
  );
  /**
   * Whether a call of the server shown is under way. Run stays enabled while another server's runs: the
   * daemon then says which call holds the lock, and Cancel there ends it (ToolRunner).
   */
  const running = computed(() => Object.values(runs.value).some(isActive));
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
  // A server removed (here or elsewhere) takes what was kept of it along: one added again under its id starts afresh.
  live.on('server-removed', (message) => parked.delete(message.serverId));
  // A flood of list_changed costs the listing under way and one more (coalesce.ts).
  const reloadList = coalesced((id) => load(id));
  live.on('notification', (message) => {
    if (message.method === 'notifications/tools/list_changed' && message.serverId === serverId.value) {
      reloadList(message.serverId);
    }
    if (message.method === 'notifications/elicitation/complete') {
      markElicitationComplete(message.serverId, message.params?.elicitationId);
    }
  });

  /** The server says the person finished at a URL: the dialog of the running call shows it. */
  function markElicitationComplete(fromServer: string, elicitationId: unknown): void {
    const target = activeRun.value;
    if (!target || target.serverId !== fromServer || typeof elicitationId !== 'string') return;
    const completed = (target.completedElicitations ??= []);
    // A server repeating itself, or naming ids it never asked about, must not grow the run without end.
    if (!completed.includes(elicitationId) && completed.length < 100) completed.push(elicitationId);
  }

  const formKey = (name: string, position: number | null): string => keptKey(name, position, repeats.value);
  const selectedKey = computed(() =>
    selectedName.value === null ? null : formKey(selectedName.value, selectedPosition.value),
  );
  const currentValue = computed({
    get: () => (selectedKey.value === null ? {} : (values.value[selectedKey.value] ?? {})),
    set: (value: Record<string, unknown>) => {
      if (selectedKey.value !== null) values.value[selectedKey.value] = value;
    },
  });

  async function load(id: string): Promise<void> {
    if (serverId.value !== id) {
      if (serverId.value !== null) {
        parked.set(serverId.value, {
          selectedName: selectedName.value,
          selectedIndex: selectedIndex.value,
          values: values.value,
          runs: runs.value,
        });
      }
      const back = parked.get(id);
      parked.delete(id);
      tools.value = [];
      listProblem.value = null;
      selectedName.value = back?.selectedName ?? null;
      selectedIndex.value = back?.selectedIndex ?? null;
      values.value = back?.values ?? {};
      runs.value = back?.runs ?? {};
    }
    serverId.value = id;
    loading.value = true;
    listError.value = null;
    unsupported.value = false;
    try {
      const listed = await requireClient().listTools(id);
      if (serverId.value !== id) return;
      tools.value = listed.tools as Tool[];
      listProblem.value = listProblemOf(listed);
      // A tool selected before the server was left that it no longer lists.
      if (selectedName.value && !selected.value) selectedName.value = null;
      // A link's tool, listed or not: one the server does not list is said so (the view's missing pane).
      if (wanted?.serverId === id) select(wanted.name);
      if (wanted?.serverId === id) wanted = null;
      if (!selectedName.value && tools.value[0]) select(tools.value[0].name);
      await resumeWaiting(id);
    } catch (error) {
      if (isMethodNotFound(error)) unsupported.value = true;
      else listError.value = (error as Error).message;
      listProblem.value = null;
    } finally {
      loading.value = false;
    }
  }

  /**
   * Selects a tool; with parameters (a loaded saved request) they replace the form's values and the
   * tool's finished result goes, so no result shows under a request that did not produce it.
   */
  function select(name: string, parameters?: Record<string, unknown>): void {
    const index = tools.value.findIndex((t) => t.name === name);
    selectAt(index < 0 ? null : index, name, parameters);
  }

  /** Selects the tool at a position in the server's list (a row of the list). */
  function selectItem(tool: Tool): void {
    const index = tools.value.indexOf(tool);
    if (index >= 0) selectAt(index, tool.name);
  }

  function selectAt(index: number | null, name: string, parameters?: Record<string, unknown>): void {
    selectedName.value = name;
    selectedIndex.value = index;
    const tool = index === null ? undefined : tools.value[index];
    const key = formKey(name, index);
    if (parameters) {
      // As saved: a default the form would give a field the request leaves out is not sent with it.
      values.value[key] = { ...parameters };
      if (runs.value[name] && !isActive(runs.value[name])) delete runs.value[name];
    } else values.value[key] ??= initialValue(tool?.inputSchema);
  }

  /** Selects the tool now if the server's tools are listed, else once they are. */
  function selectWhenListed(id: string, name: string): void {
    if (serverId.value === id && tools.value.some((t) => t.name === name)) select(name);
    else wanted = { serverId: id, name };
  }

  async function execute(): Promise<void> {
    const tool = selected.value;
    if (!tool || !serverId.value || running.value) return;
    const parameters = parametersFromValue(tool.inputSchema, currentValue.value);
    const runAsTask = useTasksStore().taskParamsFor(serverId.value, tool);
    runs.value[tool.name] = {
      ...newRun(serverId.value, tool.name, parameters),
      ...(runAsTask && { runAsTask }),
    };
    // The reactive proxy, so updates after the await reach the view.
    await runner.execute(runs.value[tool.name]!);
  }

  /** A call of this server left waiting on a question (a reload, a closed popup): its question again. */
  async function resumeWaiting(id: string): Promise<void> {
    if (activeRun.value) return;
    const waiting = await runner.waiting();
    if (waiting?.serverId === id && serverId.value === id && !activeRun.value) {
      runs.value[waiting.toolName] = waiting;
    }
  }

  async function respond(response: ElicitationResponse): Promise<void> {
    if (activeRun.value) await runner.respond(activeRun.value, response);
  }

  /** Cancels the shown run, or the call that blocked it. The waiting request then answers `cancelled`. */
  async function cancel(): Promise<void> {
    const shown = run.value ?? activeRun.value;
    if (!shown) return;
    const name = shown.toolName;
    if ((await runner.cancel(shown)) === 'blocker' && runs.value[name] === shown) delete runs.value[name];
  }

  return {
    serverId,
    tools,
    loading,
    listError,
    unsupported,
    listProblem,
    query,
    selectedName,
    selectedIndex,
    repeats,
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
    selectItem,
    selectWhenListed,
    execute,
    respond,
    cancel,
  };
});
