/** What the popup reads from and writes to the key-value store: its last choice and the saved requests. */
import { parseSavedRequestsExport, sortSavedRequests, type SavedRequest } from '../../shared/saved-requests';
import type { ServerRecord } from '../../shared/servers';
import type { KeyValueStore } from '../app/key-value-store';

export const LAST_CHOICE_KEY = 'popup:last';

/**
 * The saved requests' storage key, as `savedRequestsKey()` in stores/saved-requests.ts writes it: that
 * module defines a Pinia store the popup does not need (tests/extension/popup.test.ts checks they agree).
 */
function savedRequestsKey(serverId: string): string {
  return `savedRequests:${serverId}`;
}

/** The server and tool chosen last in the popup, restored when it opens again. */
export interface LastChoice {
  serverId: string;
  toolName?: string;
}

export async function readLastChoice(store: KeyValueStore): Promise<LastChoice | null> {
  const stored = await store.get<unknown>(LAST_CHOICE_KEY);
  if (typeof stored !== 'object' || stored === null) return null;
  const { serverId, toolName } = stored as Record<string, unknown>;
  if (typeof serverId !== 'string' || !serverId) return null;
  return typeof toolName === 'string' && toolName ? { serverId, toolName } : { serverId };
}

export async function writeLastChoice(store: KeyValueStore, choice: LastChoice): Promise<void> {
  await store.set(LAST_CHOICE_KEY, choice.toolName ? choice : { serverId: choice.serverId });
}

/** The last server when the daemon still has it, else the first connected one, else the first. */
export function pickServer(servers: readonly ServerRecord[], last: LastChoice | null): string | null {
  const remembered = last && servers.find((s) => s.id === last.serverId);
  return (remembered ?? servers.find((s) => s.status === 'connected') ?? servers[0])?.id ?? null;
}

/** The wanted tool when the server offers it, else the first tool. */
export function pickTool(tools: readonly { name: string }[], wanted: string | undefined): string | null {
  return (tools.find((t) => t.name === wanted) ?? tools[0])?.name ?? null;
}

/**
 * The server's saved requests as the panel stores them, favourites first; broken entries are left out.
 * The popup only reads them: an entry stored without an id gets one from its position for the select.
 */
export async function readSavedRequests(store: KeyValueStore, serverId: string): Promise<SavedRequest[]> {
  const stored = await store.get<unknown>(savedRequestsKey(serverId));
  if (stored === undefined) return [];
  const { requests } = parseSavedRequestsExport(stored);
  return sortSavedRequests(requests.map((r, index) => (r.id ? r : { ...r, id: `#${index}` })));
}
