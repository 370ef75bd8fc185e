import { defineStore } from 'pinia';
import { computed, markRaw, reactive, ref, shallowRef } from 'vue';
import type { RemoteServerConfig } from '../../shared/servers';
import type { LogRow } from '../logs/log-pairing';
import { requireClient, useServersStore } from '../servers/servers-store';
import { downloadJsonlFile, fileTime } from '../ui/download';
import {
  isReplayable,
  type ReplayAnswer,
  type ReplayMethod,
  replayRequest,
  serverForEndpoint,
} from './page-replay';
import {
  decodeHarEntry,
  exportedEntries,
  type HarContent,
  type HarEntryLike,
  type HarHeader,
  pageContext,
  PageTrafficModel,
} from './page-traffic';

/** A finished request as `devtools.network.onRequestFinished` hands it: a HAR entry with its body reader. */
export interface FinishedRequest extends HarEntryLike {
  getContent(callback?: (content: string, encoding: string) => void): unknown;
}

/** The `devtools.network.onRequestFinished` event. */
export interface RequestFinishedEvent {
  addListener(listener: (request: FinishedRequest) => void): void;
  removeListener(listener: (request: FinishedRequest) => void): void;
}

interface DevtoolsGlobal {
  devtools?: { network?: { onRequestFinished?: RequestFinishedEvent } };
}

/**
 * The inspected page's network events, when the panel runs inside DevTools. The web page and the panel
 * opened as a tab have no `devtools` namespace. Read from the global, not the polyfill, which the web
 * page cannot load.
 */
export function devtoolsNetwork(): RequestFinishedEvent | undefined {
  const scope = globalThis as { chrome?: DevtoolsGlobal; browser?: DevtoolsGlobal };
  return (
    scope.chrome?.devtools?.network?.onRequestFinished ?? scope.browser?.devtools?.network?.onRequestFinished
  );
}

/** Rows kept; the oldest go first. */
export const MAX_PAGE_ROWS = 2000;
/** A body DevTools never hands over does not hold the rest back. */
const CONTENT_TIMEOUT_MS = 10_000;

/** The body of a finished request: Chromium answers by callback, Firefox with a promise. */
function readContent(request: FinishedRequest): Promise<HarContent> {
  return new Promise((resolve) => {
    let done = false;
    const timer = setTimeout(() => finish(null, null), CONTENT_TIMEOUT_MS);
    function finish(text: unknown, encoding: unknown): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({
        text: typeof text === 'string' ? text : null,
        encoding: typeof encoding === 'string' ? encoding : null,
      });
    }
    try {
      const result = request.getContent((content, encoding) => finish(content, encoding));
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(
          (value) => (Array.isArray(value) ? finish(value[0], value[1]) : finish(value, null)),
          () => finish(null, null),
        );
      }
    } catch {
      finish(null, null);
    }
  });
}

/** Request headers a server added from the page does not carry: the browser's own, and per-connection ones. */
const DROPPED_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'cookie',
  'dnt',
  'expect',
  'host',
  'keep-alive',
  'last-event-id',
  'mcp-method',
  'mcp-protocol-version',
  'mcp-session-id',
  'origin',
  'pragma',
  'priority',
  'referer',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'upgrade-insecure-requests',
  'user-agent',
]);

/** The headers worth carrying to the daemon (authorization, API keys, the page's own). */
export function carriedHeaders(headers: readonly HarHeader[]): Record<string, string> {
  const carried: Record<string, string> = {};
  for (const { name, value } of headers) {
    const lower = name.toLowerCase();
    if (
      DROPPED_HEADERS.has(lower) ||
      lower.startsWith(':') ||
      lower.startsWith('sec-') ||
      lower.startsWith('proxy-')
    )
      continue;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || typeof value !== 'string') continue;
    carried[name] = value;
  }
  return carried;
}

/** What "Add as server" would register for a row, or why it cannot. */
export type ServerCandidate =
  { ok: true; name: string; config: RemoteServerConfig } | { ok: false; reason: string };

/** Whether a row can be replayed through the daemon now, to which server, or why not. */
export type ReplayTarget =
  { ok: true; serverId: string; method: ReplayMethod } | { ok: false; reason: string; needsServer?: true };

/** A replay of a row: running, or the daemon's answer. */
export type ReplayState = { running: true } | ({ running: false; serverId: string } & ReplayAnswer);

/** A registry id from the endpoint's host and path, unused so far. */
export function serverIdFor(url: string, taken: ReadonlySet<string>): string {
  let base: string;
  try {
    const parsed = new URL(url);
    base = `${parsed.hostname}${parsed.pathname}`;
  } catch {
    base = 'page-server';
  }
  base =
    base
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .replace(/-+$/, '')
      .slice(0, 56) || 'page-server';
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * The inspected page's own MCP traffic, decoded from DevTools' network events (only inside DevTools:
 * `available` is false elsewhere). Rows are the Logs view's (`LogModel`), filtered by a text.
 */
export const usePageTrafficStore = defineStore('page-traffic', () => {
  const model = markRaw(new PageTrafficModel(MAX_PAGE_ROWS));
  const revision = shallowRef(0);
  const filter = ref('');
  /** Replays by row key: running, or the daemon's answer. */
  const replays = reactive(new Map<number, ReplayState>());

  const event = devtoolsNetwork();
  /** Entries are added in the order they finished, whatever order their bodies are read in. */
  let queue: Promise<void> = Promise.resolve();

  function receive(request: FinishedRequest): void {
    const content = readContent(request);
    queue = queue.then(async () => {
      try {
        const decoded = decodeHarEntry(request, await content);
        if (!decoded) return;
        model.add(decoded);
        revision.value++;
      } catch {
        // One entry the model could not take must not stop the ones after it.
      }
    });
  }
  /** Whether DevTools hands this panel the page's network events. */
  let available = false;
  try {
    event?.addListener(receive);
    available = event !== undefined;
  } catch {
    // A namespace without a working event: as outside DevTools.
  }

  /** Waits until every entry received so far is in the rows. */
  function settled(): Promise<void> {
    return queue;
  }

  const rowCount = computed(() => {
    void revision.value;
    return model.log.rowCount;
  });

  const visibleRows = computed<LogRow[]>(() => {
    void revision.value;
    const needle = filter.value.trim().toLowerCase();
    const rows = model.rows;
    if (!needle) return rows;
    return rows.filter((row) => {
      const http = pageContext(row)?.http;
      const texts = [row.method, row.serverId, http?.url, row.id === undefined ? undefined : String(row.id)];
      if (row.kind === 'stderr') texts.push(String(row.entry.message));
      return texts.some((text) => text?.toLowerCase().includes(needle));
    });
  });

  function clear(): void {
    model.clear();
    replays.clear();
    revision.value++;
  }

  /** Lists a message of a WebMCP call made from the panel, marked as WebMCP. */
  function addWebMcp(direction: 'send' | 'receive', message: Record<string, unknown>, origin?: string): void {
    model.addWebMcp(direction, message, origin);
    revision.value++;
  }

  /** The shown rows' messages, one JSON object per line, each with its HTTP address and status; no headers. */
  function exportJsonl(): string {
    const lines = visibleRows.value.flatMap(exportedEntries).map((entry) => JSON.stringify(entry));
    return lines.length ? `${lines.join('\n')}\n` : '';
  }

  function downloadJsonl(): void {
    downloadJsonlFile(`mcp-page-traffic-${fileTime()}.jsonl`, exportJsonl());
  }

  /** What "Add as server" registers for the row's endpoint. */
  function candidate(row: LogRow): ServerCandidate {
    const http = pageContext(row)?.http;
    if (!http) return { ok: false, reason: 'This row has no HTTP exchange.' };
    let source = http;
    if (http.transport !== 'sse') {
      // A POST of the older HTTP+SSE transport: its stream is the server's address.
      const looksLegacy = http.answer === 'accepted' && http.sessionId === undefined && /\?./.test(http.url);
      const stream =
        model.streamFor(http.channel) ?? (looksLegacy ? model.streamOfOrigin(http.url) : undefined);
      if (stream) source = stream;
      else if (looksLegacy)
        return {
          ok: false,
          reason:
            'This looks like the older HTTP+SSE transport: its event stream shows here once it ends, and the server can be added from it.',
        };
    }
    const headers = carriedHeaders(source.requestHeaders);
    const config: RemoteServerConfig = {
      transport: source.transport === 'sse' ? 'sse' : 'http',
      url: source.url,
      ...(Object.keys(headers).length > 0 && { headers }),
    };
    return { ok: true, name: row.serverId, config };
  }

  /** Registers the row's endpoint with the daemon (header values travel to it, nowhere else). */
  async function addAsServer(row: LogRow): Promise<string> {
    const found = candidate(row);
    if (!found.ok) throw new Error(found.reason);
    const servers = useServersStore();
    const id = serverIdFor(found.config.url, new Set(servers.servers.map((s) => s.id)));
    await servers.save(id, { name: found.name, config: found.config });
    return id;
  }

  /** Where "Replay through daemon" would send the row's request. */
  function replayTarget(row: LogRow): ReplayTarget {
    if (row.kind !== 'request' || !pageContext(row)?.http) return { ok: false, reason: '' };
    if (!isReplayable(row.method))
      return {
        ok: false,
        reason: `${row.method ?? 'This message'} is not replayed (only calls, reads, gets and lists).`,
      };
    const found = candidate(row);
    if (!found.ok) return { ok: false, reason: found.reason };
    const server = serverForEndpoint(useServersStore().servers, found.config.url);
    if (!server)
      return {
        ok: false,
        needsServer: true,
        reason: `No server in the daemon has the address ${found.config.url}: add it as a server first.`,
      };
    return { ok: true, serverId: server.id, method: row.method };
  }

  /** Sends the row's request through the daemon to the endpoint's server; the answer is in `replays`. */
  async function replay(row: LogRow): Promise<ReplayState> {
    const target = replayTarget(row);
    if (!target.ok) throw new Error(target.reason);
    replays.set(row.key, { running: true });
    const message = row.entry.message as Record<string, unknown>;
    const answer = await replayRequest(requireClient(), target.serverId, target.method, message.params);
    const state: ReplayState = { running: false, serverId: target.serverId, ...answer };
    replays.set(row.key, state);
    return state;
  }

  return {
    available,
    model,
    revision,
    filter,
    rowCount,
    visibleRows,
    receive,
    settled,
    clear,
    addWebMcp,
    exportJsonl,
    downloadJsonl,
    candidate,
    addAsServer,
    replayTarget,
    replays,
    replay,
  };
});
