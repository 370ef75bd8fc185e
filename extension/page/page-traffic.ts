/**
 * The inspected page's own MCP traffic, decoded from the HAR entries DevTools hands the panel
 * (`devtools.network.onRequestFinished`, the body from `entry.getContent()`).
 *
 * Recognised: Streamable HTTP POSTs of a JSON-RPC message or batch, answered with JSON (one message or a
 * batch), an event stream (its `data:` events) or 202 Accepted; GET streams of either transport, the
 * older HTTP+SSE one starting with its `endpoint` event. The `Mcp-Session-Id`, `Mcp-Protocol-Version`
 * and `Mcp-Method` headers are read. Everything comes from the page and may be hostile: nothing here
 * throws, bodies beyond `MAX_BODY_CHARS` are not decoded (the entry says so), and whatever could not be
 * decoded is named in the entry's `problems`.
 *
 * `PageTrafficModel` turns decoded entries into the Logs view's rows (its `LogModel` pairs requests and
 * responses by JSON-RPC id), one pairing channel per endpoint and session.
 */
import type { RpcLogEntry, RpcMessageEntry, RpcStderrEntry } from '../../shared/logs.ts';
import { LogModel, type LogRow } from '../logs/log-pairing.ts';

/** The parts of a HAR entry (as `onRequestFinished` gives it) the decoder reads. */
export interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntryLike {
  startedDateTime?: string;
  /** Total time of the exchange, in milliseconds. */
  time?: number;
  request: {
    method: string;
    url: string;
    headers?: HarHeader[];
    postData?: { mimeType?: string; text?: string };
  };
  response: {
    status: number;
    statusText?: string;
    headers?: HarHeader[];
    content?: { mimeType?: string; size?: number };
  };
}

/** What `entry.getContent()` gave: the body's text, base64 when `encoding` says so. */
export interface HarContent {
  text?: string | null;
  encoding?: string | null;
}

/** Bodies longer than this (in characters) are not decoded; an event stream's first part still is. */
export const MAX_BODY_CHARS = 1_000_000;
/** How much of a body that is not JSON-RPC is kept to show. */
const PREVIEW_CHARS = 500;

export type PageTransport = 'streamable-http' | 'sse';
export type PageAnswer = 'json' | 'event-stream' | 'accepted' | 'empty' | 'other';

export interface PageMessage {
  direction: 'send' | 'receive';
  message: Record<string, unknown>;
}

export interface DecodedEntry {
  url: string;
  httpMethod: string;
  status: number;
  statusText: string;
  /** ISO times the request started and its answer ended. */
  startedAt: string;
  endedAt: string;
  transport: PageTransport;
  answer: PageAnswer;
  /** Where its messages pair: the endpoint and its session (legacy SSE: the POST address). */
  channel: string;
  /** The endpoint to add as a server: the POST address, or a legacy stream's GET address. */
  endpoint: string;
  sessionId?: string;
  protocolVersion?: string;
  mcpMethod?: string;
  /** A legacy SSE stream's `endpoint` event, resolved: where its client POSTs. */
  postEndpoint?: string;
  /** Sent messages first, then received ones in the order they came. */
  messages: PageMessage[];
  /** What could not be decoded, in words. */
  problems: string[];
  /** The request's headers as sent (values may be secrets: never logged or exported). */
  requestHeaders: HarHeader[];
}

const MCP_METHOD_PREFIXES = [
  'notifications/',
  'tools/',
  'resources/',
  'prompts/',
  'completion/',
  'logging/',
  'sampling/',
  'roots/',
  'elicitation/',
  'tasks/',
];

export function isMcpMethod(method: unknown): boolean {
  if (typeof method !== 'string') return false;
  return (
    method === 'initialize' || method === 'ping' || MCP_METHOD_PREFIXES.some((p) => method.startsWith(p))
  );
}

function header(headers: HarHeader[] | undefined, name: string): string | undefined {
  if (!Array.isArray(headers)) return undefined;
  const lower = name.toLowerCase();
  for (const h of headers) {
    if (h && typeof h.name === 'string' && h.name.toLowerCase() === lower && typeof h.value === 'string')
      return h.value;
  }
  return undefined;
}

function mimeOf(value: string | undefined): string {
  return (value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function sizeText(chars: number): string {
  return chars >= 1_000_000 ? `${(chars / 1_000_000).toFixed(1)} MB` : `${Math.ceil(chars / 1000)} kB`;
}

function preview(text: string): string {
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isJsonRpc(value: unknown): value is Record<string, unknown> {
  return isObject(value) && value.jsonrpc === '2.0';
}

/** The body's text; base64 decoded as UTF-8. Null when there is none or it cannot be read. */
export function contentText(content: HarContent | undefined | null): string | null {
  const text = content?.text;
  if (typeof text !== 'string') return null;
  if (content?.encoding !== 'base64') return text;
  // Decoding more than the cap would only be thrown away.
  const base64 =
    text.length > (MAX_BODY_CHARS * 4) / 3 + 4
      ? text.slice(0, Math.floor((MAX_BODY_CHARS * 4) / 3 / 4) * 4)
      : text;
  try {
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder('utf-8').decode(bytes);
  } catch {
    return null;
  }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * The events of a `text/event-stream` body (the WHATWG rules: `data:` lines joined by newlines, one
 * leading space dropped, comments and unknown fields ignored, an event ends at a blank line). The last
 * event is dropped unless a blank line ends it, as a browser would, except when `complete` is set.
 */
export function parseSse(text: string, complete = true): SseEvent[] {
  const events: SseEvent[] = [];
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  let hasData = false;
  const dispatch = (): void => {
    if (hasData)
      events.push({ event: event || 'message', data: data.join('\n'), ...(id !== undefined && { id }) });
    data = [];
    event = '';
    hasData = false;
  };
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  // A body ending in a line break leaves an empty last item, not a line.
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      data.push(value);
      hasData = true;
    } else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  }
  if (complete) dispatch();
  return events;
}

/** The JSON-RPC messages of a body (one or a batch), with what was not one. */
function messagesOf(value: unknown, where: string, problems: string[]): Record<string, unknown>[] {
  const items = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && value.length === 0) problems.push(`${where}: an empty batch`);
  const messages: Record<string, unknown>[] = [];
  for (const item of items) {
    if (isObject(item)) {
      messages.push(item);
      if (item.jsonrpc !== '2.0') problems.push(`${where}: a message without "jsonrpc": "2.0"`);
      const { id } = item;
      if (
        'id' in item &&
        id !== null &&
        typeof id !== 'string' &&
        !(typeof id === 'number' && Number.isFinite(id))
      )
        problems.push(
          `${where}: the id ${preview(JSON.stringify(id) ?? String(id))} is not a string or number`,
        );
    } else {
      problems.push(`${where}: not a JSON-RPC message: ${preview(JSON.stringify(item) ?? String(item))}`);
    }
  }
  return messages;
}

function statusLine(status: number, statusText: string): string {
  return `HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
}

/** Endpoint without query or fragment, for Streamable HTTP (the session tells connections apart). */
function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

function resolve(reference: string, base: string): string | undefined {
  try {
    return new URL(reference, base).href;
  } catch {
    return undefined;
  }
}

function endTime(started: string, time: number | undefined): string {
  const start = Date.parse(started);
  if (Number.isNaN(start)) return started;
  return new Date(
    start + (typeof time === 'number' && Number.isFinite(time) && time > 0 ? time : 0),
  ).toISOString();
}

/**
 * One HAR entry decoded, or null when it is not MCP traffic. `content` is what `getContent()` gave for
 * the response body.
 */
export function decodeHarEntry(entry: HarEntryLike, content?: HarContent | null): DecodedEntry | null {
  try {
    return decode(entry, content);
  } catch {
    // Nothing the page sends should get here; if it does, the entry is left out rather than the panel broken.
    return null;
  }
}

function decode(entry: HarEntryLike, content?: HarContent | null): DecodedEntry | null {
  const request = entry?.request;
  const response = entry?.response;
  if (!request || !response || typeof request.url !== 'string') return null;
  const httpMethod = String(request.method ?? '').toUpperCase();
  const url = request.url;
  if (!/^https?:/i.test(url)) return null;
  const status = typeof response.status === 'number' ? response.status : 0;
  const statusText = typeof response.statusText === 'string' ? response.statusText : '';
  const sessionId = header(request.headers, 'mcp-session-id') ?? header(response.headers, 'mcp-session-id');
  const protocolVersion =
    header(request.headers, 'mcp-protocol-version') ?? header(response.headers, 'mcp-protocol-version');
  const mcpMethod = header(request.headers, 'mcp-method');
  const hasMcpHeader = sessionId !== undefined || protocolVersion !== undefined || mcpMethod !== undefined;
  const answerMime = mimeOf(response.content?.mimeType ?? header(response.headers, 'content-type'));
  const problems: string[] = [];
  const messages: PageMessage[] = [];
  const startedAt =
    typeof entry.startedDateTime === 'string' && !Number.isNaN(Date.parse(entry.startedDateTime))
      ? new Date(entry.startedDateTime).toISOString()
      : new Date(0).toISOString();

  // The request body: POST only.
  if (httpMethod === 'POST') {
    const body = request.postData?.text;
    if (typeof body === 'string' && body.length > MAX_BODY_CHARS) {
      if (!hasMcpHeader && !/"jsonrpc"\s*:\s*"2\.0"/.test(body.slice(0, 4096))) return null;
      problems.push(
        `request body of ${sizeText(body.length)} is over the ${sizeText(MAX_BODY_CHARS)} decoded: not shown`,
      );
    } else if (typeof body === 'string' && body.trim() !== '') {
      const parsed = parseJson(body);
      if (parsed.ok) {
        const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
        const jsonRpc = items.length > 0 && items.every(isJsonRpc);
        const sentMcp =
          jsonRpc && items.some((item) => isMcpMethod((item as Record<string, unknown>).method));
        const sentResponsesOnly = jsonRpc && items.every((item) => !('method' in (item as object)));
        if (!sentMcp && !hasMcpHeader && !(sentResponsesOnly && status === 202)) return null;
        for (const message of messagesOf(parsed.value, 'request', problems))
          messages.push({ direction: 'send', message });
      } else {
        if (!hasMcpHeader) return null;
        problems.push(`request body is not JSON (${parsed.error}): ${preview(body)}`);
      }
    } else if (!hasMcpHeader) {
      return null;
    } else {
      problems.push('request without a body');
    }
  } else if (httpMethod === 'GET') {
    if (answerMime !== 'text/event-stream' && !hasMcpHeader) return null;
  } else if (httpMethod === 'DELETE') {
    // Ending a Streamable HTTP session.
    if (sessionId === undefined) return null;
  } else {
    return null;
  }

  const text = contentText(content);
  const rawLength = typeof content?.text === 'string' ? content.text.length : 0;
  let answer: PageAnswer = 'other';
  let postEndpoint: string | undefined;
  // A GET stream without a session is the older HTTP+SSE transport's: Streamable HTTP opens its GET
  // stream only within a session.
  const getStream = httpMethod === 'GET' && answerMime === 'text/event-stream';
  let legacy = false;
  if (status === 202) answer = 'accepted';
  if (answerMime === 'text/event-stream') {
    answer = 'event-stream';
    if (text === null || text === '') {
      // Without its body, only its address tells an MCP stream from another: /sse by convention.
      if (getStream && !hasMcpHeader && !/\/sse\/?$/.test(pathOf(url))) return null;
      if (getStream && sessionId === undefined) legacy = true;
      if (typeof content?.text === 'string' && content.text !== '')
        problems.push('the event stream could not be read');
      else
        problems.push(
          'DevTools gave no body for this event stream (it keeps none for a stream the page cancelled): its messages cannot be shown',
        );
    } else {
      const cut = text.length > MAX_BODY_CHARS;
      if (cut)
        problems.push(
          `event stream of ${sizeText(text.length)}: only the events in its first ${sizeText(MAX_BODY_CHARS)} decoded`,
        );
      const events = parseSse(cut ? text.slice(0, MAX_BODY_CHARS) : text, !cut);
      let index = 0;
      for (const event of events) {
        index++;
        if (event.event === 'endpoint') {
          legacy = true;
          postEndpoint = resolve(event.data.trim(), url);
          if (!postEndpoint)
            problems.push(`endpoint event with an address that cannot be read: ${preview(event.data)}`);
          continue;
        }
        if (event.event !== 'message') continue;
        if (event.data.trim() === '') continue;
        const parsed = parseJson(event.data);
        if (!parsed.ok) {
          problems.push(`event ${index} is not JSON (${parsed.error}): ${preview(event.data)}`);
          continue;
        }
        for (const message of messagesOf(parsed.value, `event ${index}`, problems))
          messages.push({ direction: 'receive', message });
      }
      const jsonRpc = messages.some((m) => isJsonRpc(m.message));
      if (getStream && !legacy && !hasMcpHeader && !jsonRpc) return null;
      if (getStream && sessionId === undefined) legacy = true;
    }
  } else if (answerMime === 'application/json' || answerMime.endsWith('+json')) {
    answer = 'json';
    if (text === null) {
      if (status !== 202) problems.push('the answer was not recorded (DevTools gave no body)');
    } else if (text.length > MAX_BODY_CHARS) {
      problems.push(
        `answer of ${sizeText(text.length)} is over the ${sizeText(MAX_BODY_CHARS)} decoded: not shown`,
      );
    } else if (text.trim() !== '') {
      const parsed = parseJson(text);
      if (!parsed.ok) problems.push(`the answer is not JSON (${parsed.error}): ${preview(text)}`);
      else if (!Array.isArray(parsed.value) && !isJsonRpc(parsed.value))
        problems.push(`${statusLine(status, statusText)}, not a JSON-RPC answer: ${preview(text)}`);
      else
        for (const message of messagesOf(parsed.value, 'answer', problems))
          messages.push({ direction: 'receive', message });
    }
  } else if (status !== 202 && (text ?? '').trim() === '' && rawLength === 0) {
    answer = status >= 200 && status < 300 ? 'empty' : 'other';
  } else if (status !== 202 && text !== null && text.trim() !== '') {
    problems.push(`${statusLine(status, statusText)} answered ${answerMime || 'a body'}: ${preview(text)}`);
  }
  if (status === 0) problems.push('no answer (the request failed or was cancelled)');

  // The older HTTP+SSE transport: a GET stream that named its POST address, whose messages pair there;
  // its POSTs carry the session in their address.
  const transport: PageTransport = legacy ? 'sse' : 'streamable-http';
  const channel = legacy
    ? (postEndpoint ?? url)
    : sessionId !== undefined
      ? `${pathOf(url)}\n${sessionId}`
      : url;
  return {
    url,
    httpMethod,
    status,
    statusText,
    startedAt,
    endedAt: endTime(startedAt, entry.time),
    transport,
    answer,
    channel,
    endpoint: url,
    ...(sessionId !== undefined && { sessionId }),
    ...(protocolVersion !== undefined && { protocolVersion }),
    ...(mcpMethod !== undefined && { mcpMethod }),
    ...(postEndpoint !== undefined && { postEndpoint }),
    messages,
    problems,
    requestHeaders: Array.isArray(request.headers)
      ? request.headers.filter((h) => h && typeof h.name === 'string')
      : [],
  };
}

/** The HTTP side of a row's messages, kept on each log entry the model makes. */
export interface PageContext {
  /** The decoded HTTP exchange the message travelled in; none for a WebMCP call. */
  http?: DecodedEntry;
  /** A stand-in answer made for a request whose HTTP answer carried no JSON-RPC one. */
  synthetic?: true;
  /** A call of one of the page's WebMCP tools, made from the panel: no HTTP, the page ran it. */
  webmcp?: { origin?: string };
}

export type PageLogEntry = (RpcMessageEntry | RpcStderrEntry) & { page: PageContext };

export function pageContext(row: LogRow): PageContext | undefined {
  return (row.entry as Partial<PageLogEntry>).page;
}

/** Decoded entries as Logs view rows: requests paired with responses per endpoint and session. */
export class PageTrafficModel {
  readonly log: LogModel;
  /** Channel → the label its rows show (host and path, numbered when one endpoint has several sessions). */
  private readonly labels = new Map<string, string>();
  private readonly labelCounts = new Map<string, number>();
  /** Legacy SSE channels (POST addresses) → the stream that named them. */
  private readonly streams = new Map<string, DecodedEntry>();
  /** The last legacy SSE stream of each origin, also one whose body DevTools did not keep. */
  private readonly originStreams = new Map<string, DecodedEntry>();
  private seq = 0;

  constructor(maxRows = 5000) {
    this.log = new LogModel(maxRows);
  }

  /** The label a channel's rows show in the endpoint column. */
  label(decoded: DecodedEntry): string {
    const known = this.labels.get(decoded.channel);
    if (known) return known;
    let base: string;
    try {
      const parsed = new URL(decoded.url);
      base = `${parsed.host}${parsed.pathname}`;
    } catch {
      base = decoded.url;
    }
    const count = (this.labelCounts.get(base) ?? 0) + 1;
    this.labelCounts.set(base, count);
    const label = count === 1 ? base : `${base} (${count})`;
    this.labels.set(decoded.channel, label);
    return label;
  }

  /** The legacy SSE stream whose `endpoint` event named this POST address, once its stream ended. */
  streamFor(channel: string): DecodedEntry | undefined {
    return this.streams.get(channel);
  }

  /** The last legacy SSE stream the page opened on this address's origin. */
  streamOfOrigin(url: string): DecodedEntry | undefined {
    try {
      return this.originStreams.get(new URL(url).origin);
    } catch {
      return undefined;
    }
  }

  add(decoded: DecodedEntry): void {
    if (decoded.transport === 'sse') {
      if (decoded.postEndpoint) this.streams.set(decoded.postEndpoint, decoded);
      try {
        this.originStreams.set(new URL(decoded.url).origin, decoded);
      } catch {
        // An address URL cannot read is no stream to add.
      }
    }
    // Streamable HTTP's first POST (initialize) has no session yet; its answer names it. Requests sent
    // before the session was known pair in that session's channel from then on.
    const serverId = this.label(decoded);
    const page: PageContext = { http: decoded };
    const entry = (direction: 'send' | 'receive', message: Record<string, unknown>): PageLogEntry => ({
      type: 'rpc',
      seq: ++this.seq,
      serverId,
      direction,
      timestamp: direction === 'send' ? decoded.startedAt : decoded.endedAt,
      message,
      page,
    });
    const answered = new Set<string>();
    for (const { direction, message } of decoded.messages) {
      if (direction === 'receive' && 'id' in message && !('method' in message))
        answered.add(JSON.stringify(message.id));
    }
    for (const { direction, message } of decoded.messages) this.log.add(entry(direction, message));
    // A request whose HTTP answer failed without a JSON-RPC one: a stand-in answer names the failure.
    if (decoded.status === 0 || decoded.status >= 400) {
      for (const { direction, message } of decoded.messages) {
        if (direction !== 'send' || typeof message.method !== 'string') continue;
        const { id } = message;
        if ((typeof id !== 'string' && typeof id !== 'number') || answered.has(JSON.stringify(id))) continue;
        const failure =
          decoded.status === 0 ? 'no HTTP answer' : statusLine(decoded.status, decoded.statusText);
        const stand: PageLogEntry = {
          ...entry('receive', {
            id,
            error: failure,
            note: 'no JSON-RPC answer: made by the panel from the HTTP answer',
          }),
          page: { http: decoded, synthetic: true },
        };
        this.log.add(stand);
      }
    }
    for (const problem of decoded.problems) {
      const line: PageLogEntry = {
        type: 'rpc',
        seq: ++this.seq,
        serverId,
        direction: 'stderr',
        timestamp: decoded.endedAt,
        message: `${decoded.httpMethod} ${decoded.url}: ${problem}`,
        page,
      };
      this.log.add(line);
    }
  }

  /**
   * A message of a WebMCP tool call the panel made in the page (`tools/call` as JSON-RPC, the panel's
   * own id), listed with the page's traffic and marked as WebMCP.
   */
  addWebMcp(direction: 'send' | 'receive', message: Record<string, unknown>, origin?: string): void {
    let host = 'page';
    try {
      if (origin) host = new URL(origin).host || origin;
    } catch {
      host = origin ?? 'page';
    }
    const entry: PageLogEntry = {
      type: 'rpc',
      seq: ++this.seq,
      serverId: `WebMCP · ${host}`,
      direction,
      timestamp: new Date().toISOString(),
      message,
      page: { webmcp: { ...(origin !== undefined && { origin }) } },
    };
    this.log.add(entry);
  }

  clear(): void {
    this.log.clear();
  }

  get rows(): LogRow[] {
    return this.log.rows;
  }
}

/** The entries a row stands for, as exported: no headers (their values may be secrets). */
export function exportedEntries(row: LogRow): Array<Record<string, unknown>> {
  const entries: RpcLogEntry[] = row.response ? [row.entry, row.response] : [row.entry];
  return entries.map((entry) => {
    const page = (entry as Partial<PageLogEntry>).page;
    const rest: Record<string, unknown> = { ...entry };
    delete rest.page;
    return {
      ...rest,
      ...(page?.webmcp && { webmcp: true }),
      ...(page?.http && {
        http: {
          method: page.http.httpMethod,
          url: page.http.url,
          status: page.http.status,
          answer: page.http.answer,
          transport: page.http.transport,
          ...(page.http.protocolVersion !== undefined && { protocolVersion: page.http.protocolVersion }),
        },
        ...(page.synthetic && { synthetic: true }),
      }),
    };
  });
}
