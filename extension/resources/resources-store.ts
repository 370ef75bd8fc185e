import { defineStore } from 'pinia';
import { computed, type Ref, ref, toRaw } from 'vue';
import type { JsonObject } from '../../shared/api';
import type { Resource, ResourceTemplate } from '../../shared/mcp';
import { CANCELLED, describeError, isMethodNotFound } from '../ui/mcp-error';
import { coalesced } from '../app/coalesce';
import { useLiveStore } from '../app/live-store';
import { requireClient } from '../servers/servers-store';
import { listProblemOf } from '../ui/list-problem';
import { positionOf, repeatedKeys } from '../ui/list-repeats';

export type { Resource, ResourceTemplate };

/** The last read of one URI. The previous result stays while a new read runs, so updates do not flicker. */
export interface ResourceRead {
  loading: boolean;
  /** The MCP `resources/read` result: `{ contents, _meta? }`. */
  result?: JsonObject;
  /** What breaks the 2026-07-28 schema in the result, which the daemon passed on as sent. */
  resultProblem?: string;
  error?: string;
  readAt?: number;
}

export interface ResourceUpdates {
  count: number;
  lastAt: number;
}

/**
 * The items of `list` whose fields hold `query`, case aside. Each item's fields are lower-cased and
 * joined once per list, not at every key pressed: tens of thousands of resources filter in milliseconds.
 * A field is searched as it is shown: a number as its digits, anything else that is no string not at all.
 * The store replaces a list whole, never changes one in place: only a new list is read again.
 */
function searchedList<T extends object>(
  list: Ref<T[]>,
  query: Ref<string>,
  fields: (item: T) => unknown[],
): Ref<T[]> {
  const texts = computed(() =>
    toRaw(list.value).map((item) =>
      fields(item)
        .filter((field) => typeof field === 'string' || typeof field === 'number')
        .join('\u0000')
        .toLowerCase(),
    ),
  );
  return computed(() => {
    const q = query.value.trim().toLowerCase();
    if (!q) return list.value;
    const items = list.value;
    const found: T[] = [];
    texts.value.forEach((text, index) => {
      if (text.includes(q)) found.push(items[index] as T);
    });
    return found;
  });
}

/** The selected server's resources and templates, what was read, and the subscriptions with their updates. */
export const useResourcesStore = defineStore('resources', () => {
  const serverId = ref<string | null>(null);
  const resources = ref<Resource[]>([]);
  const templates = ref<ResourceTemplate[]>([]);
  const loading = ref(false);
  const listError = ref<string | null>(null);
  /** What the daemon found wrong in the server's resources/list answer (resources left out, a list cut short). */
  const listProblem = ref<string | null>(null);
  /** The same for its resources/templates/list answer. */
  const templatesProblem = ref<string | null>(null);
  /** The server answered "Method not found": it offers no resources. */
  const unsupported = ref(false);
  const query = ref('');
  /** The URI the viewer shows. */
  const selectedUri = ref<string | null>(null);
  /**
   * The position in the server's list of the resource selected, as a server may list one URI twice and
   * each is shown and selected on its own; the first of the URI shown when the one there is not it.
   */
  const selectedResourceIndex = ref<number | null>(null);
  /** The template whose form is open, by name, */
  const selectedTemplate = ref<string | null>(null);
  /** and its position in the server's list. */
  const selectedTemplateIndex = ref<number | null>(null);
  const templateValues = ref<Record<string, Record<string, string>>>({});
  const uriInput = ref('');
  const reads = ref<Record<string, ResourceRead>>({});
  const subscribed = ref(new Set<string>());
  const updates = ref<Record<string, ResourceUpdates>>({});
  const subscriptionError = ref<string | null>(null);
  /** Per URI, the number of the latest read: an older answer arriving late is dropped. */
  const readTickets = new Map<string, number>();
  /** Per URI, what stops the read under way (a newer read of it, or Cancel). */
  const readAborts = new Map<string, AbortController>();

  const filtered = searchedList(resources, query, (r) => [r.name, r.title, r.uri, r.description, r.mimeType]);
  const filteredTemplates = searchedList(templates, query, (t) => [
    t.name,
    t.title,
    t.uriTemplate,
    t.description,
    t.mimeType,
  ]);
  const uriOf = (resource: Resource): string => resource.uri;
  const templateNameOf = (template: ResourceTemplate): string => template.name;
  /** The resource whose row is selected: the one at its position, or the first of the URI shown. */
  const selectedResource = computed(() => {
    if (selectedTemplate.value !== null) return null;
    const index = positionOf(resources.value, uriOf, selectedUri.value, selectedResourceIndex.value);
    return index === null ? null : (resources.value[index] ?? null);
  });
  const templatePosition = computed(() =>
    positionOf(templates.value, templateNameOf, selectedTemplate.value, selectedTemplateIndex.value),
  );
  const template = computed(() =>
    templatePosition.value === null ? null : (templates.value[templatePosition.value] ?? null),
  );
  /** The URIs the server lists more than once, with how many times; the same of URI templates. */
  const repeatedUris = computed(() => repeatedKeys(resources.value, uriOf));
  const repeatedTemplates = computed(() => repeatedKeys(templates.value, (t) => t.uriTemplate));
  const current = computed(() => (selectedUri.value ? (reads.value[selectedUri.value] ?? null) : null));

  const live = useLiveStore();
  // A flood of notifications costs a list or a read under way and one more, not one each (coalesce.ts).
  const reloadList = coalesced((id) => load(id));
  const readAgain = coalesced((uri) => fetchRead(uri));
  live.on('notification', (message) => {
    if (message.serverId !== serverId.value) return;
    if (message.method === 'notifications/resources/list_changed') reloadList(message.serverId);
    const uri = message.params?.uri;
    if (message.method === 'notifications/resources/updated' && typeof uri === 'string') {
      if (!subscribed.value.has(uri)) return;
      updates.value[uri] = { count: (updates.value[uri]?.count ?? 0) + 1, lastAt: Date.now() };
      readAgain(uri);
    }
  });
  // A server that stops or fails has forgotten its subscriptions.
  live.on('server-status', ({ server }) => {
    if (server.id === serverId.value && (server.status === 'disconnected' || server.status === 'error')) {
      subscribed.value.clear();
    }
  });

  function reset(): void {
    const previous = serverId.value;
    // Leave no subscription behind on the server we stop showing; nobody would see its updates.
    if (previous) {
      for (const uri of subscribed.value) {
        requireClient()
          .subscribe(previous, uri, false)
          .catch(() => undefined);
      }
    }
    resources.value = [];
    templates.value = [];
    listProblem.value = null;
    templatesProblem.value = null;
    selectedUri.value = null;
    selectedResourceIndex.value = null;
    selectedTemplate.value = null;
    selectedTemplateIndex.value = null;
    templateValues.value = {};
    uriInput.value = '';
    reads.value = {};
    subscribed.value = new Set();
    updates.value = {};
    subscriptionError.value = null;
    readTickets.clear();
  }

  async function load(id: string): Promise<void> {
    if (serverId.value !== id) reset();
    serverId.value = id;
    loading.value = true;
    listError.value = null;
    unsupported.value = false;
    const [listed, templated] = await Promise.allSettled([
      requireClient().listResources(id),
      requireClient().listResourceTemplates(id),
    ]);
    if (serverId.value !== id) return;
    loading.value = false;
    unsupported.value = listed.status === 'rejected' && isMethodNotFound(listed.reason);
    // The server's items, shown as MCP's Resource (each field is checked where it is rendered).
    if (listed.status === 'fulfilled') {
      resources.value = (listed.value.resources ?? []) as Resource[];
      listProblem.value = listProblemOf(listed.value);
    } else {
      resources.value = [];
      listProblem.value = null;
      if (!unsupported.value) listError.value = describeError(listed.reason);
    }
    // A server may list resources yet not implement templates: that just means none.
    if (templated.status === 'fulfilled') {
      templates.value = (templated.value.resourceTemplates ?? []) as ResourceTemplate[];
      templatesProblem.value = listProblemOf(templated.value);
    } else {
      templates.value = [];
      templatesProblem.value = null;
      if (!isMethodNotFound(templated.reason) && !listError.value && !unsupported.value) {
        listError.value = describeError(templated.reason);
      }
    }
  }

  async function fetchRead(uri: string): Promise<void> {
    const id = serverId.value;
    if (!id) return;
    const ticket = (readTickets.get(uri) ?? 0) + 1;
    readTickets.set(uri, ticket);
    reads.value[uri] ??= { loading: true };
    // The reactive entry (not the object literal), so later changes reach the view.
    const entry = reads.value[uri]!;
    entry.loading = true;
    readAborts.get(uri)?.abort();
    const abort = new AbortController();
    readAborts.set(uri, abort);
    try {
      const { content, resultProblem } = await requireClient().readResource(id, uri, abort.signal);
      if (readTickets.get(uri) !== ticket || serverId.value !== id) return;
      Object.assign(entry, {
        loading: false,
        result: content,
        resultProblem,
        error: undefined,
        readAt: Date.now(),
      });
    } catch (error) {
      if (readTickets.get(uri) !== ticket || serverId.value !== id) return;
      Object.assign(entry, {
        loading: false,
        result: undefined,
        resultProblem: undefined,
        error: abort.signal.aborted ? CANCELLED : describeError(error),
        readAt: Date.now(),
      });
    } finally {
      if (readAborts.get(uri) === abort) readAborts.delete(uri);
    }
  }

  /** Stops the read of `uri` under way; the daemon cancels it at the server. */
  function cancelRead(uri: string): void {
    readAborts.get(uri)?.abort();
  }

  /**
   * Shows the URI in the viewer and reads it. Reading the URI already shown keeps its result on screen
   * until the new one arrives; reading another URI starts from nothing, so no earlier result of it (or
   * of the URI shown before) stands under the new request.
   */
  function read(uri: string): Promise<void> {
    if (uri !== selectedUri.value) delete reads.value[uri];
    selectedUri.value = uri;
    return fetchRead(uri);
  }

  /** Shows a URI of the server, from elsewhere in the panel (a resource link, the popup's deep link). */
  function open(id: string, uri: string): Promise<void> {
    if (serverId.value !== id) {
      reset();
      serverId.value = id;
    }
    return selectResource(uri);
  }

  /** Shows and reads a URI; its row, if the server lists it, is the first of that URI. */
  function selectResource(uri: string): Promise<void> {
    const index = resources.value.findIndex((r) => r.uri === uri);
    return selectResourceAt(index < 0 ? null : index, uri);
  }

  /** Shows and reads the resource of a row of the list, at its position. */
  function selectResourceItem(resource: Resource): Promise<void> {
    const index = resources.value.indexOf(resource);
    return selectResourceAt(index < 0 ? null : index, resource.uri);
  }

  function selectResourceAt(index: number | null, uri: string): Promise<void> {
    selectedTemplate.value = null;
    selectedTemplateIndex.value = null;
    selectedResourceIndex.value = index;
    uriInput.value = uri;
    return read(uri);
  }

  /** Opens the form of the first template of this name. */
  function selectTemplate(name: string): void {
    const index = templates.value.findIndex((t) => t.name === name);
    selectTemplateAt(index < 0 ? null : index, name);
  }

  /** Opens the form of the template of a row of the list, at its position. */
  function selectTemplateItem(template: ResourceTemplate): void {
    const index = templates.value.indexOf(template);
    if (index >= 0) selectTemplateAt(index, template.name);
  }

  /** What is typed in a template's form: own keys only (a template may be named `__proto__`). */
  function templateValuesOf(name: string): Record<string, string> {
    return Object.hasOwn(templateValues.value, name) ? (templateValues.value[name] ?? {}) : {};
  }

  function selectTemplateAt(index: number | null, name: string): void {
    selectedTemplate.value = name;
    selectedTemplateIndex.value = index;
    // A new object with its own key: `templateValues.value[name] = …` would set the prototype for `__proto__`.
    if (!Object.hasOwn(templateValues.value, name))
      templateValues.value = { ...templateValues.value, [name]: {} };
    selectedUri.value = null;
  }

  async function setSubscribed(uri: string, on: boolean): Promise<void> {
    const id = serverId.value;
    if (!id) return;
    subscriptionError.value = null;
    try {
      await requireClient().subscribe(id, uri, on);
      if (serverId.value !== id) return;
      if (on) subscribed.value.add(uri);
      else subscribed.value.delete(uri);
    } catch (error) {
      subscriptionError.value = describeError(error);
    }
  }

  const subscribe = (uri: string): Promise<void> => setSubscribed(uri, true);
  const unsubscribe = (uri: string): Promise<void> => setSubscribed(uri, false);

  return {
    serverId,
    resources,
    templates,
    loading,
    listError,
    listProblem,
    templatesProblem,
    unsupported,
    query,
    filtered,
    filteredTemplates,
    selectedUri,
    selectedResourceIndex,
    selectedResource,
    selectedTemplate,
    selectedTemplateIndex,
    templatePosition,
    template,
    repeatedUris,
    repeatedTemplates,
    templateValues,
    templateValuesOf,
    uriInput,
    reads,
    current,
    subscribed,
    updates,
    subscriptionError,
    load,
    read,
    cancelRead,
    selectResource,
    selectResourceItem,
    selectTemplate,
    selectTemplateItem,
    open,
    subscribe,
    unsubscribe,
  };
});
