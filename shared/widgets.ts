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

import { hostSources } from './mcp-apps.ts';

/** A `toolId` names one stored widget record; it appears in URLs, so it is kept to URL-safe characters. */
export const WIDGET_TOOL_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';

/** `toolInput`, `toolOutput` and the rest live this long (SPEC part 8); `widgetTtlMs` overrides it. */
export const WIDGET_TTL_MS = 60 * 60_000;

/** How long a view code of the container page stays good; it opens the page once. */
export const WIDGET_VIEW_CODE_TTL_MS = 60_000;

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
  Pick<
    WidgetGlobals,
    'theme' | 'locale' | 'displayMode' | 'maxHeight' | 'widgetState' | 'safeArea' | 'userAgent'
  >
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

/**
 * POST /api/mcp/openai/widget/:toolId/view: the address that opens the widget's container page in a
 * browser tab. Its `?view=` code is random, opens only that widget, works once and only until
 * `expiresAt` (a minute); the address never carries the token.
 */
export interface WidgetViewResponse {
  url: string;
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

/**
 * Not an Apps SDK call: the bridge measures the page itself (a ResizeObserver on its root and body) and
 * posts the content's height, in CSS pixels, whenever it changes, so the host can tell when a widget's
 * content has outgrown the frame it asked for with `notifyIntrinsicHeight`. The host does not size the
 * frame by it (ChatGPT sizes it by what the widget reports) and does not list it in the widget's traffic.
 */
export interface ContentHeightMessage {
  type: 'inspector:contentHeight';
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

/** The `_meta` key under which an Apps-SDK widget resource declares the domains it may reach. */
export const WIDGET_CSP_KEY = 'openai/widgetCSP';

/**
 * What an Apps-SDK widget resource declares in `_meta["openai/widgetCSP"]` (on the read content item,
 * else on its resources/list entry): the only hosts its page may reach.
 */
export interface WidgetCsp {
  /** fetch, XHR, WebSocket, EventSource, beacons: `connect-src`. */
  connect_domains?: string[];
  /** Scripts, styles, images, fonts, media. */
  resource_domains?: string[];
  /** Nested frames: `frame-src`. */
  frame_domains?: string[];
}

/** The `_meta["openai/widgetCSP"]` of a resource or of one of its contents, when it is an object. */
export function widgetCspOf(meta: unknown): WidgetCsp | undefined {
  const csp = isObject(meta) ? meta[WIDGET_CSP_KEY] : undefined;
  return isObject(csp) ? (csp as WidgetCsp) : undefined;
}

/**
 * The Content-Security-Policy of an Apps-SDK widget page, built from the domains its resource declares
 * and nothing else, as directives that also work in a `<meta>` (the policy travels with the HTML when a
 * host hands it to a frame). Widget code is untrusted:
 * - `default-src 'none'`; no `'self'` (in the web page and the container page that would be the daemon),
 *   no scheme source such as `https:`, no loopback unless declared.
 * - inline and eval'd script and inline style: widget bundles are usually inlined pages, and the bridge
 *   is an inline script. Images and media also from `data:` and `blob:`, fonts from `data:`.
 * - scripts, styles, images, fonts and media also from the declared `resource_domains`; `connect-src`
 *   only the `connect_domains` and `frame-src` only the `frame_domains`, `'none'` without any.
 * - no plugins, no `<base>`, no form posts.
 * Only plain host sources of a declaration count ({@link hostSources}): a declaration can name hosts but
 * can neither add a keyword, `*` or a scheme source, nor a directive.
 */
export function widgetCspDirectives(csp: WidgetCsp | undefined): string[] {
  const resources = hostSources(csp?.resource_domains);
  const withResources = (...base: string[]): string => [...base, ...resources].join(' ');
  const only = (sources: string[]): string => (sources.length ? sources.join(' ') : "'none'");
  return [
    "default-src 'none'",
    `script-src ${withResources("'unsafe-inline'", "'unsafe-eval'")}`,
    `style-src ${withResources("'unsafe-inline'")}`,
    `img-src ${withResources('data:', 'blob:')}`,
    `font-src ${withResources('data:')}`,
    `media-src ${withResources('data:', 'blob:')}`,
    `connect-src ${only(hostSources(csp?.connect_domains))}`,
    `frame-src ${only(hostSources(csp?.frame_domains))}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ];
}

/** The policy of a widget whose resource declares no domains: inline content only, no connections. */
export const WIDGET_CSP_DIRECTIVES: readonly string[] = widgetCspDirectives(undefined);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
