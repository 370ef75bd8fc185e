/**
 * Widgets (Apps-SDK style): the store route's body and answer, the globals a widget reads, and the
 * postMessage protocol between a widget frame and its host (the panel's sandbox page, or the web page).
 *
 * Flow: after a tool call whose `_meta["openai/outputTemplate"]` names a `ui://` resource, the host
 * stores `{ serverId, uri, toolInput, toolOutput, toolId }` (POST /api/mcp/openai/widget/store or
 * /resources/widget/store), then fetches GET /api/mcp/openai/widget-content/:toolId with its token (header
 * only) and hands the HTML to a sandboxed frame (`sandbox="allow-scripts"`, no `allow-same-origin`). The
 * page's injected bridge defines `window.openai` (alias `window.webplus`) and talks to the host only
 * through the messages below. Nothing here carries the token or the daemon's address.
 */

/** A `toolId` names one stored widget record; it appears in URLs, so it is kept to URL-safe characters. */
export const WIDGET_TOOL_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';

/** `toolInput`, `toolOutput` and the rest live this long (SPEC part 8); `widgetTtlMs` overrides it. */
export const WIDGET_TTL_MS = 60 * 60_000;

/** SPEC names inline, modal and sidebar; the Apps SDK's own fullscreen and pip are passed on too. */
export const DISPLAY_MODES = ['inline', 'modal', 'sidebar', 'fullscreen', 'pip'] as const;
export type DisplayMode = (typeof DISPLAY_MODES)[number];

export type WidgetTheme = 'light' | 'dark';

/** The host-owned values a widget reads from `window.openai`; `openai:set_globals` updates any of them. */
export interface WidgetGlobals {
  theme: WidgetTheme;
  locale: string;
  displayMode: DisplayMode;
  /** Pixels the host gives the widget in its current mode; `null` when unbounded. */
  maxHeight: number | null;
  /** The widget's own saved state (see `setWidgetState`); the host keeps it per widget. */
  widgetState: unknown;
  safeArea: { insets: { top: number; bottom: number; left: number; right: number } };
  userAgent: { device: { type: 'desktop' | 'mobile' | 'tablet' | 'unknown' }; capabilities: object };
  toolInput: Record<string, unknown>;
  toolOutput: unknown;
  /** The `_meta` of the tool result, which only the widget sees. */
  toolResponseMetadata: Record<string, unknown> | null;
}

export const DEFAULT_WIDGET_GLOBALS: Omit<WidgetGlobals, 'toolInput' | 'toolOutput'> = {
  theme: 'light',
  locale: 'en-US',
  displayMode: 'inline',
  maxHeight: null,
  widgetState: null,
  safeArea: { insets: { top: 0, bottom: 0, left: 0, right: 0 } },
  userAgent: { device: { type: 'desktop' }, capabilities: { hover: true, touch: false } },
  toolResponseMetadata: null,
};

/** Host globals the store body may set for the first render (the rest take their defaults). */
export type InitialWidgetGlobals = Partial<
  Pick<WidgetGlobals, 'theme' | 'locale' | 'displayMode' | 'maxHeight' | 'widgetState'>
>;

/** POST /api/mcp/{openai,resources}/widget/store */
export interface WidgetStoreRequest {
  serverId: string;
  /** The `ui://` resource named by the tool's `_meta["openai/outputTemplate"]`. */
  uri: string;
  /** The arguments the tool was called with. */
  toolInput: Record<string, unknown>;
  /** What the widget gets as `toolOutput`: the result's `structuredContent`, or `null`. */
  toolOutput: unknown;
  /** Chosen by the host, one per rendered widget; matches {@link WIDGET_TOOL_ID_PATTERN}. */
  toolId: string;
  toolResponseMetadata?: Record<string, unknown>;
  globals?: InitialWidgetGlobals;
}

export interface WidgetStoreResponse {
  success: true;
  toolId: string;
  /** ISO time after which the record is gone and the widget routes answer 404. */
  expiresAt: string;
}

/** What the daemon keeps per toolId. */
export interface WidgetRecord {
  serverId: string;
  uri: string;
  toolInput: Record<string, unknown>;
  toolOutput: unknown;
  toolId: string;
  toolResponseMetadata?: Record<string, unknown>;
  globals?: InitialWidgetGlobals;
  /** Milliseconds since the epoch when stored. */
  timestamp: number;
}

/** The data embedded in the widget page for the bridge; no token, no daemon URL. */
export interface WidgetPageData {
  toolId: string;
  globals: WidgetGlobals;
  /** How long `callTool` waits for the host's answer before it rejects. */
  callToolTimeoutMs: number;
}

// ---- widget → host (posted to window.parent) ----

/** `callTool(toolName, params)`: the host runs the tool on the widget's server and answers with the same requestId. */
export interface CallToolMessage {
  type: 'openai:callTool';
  requestId: string;
  toolName: string;
  params: Record<string, unknown>;
}

/** `sendFollowupTurn(message)` (and the Apps SDK's `sendFollowUpMessage({ prompt })`): a chat message. */
export interface SendFollowupTurnMessage {
  type: 'openai:sendFollowupTurn';
  message: string;
}

/** `setWidgetState(state)`: the host persists it per widget and hands it back as `widgetState` next time. */
export interface SetWidgetStateMessage {
  type: 'openai:setWidgetState';
  state: unknown;
}

/** `requestDisplayMode({ mode })`; the host may answer with `openai:set_globals { displayMode }`. */
export interface RequestDisplayModeMessage {
  type: 'openai:requestDisplayMode';
  mode: DisplayMode;
}

/** `openExternal({ href })`: the host opens it only if it is http or https. */
export interface OpenExternalMessage {
  type: 'openai:openExternal';
  href: string;
}

/** `notifyIntrinsicHeight(height)`: the content's height in pixels, so the host can size the frame. */
export interface NotifyIntrinsicHeightMessage {
  type: 'openai:notifyIntrinsicHeight';
  height: number;
}

export type WidgetToHostMessage =
  | CallToolMessage
  | SendFollowupTurnMessage
  | SetWidgetStateMessage
  | RequestDisplayModeMessage
  | OpenExternalMessage
  | NotifyIntrinsicHeightMessage;

// ---- host → widget (posted to the widget frame's contentWindow) ----

/** The answer to one `openai:callTool`: `result` (the MCP call-tool result) or `error` (a message). */
export type CallToolResultMessage =
  | { type: 'openai:callTool:result'; requestId: string; result: unknown }
  | { type: 'openai:callTool:result'; requestId: string; error: string };

/** New host globals; the bridge copies them onto `window.openai` and dispatches `openai:set_globals` on window. */
export interface SetGlobalsMessage {
  type: 'openai:set_globals';
  globals: Partial<WidgetGlobals>;
}

export type HostToWidgetMessage = CallToolResultMessage | SetGlobalsMessage;

/** The `CustomEvent` type dispatched on the widget's window; `event.detail` is `{ globals }`. */
export const SET_GLOBALS_EVENT = 'openai:set_globals';

/**
 * The Content-Security-Policy of a widget page, as directives that also work in a `<meta>` (so the
 * policy travels with the HTML when a host hands it to a frame). Widget code is untrusted:
 * - `connect-src https:` only: no fetch, XHR, WebSocket or EventSource to the daemon or anything else on
 *   plain-http loopback. (The daemon would refuse anyway: a sandboxed frame sends `Origin: null` and
 *   has no token.)
 * - scripts, styles, images, fonts and media may come from https and, for widgets in development whose
 *   assets a local dev server serves, from http://localhost and http://127.0.0.1: those are GETs
 *   without a token that can read nothing from the daemon (401, and `nosniff` stops JSON running).
 * - inline and eval'd script are allowed: widget bundles are inline scripts and the bridge is one too.
 * - `form-action 'none'`; no plugins and no nested frames (`default-src 'none'`).
 */
export const WIDGET_CSP_DIRECTIVES: readonly string[] = [
  "default-src 'none'",
  "script-src 'unsafe-inline' 'unsafe-eval' https: http://localhost:* http://127.0.0.1:*",
  "style-src 'unsafe-inline' https: http://localhost:* http://127.0.0.1:*",
  'img-src data: blob: https: http://localhost:* http://127.0.0.1:*',
  'font-src data: https: http://localhost:* http://127.0.0.1:*',
  'media-src data: blob: https: http://localhost:* http://127.0.0.1:*',
  'connect-src https:',
  "form-action 'none'",
];
