/**
 * The host side of the Apps-SDK `window.openai` bridge, without DOM or Vue: which tools have a widget,
 * what the panel stores for one, which messages from a widget frame it accepts, and what it answers.
 * Widget code is untrusted: every message is checked for its shape before anything acts on it, and
 * nothing the host sends carries the daemon's token or address.
 */
import type { JsonObject } from '../../../shared/api';
import {
  type CallToolResultMessage,
  DISPLAY_MODES,
  type DisplayMode,
  type HostToWidgetMessage,
  type InitialWidgetGlobals,
  type WidgetGlobals,
  type WidgetStoreRequest,
  type WidgetStoreResponse,
  type WidgetTheme,
  type WidgetToHostMessage,
} from '../../../shared/widgets';
import type { LinkAnswer } from '../link-consent';

/** The two widget conventions a frame renders; the frame itself treats both alike. */
export type WidgetKind = 'apps-sdk' | 'mcp-app';

/**
 * The one message the extension's sandbox page accepts, from the panel that framed it: the page to
 * become. It carries the widget's HTML and nothing else.
 */
export const RENDER_MESSAGE_TYPE = 'inspector:render';
export interface RenderMessage {
  type: typeof RENDER_MESSAGE_TYPE;
  html: string;
}

/**
 * The HTML of a render message the sandbox page may act on, else null: it must come from the window that
 * framed the page (`parent`, which a top-level page does not have) and have the render shape.
 */
export function renderHtmlOf(
  event: { source: unknown; data: unknown },
  parent: Window,
  self: Window,
): string | null {
  if (parent === self || event.source !== parent) return null;
  const data = event.data;
  if (!isPlainObject(data) || data.type !== RENDER_MESSAGE_TYPE || typeof data.html !== 'string') return null;
  return data.html;
}

/** The `_meta` key that names an Apps-SDK tool's widget. */
export const OUTPUT_TEMPLATE_KEY = 'openai/outputTemplate';

/** The display modes the panel has a place for. */
export type HostDisplayMode = 'inline' | 'modal' | 'sidebar';
export const HOST_DISPLAY_MODES: readonly HostDisplayMode[] = ['inline', 'modal', 'sidebar'];

/** The Apps SDK's name for each place: what a widget reads in `displayMode` when the panel chose it. */
export const APPS_SDK_MODE_NAMES: Record<HostDisplayMode, 'inline' | 'fullscreen' | 'pip'> = {
  inline: 'inline',
  modal: 'fullscreen',
  sidebar: 'pip',
};

/** Frame heights, in pixels: a widget's intrinsic height is kept within these. */
export const MIN_FRAME_HEIGHT = 40;
export const INLINE_MAX_HEIGHT = 640;
export const INLINE_DEFAULT_HEIGHT = 240;

/** The `ui://` resource a tool names in `_meta["openai/outputTemplate"]`, or null when it has none. */
export function outputTemplateOf(meta: unknown): string | null {
  if (typeof meta !== 'object' || meta === null) return null;
  const template = (meta as Record<string, unknown>)[OUTPUT_TEMPLATE_KEY];
  return typeof template === 'string' && template.startsWith('ui://') ? template : null;
}

/** Where the panel keeps a widget's `setWidgetState` value: one per server and tool. */
export function widgetStateKey(serverId: string, toolName: string): string {
  return `widgetState:${serverId}:${toolName}`;
}

/** The widget's `toolOutput`: the result's `structuredContent`, else the whole result. */
export function toolOutputOf(result: JsonObject): unknown {
  return result.structuredContent ?? result;
}

/** The theme of the app, from the `data-theme` of its root element. */
export function themeOf(dataTheme: string | undefined): WidgetTheme {
  return dataTheme === 'dark' ? 'dark' : 'light';
}

export interface StoreInput {
  serverId: string;
  uri: string;
  /** The run's executionId: one stored widget per completed run. */
  toolId: string;
  toolInput: Record<string, unknown>;
  result: JsonObject;
  /** The Apps-SDK globals of the first render; an MCP App gets its host context over the bridge instead. */
  globals?: InitialWidgetGlobals;
}

/** The body of `POST /resources/widget/store` for a completed run. */
export function storeRequest(input: StoreInput): WidgetStoreRequest {
  const meta = input.result._meta;
  return {
    serverId: input.serverId,
    uri: input.uri,
    toolId: input.toolId,
    toolInput: input.toolInput,
    toolOutput: toolOutputOf(input.result),
    ...(isPlainObject(meta) && { toolResponseMetadata: meta }),
    ...(input.globals && { globals: input.globals }),
  };
}

/** The two widget routes of the daemon client (`DaemonClient` has both). */
export interface WidgetPageClient {
  storeWidget(body: WidgetStoreRequest): Promise<WidgetStoreResponse>;
  widgetHtml(toolId: string): Promise<string>;
}

/**
 * Stores the widget record of a completed run and fetches its page with the token (in a header): the
 * Apps-SDK page with its `window.openai` bridge, or an MCP App page without one, under the app's policy.
 * Both widget kinds load this way.
 */
export async function fetchWidgetPage(client: WidgetPageClient, input: StoreInput): Promise<string> {
  await client.storeWidget(storeRequest(input));
  return client.widgetHtml(input.toolId);
}

/** The most JSON text one widget's saved state may take in the panel's storage. */
export const MAX_WIDGET_STATE_CHARS = 64_000;

/**
 * The widget state as storage keeps it: a JSON copy, so what the widget gets back next time is what
 * JSON can carry. Throws for a state that is not JSON or larger than {@link MAX_WIDGET_STATE_CHARS}.
 */
export function storableState(state: unknown, maxChars = MAX_WIDGET_STATE_CHARS): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(state);
  } catch (error) {
    throw new Error(`the state is not JSON (${errorText(error)})`, { cause: error });
  }
  if (json === undefined) return null;
  if (json.length > maxChars) {
    throw new Error(`the state takes ${json.length} characters as JSON; the panel keeps up to ${maxChars}`);
  }
  return JSON.parse(json) as unknown;
}

/** Only http and https pages may be opened for a widget (no javascript:, data:, file:, extension pages). */
export function isWebUrl(href: unknown): href is string {
  if (typeof href !== 'string') return false;
  try {
    const { protocol } = new URL(href);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** A widget's intrinsic height, kept between {@link MIN_FRAME_HEIGHT} and `max`. */
export function clampHeight(height: number, max: number): number {
  return Math.round(Math.min(Math.max(height, MIN_FRAME_HEIGHT), Math.max(max, MIN_FRAME_HEIGHT)));
}

/**
 * The panel's place for a requested mode: SPEC's inline, modal and sidebar as they are; the Apps SDK's
 * fullscreen is shown as the modal and pip as the sidebar.
 */
export function hostDisplayMode(mode: DisplayMode): HostDisplayMode {
  if (mode === 'fullscreen') return 'modal';
  if (mode === 'pip') return 'sidebar';
  return mode;
}

/** True only for a message whose source is the widget's own frame (origin is "null" there, so no help). */
export function fromFrame(source: unknown, frame: Window | null | undefined): boolean {
  return frame !== null && frame !== undefined && source === frame;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The bridge message in `data`, or null when it is not one of the six widget → host types with the
 * fields that type needs. Only the known fields are copied, so nothing else a widget adds travels on.
 */
export function parseWidgetMessage(data: unknown): WidgetToHostMessage | null {
  if (!isPlainObject(data)) return null;
  switch (data.type) {
    case 'openai:callTool': {
      const params = data.params ?? {};
      if (!nonEmpty(data.requestId) || !nonEmpty(data.toolName) || !isPlainObject(params)) return null;
      return { type: data.type, requestId: data.requestId, toolName: data.toolName, params };
    }
    case 'openai:sendFollowupTurn':
      return typeof data.message === 'string' ? { type: data.type, message: data.message } : null;
    case 'openai:setWidgetState':
      return 'state' in data ? { type: data.type, state: data.state } : null;
    case 'openai:requestDisplayMode':
      return (DISPLAY_MODES as readonly unknown[]).includes(data.mode)
        ? { type: data.type, mode: data.mode as DisplayMode }
        : null;
    case 'openai:openExternal':
      return typeof data.href === 'string' ? { type: data.type, href: data.href } : null;
    case 'openai:notifyIntrinsicHeight':
      return typeof data.height === 'number' && Number.isFinite(data.height)
        ? { type: data.type, height: data.height }
        : null;
    default:
      return null;
  }
}

/**
 * The content height the bridge measured (`inspector:contentHeight`), or null when `data` is not that
 * message with a finite height of zero or more. The widget's own code can post it too: it only feeds
 * {@link overflowNote}.
 */
export function contentHeightOf(data: unknown): number | null {
  if (!isPlainObject(data) || data.type !== 'inspector:contentHeight') return null;
  const { height } = data;
  return typeof height === 'number' && Number.isFinite(height) && height >= 0 ? height : null;
}

/**
 * What the panel tells the widget's developer when the content is taller than the inline frame while
 * the frame could have been taller: the widget reported a smaller height (or none) with
 * `notifyIntrinsicHeight`, and ChatGPT sizes the frame by that, so the rest scrolls inside the frame.
 * Null when the content fits, or when the frame is already as tall as an inline frame may be.
 */
export function overflowNote(
  content: number | null,
  reported: number | null,
  frame: number,
  max: number = INLINE_MAX_HEIGHT,
): string | null {
  if (content === null || content <= frame + 1 || frame >= max) return null;
  const px = (n: number) => `${Math.round(n)} px`;
  const asked =
    reported === null
      ? `reported no height with notifyIntrinsicHeight, so the frame has the default ${px(frame)}`
      : `last reported ${px(reported)} with notifyIntrinsicHeight`;
  const fix =
    content > max
      ? `reporting ${px(content)} would give it the most an inline frame has, ${px(max)}`
      : `call notifyIntrinsicHeight(${Math.ceil(content)}) whenever its content changes height (a new width included)`;
  return `The widget's content is ${px(content)} tall, but it ${asked}: the rest scrolls inside the frame. The host sizes the frame by what the widget reports; ${fix}.`;
}

/** One message of the traffic view: `in` came from the widget, `out` went to it. */
export interface TrafficEntry {
  /** The order the messages came in (a link is numbered when asked, though recorded when answered). */
  seq: number;
  /** Milliseconds since the epoch. */
  at: number;
  direction: 'in' | 'out';
  /** The message's `type`, or `(no type)`. */
  type: string;
  data: unknown;
  /** A message from the widget's frame that the host did not act on (unknown type or bad fields). */
  ignored?: boolean;
  /** Why the host did not do what a message it understood asked (a link that is not http(s)…). */
  note?: string;
}

/** What the host does for each message; the component supplies the daemon, storage and layout. */
export interface WidgetHostActions {
  /** Posts to the widget frame's window. */
  post(message: HostToWidgetMessage): void;
  /** Runs the tool on the widget's server; resolves with the MCP call-tool result, rejects with an Error. */
  callTool(toolName: string, params: Record<string, unknown>): Promise<unknown>;
  /**
   * Why the widget may not call this tool, or undefined when it may. ChatGPT runs a widget's `callTool`
   * only for a tool whose `_meta["openai/widgetAccessible"]` is true (widgetAccessRefusal): without this
   * action every call is run.
   */
  mayCall?(toolName: string): string | undefined;
  followup(message: string): void;
  saveState(state: unknown): void | Promise<void>;
  /**
   * Switches the frame to this mode and answers with the globals the widget should now see; `requested`
   * is the mode the widget asked for, when it did (the panel's own buttons ask none).
   */
  showMode(mode: HostDisplayMode, requested?: DisplayMode): Partial<WidgetGlobals>;
  /**
   * An http(s) link the widget asks to open: the user is asked, and nothing opens without their click.
   * Resolves with what became of it.
   */
  openExternal(href: string): LinkAnswer | Promise<LinkAnswer>;
  /** The widget's intrinsic height, as it reported it. */
  resize(height: number): void;
  /** The height of the widget's content, as the bridge measured it (not listed in the traffic). */
  measured?(height: number): void;
  traffic(entry: TrafficEntry): void;
}

/** The traffic view's note on a link the widget asked for, by what became of it. */
const LINK_NOTES: Record<LinkAnswer, string | undefined> = {
  opened: 'opened: in a new tab, as the user chose',
  dismissed: 'dismissed: the user did not open it',
  busy: 'refused: another link the widget asked for waits for the user',
};

/**
 * The host end of one widget's bridge. The caller hands it only messages whose source is the widget's
 * frame ({@link fromFrame}); it checks their type and fields, acts, answers and records the traffic.
 */
export class WidgetHost {
  private seq = 0;

  constructor(
    private readonly actions: WidgetHostActions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Sends a message to the widget and records it, with `note` in the traffic view when given. */
  send(message: HostToWidgetMessage, note?: string): void {
    this.record('out', message, note === undefined ? {} : { note });
    this.actions.post(message);
  }

  /** Tells the widget about new host globals (theme, display mode, max height…). */
  setGlobals(globals: Partial<WidgetGlobals>): void {
    this.send({ type: 'openai:set_globals', globals });
  }

  /** The host switched the mode itself (the panel's own buttons): the widget hears of it the same way. */
  showMode(mode: HostDisplayMode, requested?: DisplayMode): void {
    this.setGlobals(this.actions.showMode(mode, requested));
  }

  /**
   * Handles one message from the widget's frame; resolves once any answer has been sent (for a link, once
   * the user has answered).
   */
  async receive(data: unknown): Promise<void> {
    const content = contentHeightOf(data);
    if (content !== null) {
      this.actions.measured?.(content);
      return;
    }
    const message = parseWidgetMessage(data);
    if (!message) {
      this.record('in', data, { ignored: true });
      return;
    }
    switch (message.type) {
      case 'openai:callTool':
        this.record('in', message);
        await this.callTool(message.requestId, message.toolName, message.params);
        return;
      case 'openai:sendFollowupTurn':
        this.record('in', message);
        this.actions.followup(message.message);
        return;
      case 'openai:setWidgetState':
        try {
          await this.actions.saveState(message.state);
          this.record('in', message);
        } catch (error) {
          this.record('in', message, { note: `not saved: ${errorText(error)}` });
        }
        return;
      case 'openai:requestDisplayMode':
        this.record('in', message);
        this.showMode(hostDisplayMode(message.mode), message.mode);
        return;
      case 'openai:openExternal': {
        if (!isWebUrl(message.href)) {
          this.record('in', message, { note: 'refused: only http and https links open' });
          return;
        }
        // Shown once the user has answered, with what became of it, in its place: at the time it came,
        // numbered before the requests that came while it waited (they may share its millisecond).
        const at = this.now();
        const seq = ++this.seq;
        const note = LINK_NOTES[await this.actions.openExternal(message.href)];
        this.record('in', message, note ? { note } : {}, at, seq);
        return;
      }
      case 'openai:notifyIntrinsicHeight':
        this.record('in', message);
        this.actions.resize(message.height);
        return;
    }
  }

  private async callTool(requestId: string, toolName: string, params: Record<string, unknown>) {
    let answer: CallToolResultMessage;
    const refusal = this.actions.mayCall?.(toolName);
    if (refusal) {
      this.send({ type: 'openai:callTool:result', requestId, error: refusal }, `refused: ${refusal}`);
      return;
    }
    try {
      const result = await this.actions.callTool(toolName, params);
      answer = { type: 'openai:callTool:result', requestId, result };
    } catch (error) {
      answer = { type: 'openai:callTool:result', requestId, error: errorText(error) };
    }
    this.send(answer, 'error' in answer ? `error: ${answer.error}` : undefined);
  }

  private record(
    direction: TrafficEntry['direction'],
    data: unknown,
    extra: Pick<TrafficEntry, 'ignored' | 'note'> = {},
    at = this.now(),
    seq = ++this.seq,
  ): void {
    const type = isPlainObject(data) && typeof data.type === 'string' ? data.type : '(no type)';
    this.actions.traffic({ seq, at, direction, type, data, ...extra });
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A small script appended to an Apps-SDK widget page: a click on a link goes to the host as
 * `openai:openExternal` (which asks the user, then opens http and https only, in a new tab) instead of
 * navigating the frame.
 * The frame may not open windows itself (no `allow-popups`). It listens last (bubbling, on the
 * document), so a widget that handles its own links and calls `preventDefault()` keeps them.
 */
export const LINK_SCRIPT = `<script data-inspector-widget-links>
document.addEventListener('click', function (event) {
  var link = event.target instanceof Element ? event.target.closest('a[href]') : null;
  if (!link || event.defaultPrevented) return;
  var href = link.getAttribute('href') || '';
  if (href.charAt(0) === '#') return;
  event.preventDefault();
  window.parent.postMessage({ type: 'openai:openExternal', href: link.href }, '*');
});
</script>`;

/** The widget page as the frame gets it: the daemon's page (bridge included) with the link script. */
export function framedHtml(html: string, kind: WidgetKind): string {
  return kind === 'apps-sdk' ? html + LINK_SCRIPT : html;
}

// MCP Apps: what the panel needs before (or without) the host module, which comes with the SDK and is
// loaded only when an app is shown.

/**
 * Whether a tool's `_meta` names an MCP App resource at all (`ui.resourceUri`, or the older flat
 * `ui/resourceUri`). It needs no SDK: the panel loads `mcp-app-host.ts` (whose `mcpAppResourceUri`
 * decides whether the URI is a valid `ui://` one) only for tools that pass this check.
 */
export function declaresMcpApp(meta: unknown): boolean {
  if (!isPlainObject(meta)) return false;
  return (
    (isPlainObject(meta.ui) && meta.ui.resourceUri !== undefined) || meta['ui/resourceUri'] !== undefined
  );
}

/**
 * An MCP App's `ui/message` as one follow-up text: its text blocks, one per line; any other block is
 * named by its type (`[image]`).
 */
export function mcpAppMessageText(params: unknown): string {
  const content = isPlainObject(params) && Array.isArray(params.content) ? (params.content as unknown[]) : [];
  return content
    .map((block) => {
      if (!isPlainObject(block)) return '[content]';
      if (block.type === 'text' && typeof block.text === 'string') return block.text;
      return `[${typeof block.type === 'string' ? block.type : 'content'}]`;
    })
    .join('\n');
}

/** A JSON-RPC 2.0 message by its envelope (the bridge checks the rest): what an MCP App speaks. */
export function isJsonRpc(data: unknown): data is Record<string, unknown> & { jsonrpc: '2.0' } {
  return isPlainObject(data) && data.jsonrpc === '2.0';
}

/** How many unanswered requests {@link RpcTraffic} remembers the method of. */
const MAX_OPEN_REQUESTS = 1000;

/**
 * The traffic view's entries for an MCP App's JSON-RPC messages. A request or notification is shown by
 * its method; an answer by its request's method and `:result` or `:error` (`tools/call:result`), so the
 * two read together. An error answer, or a result with `isError` (a refused link), gets a note.
 */
export class RpcTraffic {
  private seq = 0;
  /** The method of each request not answered yet, by the direction it went and its id. */
  private readonly open = new Map<string, string>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A JSON-RPC message that crossed the bridge: `in` came from the app, `out` went to it. */
  entry(direction: TrafficEntry['direction'], message: unknown): TrafficEntry {
    if (!isJsonRpc(message)) return { ...this.ignored(message), direction };
    const base = { seq: ++this.seq, at: this.now(), direction, data: message };
    if (typeof message.method === 'string') {
      if (message.id !== undefined) this.remember(requestKey(direction, message.id), message.method);
      return { ...base, type: message.method };
    }
    // An answer goes the other way from its request.
    const key = requestKey(direction === 'in' ? 'out' : 'in', message.id);
    const method = this.open.get(key) ?? '(unknown request)';
    this.open.delete(key);
    if (isPlainObject(message.error)) {
      const text = typeof message.error.message === 'string' ? message.error.message : 'no message';
      return { ...base, type: `${method}:error`, note: `error: ${text}` };
    }
    const refused = isPlainObject(message.result) && message.result.isError === true;
    if (!refused) {
      const opened = method === 'ui/open-link' ? { note: 'opened: in a new tab, as the user chose' } : {};
      return { ...base, type: `${method}:result`, ...opened };
    }
    const note =
      method === 'ui/open-link'
        ? 'not opened: dismissed by the user, or not an http or https link'
        : 'error: the result is marked isError';
    return { ...base, type: `${method}:result`, note };
  }

  /** A message from the app's frame that is not JSON-RPC: shown, and nothing was done for it. */
  ignored(data: unknown): TrafficEntry {
    const type = isPlainObject(data) && typeof data.type === 'string' ? data.type : '(no type)';
    return { seq: ++this.seq, at: this.now(), direction: 'in', type, data, ignored: true };
  }

  private remember(key: string, method: string): void {
    this.open.set(key, method);
    // An app that never gets (or gives) its answers must not grow this without end: oldest out first.
    if (this.open.size > MAX_OPEN_REQUESTS) this.open.delete(this.open.keys().next().value as string);
  }
}

function requestKey(direction: TrafficEntry['direction'], id: unknown): string {
  return `${direction}:${typeof id}:${String(id)}`;
}

/** The `_meta` key by which a tool lets widgets call it (Apps SDK, component-initiated tool calls). */
export const WIDGET_ACCESSIBLE = 'openai/widgetAccessible';

/**
 * Why a widget may not call `toolName`, as ChatGPT decides it: the tool must be listed and have
 * `_meta["openai/widgetAccessible"]: true`. Undefined when it may, or when the tools are not known.
 */
export function widgetAccessRefusal(
  toolName: string,
  tools: ReadonlyArray<{ name: string; _meta?: Record<string, unknown> }> | undefined,
): string | undefined {
  if (!tools) return undefined;
  const tool = tools.find((candidate) => candidate.name === toolName);
  const name = JSON.stringify(toolName.slice(0, 200));
  if (!tool) return `The widget called the tool ${name}, which the server does not list`;
  if (tool._meta?.[WIDGET_ACCESSIBLE] === true) return undefined;
  return (
    `The tool ${name} may not be called from a widget: ChatGPT runs a widget's callTool only for a tool ` +
    `whose _meta["${WIDGET_ACCESSIBLE}"] is true`
  );
}
