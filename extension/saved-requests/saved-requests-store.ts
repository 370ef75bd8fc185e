import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { JsonObject } from '../../shared/api';
import { type Expectation, sameExpectationSlot } from '../../shared/expectations.ts';
import {
  exportSavedRequests,
  newSavedRequests,
  parseSavedRequestsExport,
  sortSavedRequests,
  type SavedRequest,
} from '../../shared/saved-requests.ts';
import type { KeyValueStore } from '../app/key-value-store';
import { newId } from '../ui/new-id';

export interface NewSavedRequest {
  title: string;
  description?: string;
  toolName: string;
  parameters: JsonObject;
}

export interface ImportResult {
  imported: number;
  /** Valid entries left out because the same request is saved already (or came twice in the file). */
  skipped: number;
  problems: string[];
}

export function savedRequestsKey(serverId: string): string {
  return `savedRequests:${serverId}`;
}

/** Saved values are copies: a form edited after saving must not change what was saved. */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The current server's saved requests, written to the key-value store after every change. */
export const useSavedRequestsStore = defineStore('savedRequests', () => {
  const serverId = ref<string | null>(null);
  const requests = ref<SavedRequest[]>([]);
  const loaded = ref(false);
  let store: KeyValueStore | undefined;
  let loads = 0;

  const sorted = computed(() => sortSavedRequests(requests.value));
  /**
   * The saved request each tool's form came from (loaded, or just saved), by tool name: its
   * expectations are checked on every run of that tool until another is loaded or it is detached.
   */
  const attached = ref<Record<string, string>>({});

  async function load(from: KeyValueStore, id: string): Promise<void> {
    const ticket = ++loads;
    store = from;
    serverId.value = id;
    loaded.value = false;
    requests.value = [];
    attached.value = {};
    const stored = await from.get<unknown>(savedRequestsKey(id));
    // A later load (the user switched servers meanwhile) wins.
    if (ticket !== loads) return;
    const parsed = stored === undefined ? [] : parseSavedRequestsExport(stored).requests;
    requests.value = parsed.map((r) => (r.id ? r : { ...r, id: newId() }));
    loaded.value = true;
  }

  function target(): { store: KeyValueStore; serverId: string } {
    // Writing before the stored list is read would overwrite it.
    if (!store || serverId.value === null || !loaded.value) {
      throw new Error('saved requests store used before load() finished');
    }
    return { store, serverId: serverId.value };
  }

  /** Writes the whole list; the snapshot is taken now, so a server switch during the write is harmless. */
  async function persist(): Promise<void> {
    const { store: kv, serverId: id } = target();
    await kv.set(savedRequestsKey(id), copy(requests.value));
  }

  /**
   * Makes a change to the list and writes it. When the write fails (storage full, the extension
   * reloaded) the list goes back to what storage holds, so what is shown is what is saved, and the
   * error says what happened.
   */
  async function change<T>(mutate: () => T): Promise<T> {
    const before = copy(requests.value);
    const result = mutate();
    try {
      await persist();
    } catch (error) {
      requests.value = before;
      throw notSaved(error);
    }
    return result;
  }

  function find(id: string): SavedRequest {
    const request = requests.value.find((r) => r.id === id);
    if (!request) throw new Error(`No saved request with id ${id}`);
    return request;
  }

  function requireTitle(title: string): string {
    const trimmed = title.trim();
    if (!trimmed) throw new Error('A saved request needs a title');
    return trimmed;
  }

  async function save(input: NewSavedRequest): Promise<SavedRequest> {
    target();
    if (!input.toolName) throw new Error('A saved request needs a tool');
    const now = new Date().toISOString();
    const request: SavedRequest = {
      id: newId(),
      title: requireTitle(input.title),
      description: input.description?.trim() ?? '',
      toolName: input.toolName,
      parameters: copy(input.parameters),
      favorite: false,
      createdAt: now,
      updatedAt: now,
    };
    await change(() => requests.value.push(request));
    // The form now is this saved request: its expectations are checked on the next runs.
    attached.value[request.toolName] = request.id;
    return request;
  }

  /** The saved request attached to a tool's form, if it still exists. */
  function attachedTo(toolName: string | null): SavedRequest | null {
    const id = toolName ? attached.value[toolName] : undefined;
    return (id && requests.value.find((r) => r.id === id)) || null;
  }

  function attach(toolName: string, id: string | null): void {
    if (id === null) delete attached.value[toolName];
    else attached.value[toolName] = id;
  }

  /**
   * Adds an expectation, replacing one it would contradict or repeat: the other of no error / is an
   * error, the snapshot, the latency budget, the same JSON path and operation, the same text.
   */
  async function addExpectation(id: string, expectation: Expectation): Promise<void> {
    const request = find(id);
    const kept = (request.expectations ?? []).filter((e) => !sameExpectationSlot(e, expectation));
    await change(() => {
      request.expectations = [...kept, copy(expectation)];
      request.updatedAt = new Date().toISOString();
    });
  }

  async function replaceExpectation(id: string, index: number, expectation: Expectation): Promise<void> {
    const request = find(id);
    const expectations = request.expectations;
    if (!expectations?.[index]) throw new Error(`No expectation ${index} on ${request.title}`);
    await change(() => {
      expectations[index] = copy(expectation);
      request.updatedAt = new Date().toISOString();
    });
  }

  async function removeExpectation(id: string, index: number): Promise<void> {
    const request = find(id);
    const rest = (request.expectations ?? []).filter((_, i) => i !== index);
    await change(() => {
      if (rest.length > 0) request.expectations = rest;
      else delete request.expectations;
      request.updatedAt = new Date().toISOString();
    });
  }

  /** Keeps new parameters for the request, as the form last ran them. */
  async function updateParameters(id: string, parameters: JsonObject): Promise<void> {
    const request = find(id);
    await change(() => {
      request.parameters = copy(parameters);
      request.updatedAt = new Date().toISOString();
    });
  }

  async function rename(id: string, title: string, description?: string): Promise<void> {
    const request = find(id);
    const newTitle = requireTitle(title);
    await change(() => {
      request.title = newTitle;
      if (description !== undefined) request.description = description.trim();
      request.updatedAt = new Date().toISOString();
    });
  }

  async function duplicate(id: string): Promise<SavedRequest> {
    const original = find(id);
    const now = new Date().toISOString();
    const twin: SavedRequest = {
      ...copy(original),
      id: newId(),
      title: `${original.title} (copy)`,
      favorite: false,
      createdAt: now,
      updatedAt: now,
    };
    await change(() => requests.value.push(twin));
    return twin;
  }

  async function toggleFavorite(id: string): Promise<void> {
    const request = find(id);
    await change(() => {
      request.favorite = !request.favorite;
    });
  }

  async function remove(id: string): Promise<void> {
    find(id);
    await change(() => {
      requests.value = requests.value.filter((r) => r.id !== id);
    });
  }

  function exportJson(): string {
    return JSON.stringify(exportSavedRequests(target().serverId, sortSavedRequests(requests.value)), null, 2);
  }

  /**
   * Adds the file's valid entries under new ids next to the existing ones; nothing is overwritten. An
   * entry with the title, tool and parameters of one already saved is skipped (`savedRequestIdentity`),
   * so importing the same file twice adds nothing the second time.
   */
  async function importJson(text: string): Promise<ImportResult> {
    target();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return {
        imported: 0,
        skipped: 0,
        problems: [`The file is not valid JSON: ${(error as Error).message}`],
      };
    }
    const { requests: parsed, problems } = parseSavedRequestsExport(json);
    const { added, skipped } = newSavedRequests(requests.value, parsed);
    if (added.length > 0)
      await change(() => requests.value.push(...added.map((r) => ({ ...r, id: newId() }))));
    return { imported: added.length, skipped, problems };
  }

  return {
    serverId,
    requests,
    loaded,
    sorted,
    attached,
    load,
    attachedTo,
    attach,
    addExpectation,
    replaceExpectation,
    removeExpectation,
    updateParameters,
    save,
    rename,
    duplicate,
    toggleFavorite,
    remove,
    exportJson,
    importJson,
  };
});

/** A failed write as the user reads it: storage full is said plainly, with what to do. */
function notSaved(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/quota/i.test(message) || (error instanceof DOMException && error.name === 'QuotaExceededError')) {
    return new Error(
      "Not saved: the browser's storage for saved requests is full. Export the ones you need, delete some, and try again.",
      { cause: error },
    );
  }
  return new Error(`Not saved: ${message}`, { cause: error });
}
