import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  connectMcpApp,
  cspForMcpApp,
  isHttpUrl,
  MCP_APP_HOST_INFO,
  type McpAppConnection,
  type McpAppHostOptions,
  mcpAppResourceUri,
} from '../../extension/widgets/mcp-app/mcp-app-host';
import { MCP_APP_VIEW_HTML } from '../fixtures/mcp-app-view';

/**
 * Two stand-in windows on this one happy-dom window (whose frames run no scripts): what the host posts
 * to `frame` arrives as a message from `parent`, and what the app posts to `parent` arrives from
 * `frame`, each a task later and structured-cloned, as postMessage does. The host's transport accepts
 * only messages from `frame`, the app's only from `parent`, so each side hears only the other.
 */
function framePair(): { frame: Window; parent: Window } {
  const deliver = (data: unknown, source: Window): void => {
    const copy = structuredClone(data);
    setTimeout(() => window.dispatchEvent(new MessageEvent('message', { data: copy, source })));
  };
  const frame = { postMessage: (data: unknown) => deliver(data, parent) } as unknown as Window;
  const parent = { postMessage: (data: unknown) => deliver(data, frame) } as unknown as Window;
  return { frame, parent };
}

const TOOL_RESULT = {
  content: [{ type: 'text', text: 'Hello, Ada!' }],
  structuredContent: { greeting: 'Hello, Ada!' },
};

interface Host {
  connection: McpAppConnection;
  parent: Window;
  frame: Window;
  traffic: Array<{ direction: 'in' | 'out'; message: any }>;
  options: McpAppHostOptions;
}

async function startHost(overrides: Partial<McpAppHostOptions> = {}): Promise<Host> {
  const { frame, parent } = framePair();
  const traffic: Host['traffic'] = [];
  const options: McpAppHostOptions = {
    frame,
    toolInput: { name: 'Ada' },
    toolResult: TOOL_RESULT,
    hostContext: { theme: 'light', displayMode: 'inline', locale: 'en-US' },
    callTool: vi.fn(async (_name: string, args: Record<string, unknown>) => {
      const sum = Number(args.a) + Number(args.b);
      return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
    }),
    onMessage: vi.fn(),
    onOpenLink: vi.fn(async () => true),
    onSizeChanged: vi.fn(),
    onInitialized: vi.fn(),
    onTraffic: (direction, message) => traffic.push({ direction, message }),
    ...overrides,
  };
  const connection = await connectMcpApp(options);
  onTestFinished(() => connection.close());
  return { connection, parent, frame, traffic, options };
}

/**
 * ext-apps' own App (the reference View side), connected to the host through `parent`; resolves once
 * the tool input has arrived, so the host has seen `ui/notifications/initialized`.
 */
async function startApp(host: Host): Promise<{
  app: App;
  toolInput: Promise<unknown>;
  toolResult: Promise<unknown>;
}> {
  const app = new App({ name: 'reference-app', version: '2.0.0' }, {}, { autoResize: false });
  const toolInput = new Promise((resolve) => (app.ontoolinput = resolve));
  const toolResult = new Promise((resolve) => (app.ontoolresult = resolve));
  await app.connect(new PostMessageTransport(host.parent, host.parent));
  // The host first, while the app can still answer its teardown.
  onTestFinished(async () => {
    await host.connection.close();
    await app.close();
  });
  await toolInput;
  return { app, toolInput, toolResult };
}

const methods = (traffic: Host['traffic'], direction: 'in' | 'out'): string[] =>
  traffic
    .filter((entry) => entry.direction === direction && entry.message.method)
    .map((e) => e.message.method);

beforeEach(() => {
  // PostMessageTransport logs every message, and each one it ignores with the whole event.
  vi.spyOn(console, 'debug').mockImplementation(() => {});
});

afterEach(() => {
  document.body.innerHTML = '';
  delete document.documentElement.dataset.theme;
});

describe('MCP App host with the ext-apps App', () => {
  it('answers ui/initialize with the host, its capabilities and context, then sends the tool input and result', async () => {
    const host = await startHost();
    const { app, toolInput, toolResult } = await startApp(host);
    expect(app.getHostVersion()).toEqual(MCP_APP_HOST_INFO);
    expect(app.getHostContext()).toEqual({ theme: 'light', displayMode: 'inline', locale: 'en-US' });
    expect(app.getHostCapabilities()).toMatchObject({
      serverTools: {},
      openLinks: {},
      message: { text: {} },
    });
    expect(await toolInput).toEqual({ arguments: { name: 'Ada' } });
    expect(await toolResult).toEqual(TOOL_RESULT);
    expect(host.options.onInitialized).toHaveBeenCalledWith({ name: 'reference-app', version: '2.0.0' });
  });

  it('sends nothing to the app before it has initialized', async () => {
    const host = await startHost();
    host.connection.setHostContext({ theme: 'dark', displayMode: 'inline', locale: 'en-US' });
    await startApp(host);
    const outbound = host.traffic.filter((entry) => entry.direction === 'out').map((entry) => entry.message);
    // The answer to ui/initialize comes first; every notification follows the app's initialized.
    expect(outbound[0]).toMatchObject({
      id: expect.anything(),
      result: { protocolVersion: expect.any(String) },
    });
    const initializedAt = host.traffic.findIndex(
      (entry) => entry.message.method === 'ui/notifications/initialized',
    );
    const firstNotificationAt = host.traffic.findIndex(
      (entry) => entry.direction === 'out' && entry.message.method !== undefined,
    );
    expect(initializedAt).toBeGreaterThan(-1);
    expect(firstNotificationAt).toBeGreaterThan(initializedAt);
  });

  it('tells the app about a host context that changed while it started, and about later changes', async () => {
    const host = await startHost();
    host.connection.setHostContext({ theme: 'dark', displayMode: 'inline', locale: 'en-US' });
    const { app, toolResult } = await startApp(host);
    await toolResult;
    await vi.waitFor(() => expect(app.getHostContext()?.theme).toBe('dark'));
    host.connection.setHostContext({ theme: 'dark', displayMode: 'fullscreen', locale: 'en-US' });
    await vi.waitFor(() => expect(app.getHostContext()?.displayMode).toBe('fullscreen'));
  });

  it("relays the app's tools/call to callTool and answers with its result", async () => {
    const host = await startHost();
    const { app } = await startApp(host);
    const result = await app.callServerTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result.structuredContent).toEqual({ sum: 5 });
    expect(host.options.callTool).toHaveBeenCalledWith('add', { a: 2, b: 3 });
  });

  it('turns a failing callTool into an error for the app', async () => {
    const host = await startHost({
      callTool: async () => {
        throw new Error('Another tool call is running');
      },
    });
    const { app } = await startApp(host);
    await expect(app.callServerTool({ name: 'add', arguments: {} })).rejects.toThrow(
      'Another tool call is running',
    );
  });

  it('refuses tools the server does not list or keeps from apps', async () => {
    const host = await startHost({
      tools: [
        { name: 'add' },
        { name: 'model-only', _meta: { ui: { visibility: ['model'] } } },
        { name: 'app-only', _meta: { ui: { visibility: ['app'] } } },
      ],
    });
    const { app } = await startApp(host);
    // Invalid params (-32602), not an internal error: the refusal is the app's mistake.
    await expect(app.callServerTool({ name: 'model-only', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('not visible to apps'),
    });
    await expect(app.callServerTool({ name: 'missing', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool'),
    });
    await app.callServerTool({ name: 'app-only', arguments: { a: 1, b: 1 } });
    await app.callServerTool({ name: 'add', arguments: { a: 1, b: 1 } });
    expect(vi.mocked(host.options.callTool).mock.calls.map(([name]) => name)).toEqual(['app-only', 'add']);
  });

  it('passes ui/message to onMessage', async () => {
    const host = await startHost();
    const { app } = await startApp(host);
    const content = [{ type: 'text' as const, text: 'Hello from the app' }];
    expect(await app.sendMessage({ role: 'user', content })).toEqual({});
    expect(host.options.onMessage).toHaveBeenCalledWith({ role: 'user', content });
  });

  it('opens http and https links and refuses every other scheme', async () => {
    const host = await startHost();
    const { app } = await startApp(host);
    for (const url of ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'file:///etc/passwd', 'not a url']) {
      expect(await app.openLink({ url }), url).toEqual({ isError: true });
    }
    expect(host.options.onOpenLink).not.toHaveBeenCalled();
    expect(await app.openLink({ url: 'https://example.com/docs' })).toEqual({});
    expect(await app.openLink({ url: 'http://localhost:8080/' })).toEqual({});
    expect(vi.mocked(host.options.onOpenLink!).mock.calls).toEqual([
      ['https://example.com/docs'],
      ['http://localhost:8080/'],
    ]);
  });

  it('answers ui/open-link once the user has decided: success if the link opened, isError if dismissed', async () => {
    const decisions: Array<(opened: boolean) => void> = [];
    const host = await startHost({
      onOpenLink: vi.fn(() => new Promise<boolean>((resolve) => decisions.push(resolve))),
    });
    const { app } = await startApp(host);
    let settled = false;
    const dismissed = app.openLink({ url: 'https://example.com/dismissed' }).finally(() => (settled = true));
    await vi.waitFor(() => expect(decisions).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    decisions[0]!(false);
    expect(await dismissed).toEqual({ isError: true });
    const opened = app.openLink({ url: 'https://example.com/opened' });
    await vi.waitFor(() => expect(decisions).toHaveLength(2));
    decisions[1]!(true);
    expect(await opened).toEqual({});
  });

  it('offers neither links nor messages without their callbacks', async () => {
    const host = await startHost({ onOpenLink: undefined, onMessage: undefined });
    const { app } = await startApp(host);
    expect(app.getHostCapabilities()?.openLinks).toBeUndefined();
    expect(app.getHostCapabilities()?.message).toBeUndefined();
    await expect(app.openLink({ url: 'https://example.com/' })).rejects.toThrow();
  });

  it('answers ui/request-display-mode with the mode onRequestDisplayMode shows it in', async () => {
    const shown: string[] = [];
    const host = await startHost({
      // The panel has no place for anything but these three; it answers where the app now is.
      onRequestDisplayMode: (mode) => {
        shown.push(mode);
        return mode === 'pip' ? 'inline' : mode;
      },
    });
    const { app } = await startApp(host);
    expect(await app.requestDisplayMode({ mode: 'fullscreen' })).toMatchObject({ mode: 'fullscreen' });
    expect(await app.requestDisplayMode({ mode: 'pip' })).toMatchObject({ mode: 'inline' });
    expect(shown).toEqual(['fullscreen', 'pip']);
  });

  it('keeps the app where it is without onRequestDisplayMode', async () => {
    const host = await startHost();
    const { app } = await startApp(host);
    expect(await app.requestDisplayMode({ mode: 'fullscreen' })).toMatchObject({ mode: 'inline' });
  });

  it('reports size changes', async () => {
    const host = await startHost();
    const { app } = await startApp(host);
    await app.sendSizeChanged({ width: 320, height: 180 });
    await vi.waitFor(() =>
      expect(host.options.onSizeChanged).toHaveBeenCalledWith({ width: 320, height: 180 }),
    );
  });

  it('ignores messages from any window but the frame', async () => {
    const host = await startHost();
    const stranger = { postMessage: vi.fn() } as unknown as Window;
    const initialize = {
      jsonrpc: '2.0',
      id: 99,
      method: 'ui/initialize',
      params: {
        appInfo: { name: 'stranger', version: '1' },
        appCapabilities: {},
        protocolVersion: '2026-01-26',
      },
    };
    window.dispatchEvent(new MessageEvent('message', { data: initialize, source: stranger }));
    await startApp(host);
    expect(methods(host.traffic, 'in').filter((method) => method === 'ui/initialize')).toHaveLength(1);
    expect(host.options.onInitialized).toHaveBeenCalledTimes(1);
    expect(host.options.onInitialized).toHaveBeenCalledWith({ name: 'reference-app', version: '2.0.0' });
  });

  it('asks an initialized app to tear down on close, then stops answering it', async () => {
    const host = await startHost();
    const { app } = await startApp(host);
    const teardown = vi.fn(async () => ({}));
    app.onteardown = teardown;
    await host.connection.close();
    expect(teardown).toHaveBeenCalledTimes(1);
    await expect(
      app.callServerTool({ name: 'add', arguments: { a: 1, b: 2 } }, { timeout: 200 }),
    ).rejects.toThrow(/timed out/i);
    expect(host.options.callTool).not.toHaveBeenCalled();
  });
});

describe('MCP App host with the fixture app', () => {
  /** Runs the fixture page's module script here, its `window.parent` being `parent`. */
  async function runFixtureApp(parent: Window): Promise<void> {
    const body = /<body>([\s\S]*?)<script type="module">/.exec(MCP_APP_VIEW_HTML)?.[1] ?? '';
    const script = /<script type="module">([\s\S]*?)<\/script>/.exec(MCP_APP_VIEW_HTML)?.[1] ?? '';
    document.body.innerHTML = body;
    const appWindow = { parent, addEventListener: window.addEventListener.bind(window) };
    // happy-dom never calls a ResizeObserver back; this one reports once, as a browser does on observe.
    class ReportingResizeObserver {
      constructor(private readonly callback: () => void) {}
      observe(): void {
        this.callback();
      }
    }
    const run = new Function('window', 'ResizeObserver', `return (async () => {${script}})();`);
    await run(appWindow, ReportingResizeObserver);
  }
  const text = (id: string): string => document.getElementById(id)?.textContent ?? '';

  it('completes the handshake and shows the tool input and result', async () => {
    const host = await startHost();
    await runFixtureApp(host.parent);
    await vi.waitFor(() =>
      expect(host.options.onInitialized).toHaveBeenCalledWith({ name: 'greeting-app', version: '1.0.0' }),
    );
    expect(text('host')).toBe(MCP_APP_HOST_INFO.name);
    expect(document.documentElement.dataset.theme).toBe('light');
    await vi.waitFor(() => expect(text('greeting')).toBe('Hello, Ada!'));
    expect(JSON.parse(text('input'))).toEqual({ name: 'Ada' });
    expect(JSON.parse(text('result'))).toEqual({ greeting: 'Hello, Ada!' });
    expect(host.options.onSizeChanged).toHaveBeenCalledWith({
      width: expect.any(Number),
      height: expect.any(Number),
    });
  });

  it('calls add through the host, sends a message and opens its link', async () => {
    const host = await startHost();
    await runFixtureApp(host.parent);
    document.getElementById('add')?.click();
    await vi.waitFor(() => expect(text('sum')).toBe('5'));
    expect(host.options.callTool).toHaveBeenCalledWith('add', { a: 2, b: 3 });
    document.getElementById('message')?.click();
    await vi.waitFor(() => expect(text('status')).toBe('message sent'));
    expect(host.options.onMessage).toHaveBeenCalledWith({
      role: 'user',
      content: [{ type: 'text', text: 'Hello from the greeting app' }],
    });
    document.getElementById('link')?.click();
    await vi.waitFor(() => expect(text('status')).toBe('link opened'));
    expect(host.options.onOpenLink).toHaveBeenCalledWith('https://example.com/greeting');
  });

  it('follows a theme change and answers the teardown', async () => {
    const host = await startHost();
    await runFixtureApp(host.parent);
    await vi.waitFor(() => expect(text('greeting')).toBe('Hello, Ada!'));
    host.connection.setHostContext({ theme: 'dark', displayMode: 'inline', locale: 'en-US' });
    await vi.waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));
    await host.connection.close();
    const answers = host.traffic.filter(
      (entry) => entry.direction === 'in' && entry.message.method === undefined,
    );
    const teardown = host.traffic.find((entry) => entry.message.method === 'ui/resource-teardown');
    expect(answers.map((entry) => entry.message)).toContainEqual({
      jsonrpc: '2.0',
      id: teardown?.message.id,
      result: {},
    });
  });
});

describe('MCP App policy', () => {
  it('denies everything but inline script and style and data images without declared domains', () => {
    expect(cspForMcpApp(undefined)).toBe(
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
        "img-src 'self' data:; font-src 'self'; media-src 'self' data:; connect-src 'none'; " +
        "frame-src 'none'; object-src 'none'; base-uri 'self'; form-action 'none'",
    );
    expect(cspForMcpApp({ ui: { csp: 'https://api.example.com' } })).toBe(cspForMcpApp(undefined));
  });

  it('adds resource domains to every fetch of page assets and connect domains to connect-src only', () => {
    const csp = cspForMcpApp({
      ui: {
        csp: { resourceDomains: ['https://cdn.example.com'], connectDomains: ['https://api.example.com'] },
      },
    });
    for (const directive of ['script-src', 'style-src', 'img-src', 'font-src', 'media-src']) {
      expect(csp).toMatch(new RegExp(`(^|; )${directive} [^;]*https://cdn\\.example\\.com(;|$)`));
    }
    expect(csp).toContain('; connect-src https://api.example.com;');
    expect(csp.match(/api\.example\.com/g)).toHaveLength(1);
  });

  it('drops declared values that would widen the policy or add directives', () => {
    const csp = cspForMcpApp({
      ui: {
        csp: { connectDomains: ['*', 'https:', "'unsafe-eval'", 'https://x.example.com; script-src *'] },
      },
    });
    expect(csp).toContain("connect-src 'none'");
    expect(csp).not.toMatch(/unsafe-eval|\*|x\.example\.com/);
  });
});

describe('MCP App helpers', () => {
  it("finds the app resource a tool's _meta names, new or legacy key", () => {
    expect(mcpAppResourceUri({ ui: { resourceUri: 'ui://greeting/app.html' } })).toBe(
      'ui://greeting/app.html',
    );
    expect(mcpAppResourceUri({ 'ui/resourceUri': 'ui://legacy/app.html' })).toBe('ui://legacy/app.html');
    expect(mcpAppResourceUri({ ui: { resourceUri: 'https://example.com/app.html' } })).toBeUndefined();
    expect(mcpAppResourceUri({ 'openai/outputTemplate': 'ui://widget/counter.html' })).toBeUndefined();
    expect(mcpAppResourceUri(undefined)).toBeUndefined();
  });

  it('tells http and https URLs from everything else', () => {
    expect(isHttpUrl('https://example.com')).toBe(true);
    expect(isHttpUrl('HTTP://EXAMPLE.COM/a')).toBe(true);
    expect(isHttpUrl('javascript:alert(1)')).toBe(false);
    expect(isHttpUrl('//example.com')).toBe(false);
  });
});
