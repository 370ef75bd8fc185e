import { reactive } from 'vue';
import type { CompleteRequest } from '../../shared/api';
import { requireClient, useServersStore } from '../servers/servers-store';

/** Wait after a keystroke before asking the server, so typing does not send a request per key. */
const DEBOUNCE_MS = 150;
/** At most this many suggestions are offered (MCP servers send at most 100). */
const MAX_SUGGESTIONS = 100;

/**
 * Suggestions from the server's `completion/complete` while a prompt argument or a resource template
 * variable is typed, for a `<datalist>` beside each field. Asked only of servers that declare the
 * `completions` capability; a newer question cancels the one before it; a failure offers nothing.
 */
export function useCompletions(serverId: () => string, ref: () => CompleteRequest['ref'] | null) {
  const suggestions = reactive<Record<string, string[]>>({});
  let timer: ReturnType<typeof setTimeout> | undefined;
  let controller: AbortController | undefined;

  // The store is asked when a field is typed in, not when the form is made.
  const supported = (): boolean =>
    useServersStore().servers.find((s) => s.id === serverId())?.capabilities?.completions !== undefined;

  /** Asks for suggestions for `name` at `value`, with the other fields' values as context. */
  function suggest(name: string, value: string, values: Record<string, string | undefined>): void {
    clearTimeout(timer);
    controller?.abort();
    const target = ref();
    if (!target || !supported()) return;
    const others = Object.fromEntries(
      Object.entries(values).filter(
        (entry): entry is [string, string] =>
          entry[0] !== name && typeof entry[1] === 'string' && entry[1] !== '',
      ),
    );
    timer = setTimeout(async () => {
      const current = new AbortController();
      controller = current;
      try {
        const answer = await requireClient().complete(
          {
            serverId: serverId(),
            ref: target,
            argument: { name, value },
            ...(Object.keys(others).length && { context: { arguments: others } }),
          },
          current.signal,
        );
        const values = answer?.completion?.values;
        suggestions[name] = Array.isArray(values)
          ? values.filter((v): v is string => typeof v === 'string').slice(0, MAX_SUGGESTIONS)
          : [];
      } catch {
        if (!current.signal.aborted) suggestions[name] = [];
      }
    }, DEBOUNCE_MS);
  }

  function clear(): void {
    clearTimeout(timer);
    controller?.abort();
    for (const key of Object.keys(suggestions)) delete suggestions[key];
  }

  return { suggestions, suggest, clear };
}
