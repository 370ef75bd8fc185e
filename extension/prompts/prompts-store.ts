import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { JsonObject, PromptGetRequest } from '../../shared/api';
import type { Prompt, PromptArgument } from '../../shared/mcp';
import { CANCELLED, describeError, isMethodNotFound } from '../ui/mcp-error';
import { coalesced } from '../app/coalesce';
import { useLiveStore } from '../app/live-store';
import { requireClient } from '../servers/servers-store';
import { listProblemOf } from '../ui/list-problem';
import { keptKey, positionOf, repeatedKeys } from '../ui/list-repeats';

export type { Prompt, PromptArgument };

/** The last `prompts/get` of one prompt. */
export interface PromptRun {
  loading: boolean;
  /** The MCP get-prompt result: `{ description?, messages }`. */
  result?: JsonObject;
  /** What breaks the 2026-07-28 schema in the result, which the daemon passed on as sent. */
  resultProblem?: string;
  error?: string;
}

const isEmpty = (value: string | undefined): boolean => (value ?? '').trim() === '';

/**
 * The `args` of a `prompts/get` request (SPEC part 4): only the fields with a value, or none at all
 * when every field is empty. A value of only spaces counts as empty; others are sent as typed.
 */
export function promptArgs(values: Record<string, string | undefined>): Record<string, string> | undefined {
  const entries = Object.entries(values).filter((entry): entry is [string, string] => !isEmpty(entry[1]));
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** The required arguments of a prompt that have no value yet. */
export function missingArguments(prompt: Prompt, values: Record<string, string | undefined>): string[] {
  return (prompt.arguments ?? []).filter((a) => a.required && isEmpty(values[a.name])).map((a) => a.name);
}

/** The selected server's prompts, the argument values per prompt and the last result of each. */
export const usePromptsStore = defineStore('prompts', () => {
  const serverId = ref<string | null>(null);
  const prompts = ref<Prompt[]>([]);
  const loading = ref(false);
  const listError = ref<string | null>(null);
  /** What the daemon found wrong in the server's prompts/list answer (prompts left out, a list cut short). */
  const listProblem = ref<string | null>(null);
  /** The server answered "Method not found": it offers no prompts. */
  const unsupported = ref(false);
  const query = ref('');
  /** The selected prompt's name: what it is got by. */
  const selectedName = ref<string | null>(null);
  /** Its position in the server's list, as a name may be listed twice (as in tools-store.ts). */
  const selectedIndex = ref<number | null>(null);
  const values = ref<Record<string, Record<string, string>>>({});
  const runs = ref<Record<string, PromptRun>>({});
  /** Per prompt, what stops its get under way (Cancel). */
  const getAborts = new Map<string, AbortController>();

  const filtered = computed(() => {
    const q = query.value.trim().toLowerCase();
    if (!q) return prompts.value;
    return prompts.value.filter((p) =>
      [p.name, p.title, p.description].some((text) => text?.toLowerCase().includes(q)),
    );
  });
  const nameOf = (prompt: Prompt): string => prompt.name;
  const selectedPosition = computed(() =>
    positionOf(prompts.value, nameOf, selectedName.value, selectedIndex.value),
  );
  const selected = computed(() =>
    selectedPosition.value === null ? null : (prompts.value[selectedPosition.value] ?? null),
  );
  /** The names the server lists more than once, with how many times. */
  const repeats = computed(() => repeatedKeys(prompts.value, nameOf));
  /** Where the selected prompt's arguments are kept (keptKey: by position too for a name listed twice). */
  const selectedKey = computed(() =>
    selectedName.value === null ? null : keptKey(selectedName.value, selectedPosition.value, repeats.value),
  );
  const currentValues = computed(() =>
    selectedKey.value === null ? {} : (values.value[selectedKey.value] ?? {}),
  );
  const missing = computed(() =>
    selected.value ? missingArguments(selected.value, currentValues.value) : [],
  );
  const run = computed(() => (selectedName.value ? (runs.value[selectedName.value] ?? null) : null));

  // A flood of list_changed costs the listing under way and one more (coalesce.ts).
  const reloadList = coalesced((id) => load(id));
  useLiveStore().on('notification', (message) => {
    if (message.method === 'notifications/prompts/list_changed' && message.serverId === serverId.value) {
      reloadList(message.serverId);
    }
  });

  async function load(id: string): Promise<void> {
    if (serverId.value !== id) {
      prompts.value = [];
      listProblem.value = null;
      selectedName.value = null;
      selectedIndex.value = null;
      values.value = {};
      runs.value = {};
    }
    serverId.value = id;
    loading.value = true;
    listError.value = null;
    unsupported.value = false;
    try {
      const listed = await requireClient().listPrompts(id);
      if (serverId.value !== id) return;
      // The server's items, shown as MCP's Prompt (each field is checked where it is rendered).
      prompts.value = (listed.prompts ?? []) as Prompt[];
      listProblem.value = listProblemOf(listed);
      if (selectedName.value && !selected.value) selectedName.value = null;
      if (!selectedName.value && prompts.value[0]) select(prompts.value[0].name);
    } catch (error) {
      if (serverId.value !== id) return;
      prompts.value = [];
      listProblem.value = null;
      if (isMethodNotFound(error)) unsupported.value = true;
      else listError.value = describeError(error);
    } finally {
      if (serverId.value === id) loading.value = false;
    }
  }

  /** Selects the first prompt of this name. */
  function select(name: string): void {
    const index = prompts.value.findIndex((p) => p.name === name);
    selectAt(index < 0 ? null : index, name);
  }

  /** Selects the prompt of a row of the list, at its position. */
  function selectItem(prompt: Prompt): void {
    const index = prompts.value.indexOf(prompt);
    if (index >= 0) selectAt(index, prompt.name);
  }

  function selectAt(index: number | null, name: string): void {
    selectedName.value = name;
    selectedIndex.value = index;
    values.value[keptKey(name, index, repeats.value)] ??= {};
  }

  function setValue(argument: string, value: string): void {
    const key = selectedKey.value;
    if (key === null) return;
    (values.value[key] ??= {})[argument] = value;
  }

  async function get(): Promise<void> {
    const prompt = selected.value;
    const id = serverId.value;
    if (!prompt || !id || missing.value.length || runs.value[prompt.name]?.loading) return;
    runs.value[prompt.name] = { loading: true };
    const target = runs.value[prompt.name]!;
    const args = promptArgs(currentValues.value);
    const body: PromptGetRequest = { serverId: id, name: prompt.name, ...(args && { args }) };
    const abort = new AbortController();
    getAborts.set(prompt.name, abort);
    try {
      const { content, resultProblem } = await requireClient().getPrompt(body, abort.signal);
      Object.assign(target, { loading: false, result: content, resultProblem });
    } catch (error) {
      Object.assign(target, {
        loading: false,
        error: abort.signal.aborted ? CANCELLED : describeError(error),
      });
    } finally {
      if (getAborts.get(prompt.name) === abort) getAborts.delete(prompt.name);
    }
  }

  /** Stops the selected prompt's get under way; the daemon cancels it at the server. */
  function cancel(): void {
    if (selectedName.value) getAborts.get(selectedName.value)?.abort();
  }

  return {
    serverId,
    prompts,
    loading,
    listError,
    listProblem,
    unsupported,
    query,
    filtered,
    selectedName,
    selectedIndex,
    selected,
    repeats,
    values,
    currentValues,
    missing,
    runs,
    run,
    load,
    select,
    selectItem,
    setValue,
    get,
    cancel,
  };
});
