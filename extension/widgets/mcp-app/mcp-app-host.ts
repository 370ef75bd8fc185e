/**
 * The host side of an MCP App (SEP-1865) for the panel and the web page: ext-apps 2.x's `AppBridge` (built
 * on SDK v2's `Protocol`; its messages are those of 1.x) over a `PostMessageTransport` bound to the
 * widget frame's window. The app's `tools/call` is relayed through
 * a callback (to the daemon), `ui/message`, `ui/open-link` (http and https only, answered once the user
 * has decided) and size changes go to
 * callbacks, and once the app has initialized it gets the tool input and result. No daemon client
 * reaches the app: the bridge has no MCP `Client`, so nothing but the callbacks below answers it.
 *
 * Call {@link connectMcpApp} before the frame gets the app's HTML: the app sends `ui/initialize` as
 * soon as it runs, and a message that arrives before the bridge listens is lost.
 */
import {
  AppBridge,
  getToolUiResourceUri,
  type McpUiDisplayMode,
  type McpUiHostCapabilities,
  type McpUiHostContext,
  type McpUiMessageRequest,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import {
  type CallToolResult,
  type JSONRPCMessage,
  type MessageExtraInfo,
  ProtocolError,
  ProtocolErrorCode,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';
import { mcpAppCspDirectives, mcpAppCspOf } from '../../../shared/mcp-apps';
import { version } from '../../../package.json';

export type { McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';

/** The params of the app's `ui/message`: `{ role: 'user', content: ContentBlock[] }`. */
export type McpAppMessage = McpUiMessageRequest['params'];

export interface McpAppSize {
  width?: number;
  height?: number;
}

export interface McpAppHostOptions {
  /**
   * The window the app's messages come from and go to: the widget frame's `contentWindow` (the
   * sandbox page that shows the app, or relays for it). Messages from any other window are ignored.
   */
  frame: Window;
  /** The arguments of the tool call that shows the app (`ui/notifications/tool-input`). */
  toolInput: Record<string, unknown>;
  /** That call's MCP `CallToolResult` (`ui/notifications/tool-result`). */
  toolResult: Record<string, unknown>;
  /** What the app learns about the host in `ui/initialize`: theme, displayMode, locale, containerDimensions… */
  hostContext?: McpUiHostContext;
  /**
   * The server's tools, for the spec's visibility rule: the app may call only listed tools whose
   * `_meta.ui.visibility`, when set, includes "app". Without it every call is relayed.
   */
  tools?: ReadonlyArray<{ name: string; _meta?: Record<string, unknown> }>;
  /** Runs the app's `tools/call` on its server (through the daemon); a throw becomes the app's error. */
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** `ui/message`; without this callback the host does not offer messages. */
  onMessage?(params: McpAppMessage): void;
  /**
   * `ui/open-link` with an http or https URL (others are refused); resolves whether the link was opened
   * (the user may dismiss it), which the app is answered. Without it links are not offered.
   */
  onOpenLink?(url: string): Promise<boolean>;
  /**
   * `ui/request-display-mode`: the app asks to be shown `inline`, `fullscreen` or `pip`; answers the mode
   * it is now shown in. Without it the app stays where it is.
   */
  onRequestDisplayMode?(mode: McpUiDisplayMode): McpUiDisplayMode;
  /** `ui/notifications/size-changed`: the app's content size in pixels. */
  onSizeChanged?(size: McpAppSize): void;
  /** The app finished `ui/initialize` (again after a reload); its tool input and result follow. */
  onInitialized?(app: { name: string; version: string } | undefined): void;
  /** Every JSON-RPC message between host and app, as sent ('out') or received ('in'). */
  onTraffic?(direction: 'in' | 'out', message: unknown): void;
  /** How long `close()` waits for the app to answer `ui/resource-teardown`; 500 ms by default. */
  teardownTimeoutMs?: number;
}

export interface McpAppConnection {
  /** Tells the app what changed in the host context (theme, display mode…), once it has initialized. */
  setHostContext(context: McpUiHostContext): void;
  /**
   * Asks an initialized app to tear down (`ui/resource-teardown`, waited for briefly), then stops
   * listening. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

export const MCP_APP_HOST_INFO = { name: 'inspector-daemon', version };

/** Starts listening to the app in `options.frame`; resolves once the bridge listens. */
export async function connectMcpApp(options: McpAppHostOptions): Promise<McpAppConnection> {
  const capabilities: McpUiHostCapabilities = {
    serverTools: {},
    // The app's log messages (notifications/message) are accepted; callers see them in the traffic.
    logging: {},
    ...(options.onOpenLink && { openLinks: {} }),
    ...(options.onMessage && { message: { text: {} } }),
  };
  const bridge = new AppBridge(null, MCP_APP_HOST_INFO, capabilities, {
    hostContext: options.hostContext ?? {},
  });
  let initialized = false;
  let sentContext = options.hostContext ?? {};
  let latestContext = sentContext;
  let closing: Promise<void> | undefined;

  bridge.oninitialized = () => {
    initialized = true;
    options.onInitialized?.(bridge.getAppVersion());
    // A context that changed while the app started is sent now: nothing may reach it before this.
    if (latestContext !== sentContext) {
      sentContext = latestContext;
      bridge.setHostContext(latestContext);
    }
    void (async () => {
      await bridge.sendToolInput({ arguments: options.toolInput });
      await bridge.sendToolResult(options.toolResult as CallToolResult);
    })().catch(() => {});
  };
  bridge.oncalltool = async ({ name, arguments: args }) => {
    refuseUnlessAppMayCall(name, options.tools);
    return (await options.callTool(name, args ?? {})) as CallToolResult;
  };
  if (options.onMessage) {
    const onMessage = options.onMessage;
    bridge.onmessage = async (params) => {
      onMessage(params);
      return {};
    };
  }
  if (options.onOpenLink) {
    const onOpenLink = options.onOpenLink;
    bridge.onopenlink = async ({ url }) => {
      // Widget code is untrusted: javascript:, data:, file: and the like never leave the frame.
      if (!isHttpUrl(url)) return { isError: true };
      // The spec's answer: success only if the host opened it; refused or dismissed is an error.
      return (await onOpenLink(url)) ? {} : { isError: true };
    };
  }
  if (options.onRequestDisplayMode) {
    const onRequestDisplayMode = options.onRequestDisplayMode;
    bridge.onrequestdisplaymode = async ({ mode }) => ({ mode: onRequestDisplayMode(mode) });
  }
  bridge.onsizechange = (size) => options.onSizeChanged?.(size);

  const transport = new PostMessageTransport(options.frame, options.frame);
  await bridge.connect(options.onTraffic ? new TrafficTransport(transport, options.onTraffic) : transport);

  return {
    setHostContext(context) {
      latestContext = context;
      if (!initialized) return;
      sentContext = context;
      bridge.setHostContext(context);
    },
    close() {
      closing ??= (async () => {
        if (initialized) {
          await bridge
            .teardownResource({}, { timeout: options.teardownTimeoutMs ?? 500 })
            .catch(() => undefined);
        }
        await bridge.close();
      })();
      return closing;
    },
  };
}

/**
 * The Content-Security-Policy of an MCP App page, from the `_meta` of its resource or of the read
 * content (`_meta.ui.csp`): the same policy the daemon puts in the page it serves.
 */
export function cspForMcpApp(meta: unknown): string {
  return mcpAppCspDirectives(mcpAppCspOf(meta)).join('; ');
}

/** The `ui://` resource a tool's `_meta` names for its MCP App (`_meta.ui.resourceUri`), if any. */
export function mcpAppResourceUri(meta: Record<string, unknown> | undefined): string | undefined {
  try {
    return meta ? getToolUiResourceUri({ _meta: meta }) : undefined;
  } catch {
    return undefined;
  }
}

/** An absolute http or https URL. */
export function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** The spec: a host MUST reject an app's `tools/call` for a tool whose visibility leaves out "app". */
function refuseUnlessAppMayCall(name: string, tools: McpAppHostOptions['tools']): void {
  if (!tools) return;
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const ui = tool._meta?.ui as { visibility?: unknown } | undefined;
  if (Array.isArray(ui?.visibility) && !ui.visibility.includes('app')) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `The tool ${name} is not visible to apps`);
  }
}

/** Reports every message both ways, then passes it on unchanged. */
class TrafficTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  constructor(
    private readonly inner: Transport,
    private readonly record: (direction: 'in' | 'out', message: unknown) => void,
  ) {
    inner.onmessage = (message, extra) => {
      record('in', message);
      this.onmessage?.(message, extra);
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.onclose?.();
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.record('out', message);
    await this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
