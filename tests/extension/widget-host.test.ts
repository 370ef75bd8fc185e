import { describe, expect, it } from 'vitest';
import type { HostToWidgetMessage, WidgetGlobals } from '../../shared/widgets';
import {
  APPS_SDK_MODE_NAMES,
  clampHeight,
  contentHeightOf,
  declaresMcpApp,
  framedHtml,
  fromFrame,
  hostDisplayMode,
  type HostDisplayMode,
  INLINE_MAX_HEIGHT,
  isWebUrl,
  isJsonRpc,
  LINK_SCRIPT,
  mcpAppMessageText,
  MIN_FRAME_HEIGHT,
  outputTemplateOf,
  overflowNote,
  parseWidgetMessage,
  renderHtmlOf,
  RpcTraffic,
  storableState,
  storeRequest,
  themeOf,
  toolOutputOf,
  type TrafficEntry,
  widgetAccessRefusal,
  WidgetHost,
  type WidgetHostActions,
  widgetStateKey,
} from '../../extension/widgets/apps-sdk/widget-host';

describe('which tools have a widget', () => {
  it('takes a ui:// outputTemplate from _meta and nothing else', () => {
    expect(outputTemplateOf({ 'openai/outputTemplate': 'ui://widget/counter.html' })).toBe(
      'ui://widget/counter.html',
    );
    expect(outputTemplateOf({ 'openai/outputTemplate': 'https://example.com/w.html' })).toBeNull();
    expect(outputTemplateOf({ 'openai/outputTemplate': 42 })).toBeNull();
    expect(outputTemplateOf({ ui: { resourceUri: 'ui://x' } })).toBeNull();
    expect(outputTemplateOf(undefined)).toBeNull();
    expect(outputTemplateOf(null)).toBeNull();
  });
});

describe('what the panel stores for a widget', () => {
  it('keeps widget state per server and tool', () => {
    expect(widgetStateKey('widgets', 'counter')).toBe('widgetState:widgets:counter');
  });

  it('hands the widget structuredContent as toolOutput, else the whole result', () => {
    expect(toolOutputOf({ content: [], structuredContent: { count: 2 } })).toEqual({ count: 2 });
    const plain = { content: [{ type: 'text', text: 'hi' }] };
    expect(toolOutputOf(plain)).toBe(plain);
  });

  it('builds the store body from the run: input, output, the result _meta and the globals', () => {
    const body = storeRequest({
      serverId: 's',
      uri: 'ui://widget/counter.html',
      toolId: 'run-1',
      toolInput: { start: 4 },
      result: { content: [], structuredContent: { count: 5 }, _meta: { 'openai/widgetSessionId': 'x' } },
      globals: {
        theme: 'dark',
        locale: 'fr-FR',
        displayMode: 'inline',
        maxHeight: 640,
        widgetState: { a: 1 },
      },
    });
    expect(body).toEqual({
      serverId: 's',
      uri: 'ui://widget/counter.html',
      toolId: 'run-1',
      toolInput: { start: 4 },
      toolOutput: { count: 5 },
      toolResponseMetadata: { 'openai/widgetSessionId': 'x' },
      globals: {
        theme: 'dark',
        locale: 'fr-FR',
        displayMode: 'inline',
        maxHeight: 640,
        widgetState: { a: 1 },
      },
    });
  });

  it('leaves toolResponseMetadata out when the result has no _meta object', () => {
    const body = storeRequest({
      serverId: 's',
      uri: 'ui://w',
      toolId: 't',
      toolInput: {},
      result: { content: [], _meta: 'nope' },
      globals: {},
    });
    expect(body).not.toHaveProperty('toolResponseMetadata');
    expect(body.toolOutput).toEqual({ content: [], _meta: 'nope' });
  });

  it('leaves the globals out when there are none (an MCP App gets its context over the bridge)', () => {
    const body = storeRequest({
      serverId: 's',
      uri: 'ui://greeting/app.html',
      toolId: 't',
      toolInput: { name: 'Ada' },
      result: { content: [], structuredContent: { greeting: 'Hello, Ada!' } },
    });
    expect(body).toEqual({
      serverId: 's',
      uri: 'ui://greeting/app.html',
      toolId: 't',
      toolInput: { name: 'Ada' },
      toolOutput: { greeting: 'Hello, Ada!' },
    });
  });

  it('reads the theme from data-theme, light unless dark', () => {
    expect(themeOf('dark')).toBe('dark');
    expect(themeOf('light')).toBe('light');
    expect(themeOf(undefined)).toBe('light');
  });

  it('stores a JSON copy of the widget state and refuses what JSON cannot carry or what is too large', () => {
    expect(storableState({ clicks: 1, when: new Date(0) })).toEqual({
      clicks: 1,
      when: '1970-01-01T00:00:00.000Z',
    });
    expect(storableState(undefined)).toBeNull();
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => storableState(loop)).toThrow(/not JSON/);
    expect(() => storableState('x'.repeat(20), 10)).toThrow(
      /22 characters as JSON; the panel keeps up to 10/,
    );
  });
});

describe('checks on what a widget sends', () => {
  it('accepts a message only from the frame it names', () => {
    const frame = {} as Window;
    expect(fromFrame(frame, frame)).toBe(true);
    expect(fromFrame({}, frame)).toBe(false);
    expect(fromFrame(null, frame)).toBe(false);
    expect(fromFrame(null, null)).toBe(false);
    expect(fromFrame(undefined, undefined)).toBe(false);
  });

  it('parses the six widget messages and copies only their known fields', () => {
    expect(
      parseWidgetMessage({
        type: 'openai:callTool',
        requestId: 'r1',
        toolName: 'counter',
        params: { a: 1 },
        x: 1,
      }),
    ).toEqual({ type: 'openai:callTool', requestId: 'r1', toolName: 'counter', params: { a: 1 } });
    expect(parseWidgetMessage({ type: 'openai:callTool', requestId: 'r1', toolName: 'counter' })).toEqual({
      type: 'openai:callTool',
      requestId: 'r1',
      toolName: 'counter',
      params: {},
    });
    expect(parseWidgetMessage({ type: 'openai:sendFollowupTurn', message: 'hi' })).toEqual({
      type: 'openai:sendFollowupTurn',
      message: 'hi',
    });
    expect(parseWidgetMessage({ type: 'openai:setWidgetState', state: null })).toEqual({
      type: 'openai:setWidgetState',
      state: null,
    });
    expect(parseWidgetMessage({ type: 'openai:requestDisplayMode', mode: 'pip' })).toEqual({
      type: 'openai:requestDisplayMode',
      mode: 'pip',
    });
    expect(parseWidgetMessage({ type: 'openai:openExternal', href: 'https://a.example' })).toEqual({
      type: 'openai:openExternal',
      href: 'https://a.example',
    });
    expect(parseWidgetMessage({ type: 'openai:notifyIntrinsicHeight', height: 120 })).toEqual({
      type: 'openai:notifyIntrinsicHeight',
      height: 120,
    });
  });

  it('rejects unknown types, host types and messages missing what their type needs', () => {
    const rejected: unknown[] = [
      null,
      'openai:callTool',
      [],
      { type: 'openai:readToken' },
      { type: 'inspector:render', html: '<p>' },
      { type: 'openai:set_globals', globals: {} },
      { type: 'openai:callTool:result', requestId: 'r', result: {} },
      { type: 'openai:callTool', requestId: '', toolName: 'x' },
      { type: 'openai:callTool', requestId: 'r', toolName: 7 },
      { type: 'openai:callTool', requestId: 'r', toolName: 'x', params: [1] },
      { type: 'openai:sendFollowupTurn', message: 3 },
      { type: 'openai:setWidgetState' },
      { type: 'openai:requestDisplayMode', mode: 'everywhere' },
      { type: 'openai:openExternal' },
      { type: 'openai:notifyIntrinsicHeight', height: Number.POSITIVE_INFINITY },
      { type: 'openai:notifyIntrinsicHeight', height: '100' },
    ];
    for (const data of rejected) expect(parseWidgetMessage(data), JSON.stringify(data)).toBeNull();
  });

  it('opens http and https links only', () => {
    expect(isWebUrl('https://example.com/docs')).toBe(true);
    expect(isWebUrl('http://localhost:3000/')).toBe(true);
    for (const href of [
      'javascript:alert(1)',
      'data:text/html,<p>',
      'file:///etc/passwd',
      'chrome-extension://abc/options.html',
      'about:blank',
      '/relative',
      '',
      42,
    ]) {
      expect(isWebUrl(href), String(href)).toBe(false);
    }
  });

  it('keeps a reported height within bounds', () => {
    expect(clampHeight(5, INLINE_MAX_HEIGHT)).toBe(MIN_FRAME_HEIGHT);
    expect(clampHeight(300.4, INLINE_MAX_HEIGHT)).toBe(300);
    expect(clampHeight(10_000, INLINE_MAX_HEIGHT)).toBe(INLINE_MAX_HEIGHT);
  });

  it('places fullscreen as the modal and pip as the sidebar', () => {
    expect(hostDisplayMode('inline')).toBe('inline');
    expect(hostDisplayMode('modal')).toBe('modal');
    expect(hostDisplayMode('sidebar')).toBe('sidebar');
    expect(hostDisplayMode('fullscreen')).toBe('modal');
    expect(hostDisplayMode('pip')).toBe('sidebar');
  });
});

describe('the sandbox page render check', () => {
  const parent = {} as Window;
  const self = {} as Window;

  it('takes the HTML of a render message from the framing window', () => {
    expect(
      renderHtmlOf({ source: parent, data: { type: 'inspector:render', html: '<p>w</p>' } }, parent, self),
    ).toBe('<p>w</p>');
  });

  it('ignores other senders, a page that is not framed, and other shapes', () => {
    const render = { type: 'inspector:render', html: '<p>w</p>' };
    expect(renderHtmlOf({ source: self, data: render }, parent, self)).toBeNull();
    expect(renderHtmlOf({ source: null, data: render }, parent, self)).toBeNull();
    expect(renderHtmlOf({ source: self, data: render }, self, self)).toBeNull();
    expect(
      renderHtmlOf({ source: parent, data: { type: 'inspector:render', html: 1 } }, parent, self),
    ).toBeNull();
    expect(renderHtmlOf({ source: parent, data: { type: 'openai:set_globals' } }, parent, self)).toBeNull();
    expect(renderHtmlOf({ source: parent, data: '<p>w</p>' }, parent, self)).toBeNull();
  });
});

describe('the page a frame gets', () => {
  it('adds the link script to an Apps-SDK page only', () => {
    expect(framedHtml('<p>w</p>', 'apps-sdk')).toBe(`<p>w</p>${LINK_SCRIPT}`);
    expect(framedHtml('<p>w</p>', 'mcp-app')).toBe('<p>w</p>');
  });
});

/**
 * A host whose actions record what they were asked, with answers set per test. Its clock moves a
 * millisecond a reading unless `tick` says otherwise.
 */
function recordingHost(overrides: Partial<WidgetHostActions> = {}, tick = 1) {
  const posted: HostToWidgetMessage[] = [];
  const traffic: TrafficEntry[] = [];
  const followups: string[] = [];
  const states: unknown[] = [];
  const modes: HostDisplayMode[] = [];
  const opened: string[] = [];
  const heights: number[] = [];
  const calls: Array<[string, Record<string, unknown>]> = [];
  let clock = 1000;
  const actions: WidgetHostActions = {
    post: (message) => posted.push(message),
    callTool: async (name, params) => {
      calls.push([name, params]);
      return { content: [], structuredContent: { count: 2 } };
    },
    followup: (message) => followups.push(message),
    saveState: (state) => {
      states.push(state);
    },
    showMode: (mode): Partial<WidgetGlobals> => {
      modes.push(mode);
      return { displayMode: mode, maxHeight: 500 };
    },
    openExternal: (href) => {
      opened.push(href);
      return 'opened';
    },
    resize: (height) => heights.push(height),
    traffic: (entry) => traffic.push(entry),
    ...overrides,
  };
  const host = new WidgetHost(actions, () => (clock += tick) - tick);
  return { host, posted, traffic, followups, states, modes, opened, heights, calls };
}

describe('WidgetHost', () => {
  it('refuses a callTool the tools do not allow widgets, without running it', async () => {
    const tools = [
      { name: 'counter', _meta: { 'openai/widgetAccessible': true } },
      { name: 'private', _meta: { 'openai/widgetAccessible': 'yes' } },
      { name: 'bare' },
    ];
    const h = recordingHost({ mayCall: (name) => widgetAccessRefusal(name, tools) });
    for (const toolName of ['private', 'bare', 'unlisted', 'counter']) {
      await h.host.receive({ type: 'openai:callTool', requestId: toolName, toolName, params: {} });
    }
    expect(h.calls).toEqual([['counter', {}]]);
    const errors = h.posted.map((m) => ('error' in m ? m.error : 'ran'));
    expect(errors).toEqual([
      'The tool "private" may not be called from a widget: ChatGPT runs a widget\'s callTool only for a tool whose _meta["openai/widgetAccessible"] is true',
      'The tool "bare" may not be called from a widget: ChatGPT runs a widget\'s callTool only for a tool whose _meta["openai/widgetAccessible"] is true',
      'The widget called the tool "unlisted", which the server does not list',
      'ran',
    ]);
    // The traffic view says so on each answer the widget got: refused, or run.
    const answers = h.traffic.filter((entry) => entry.type === 'openai:callTool:result');
    expect(answers.map((entry) => entry.note)).toEqual([
      `refused: ${errors[0]}`,
      `refused: ${errors[1]}`,
      `refused: ${errors[2]}`,
      undefined,
    ]);
    // Before the tools are known, every call runs.
    expect(widgetAccessRefusal('bare', undefined)).toBeUndefined();
  });

  it('runs a callTool and answers with the result under the same requestId', async () => {
    const h = recordingHost();
    await h.host.receive({
      type: 'openai:callTool',
      requestId: 'r1',
      toolName: 'counter',
      params: { start: 1 },
    });
    expect(h.calls).toEqual([['counter', { start: 1 }]]);
    expect(h.posted).toEqual([
      {
        type: 'openai:callTool:result',
        requestId: 'r1',
        result: { content: [], structuredContent: { count: 2 } },
      },
    ]);
    expect(h.traffic.map((e) => [e.seq, e.at, e.direction, e.type])).toEqual([
      [1, 1000, 'in', 'openai:callTool'],
      [2, 1001, 'out', 'openai:callTool:result'],
    ]);
  });

  it('answers a failed callTool with the error message', async () => {
    const h = recordingHost({
      callTool: async () => {
        throw new Error('Another tool call is running');
      },
    });
    await h.host.receive({ type: 'openai:callTool', requestId: 'r2', toolName: 'counter', params: {} });
    expect(h.posted).toEqual([
      { type: 'openai:callTool:result', requestId: 'r2', error: 'Another tool call is running' },
    ]);
    expect(h.traffic.at(-1)?.note).toBe('error: Another tool call is running');
  });

  it('passes follow-up messages, widget state and heights on', async () => {
    const h = recordingHost();
    await h.host.receive({ type: 'openai:sendFollowupTurn', message: 'more please' });
    await h.host.receive({ type: 'openai:setWidgetState', state: { clicks: 3 } });
    await h.host.receive({ type: 'openai:notifyIntrinsicHeight', height: 180 });
    expect(h.followups).toEqual(['more please']);
    expect(h.states).toEqual([{ clicks: 3 }]);
    expect(h.heights).toEqual([180]);
    expect(h.posted).toEqual([]);
  });

  it("passes the bridge's content height on without listing it in the traffic, and ignores a bad one", async () => {
    const measured: number[] = [];
    const h = recordingHost({ measured: (height) => measured.push(height) });
    await h.host.receive({ type: 'inspector:contentHeight', height: 712 });
    for (const height of [-1, Number.NaN, Number.POSITIVE_INFINITY, '712', undefined]) {
      await h.host.receive({ type: 'inspector:contentHeight', height });
    }
    expect(measured).toEqual([712]);
    // The bad ones are listed as ignored messages from the frame, as any unknown message is.
    expect(h.traffic).toHaveLength(5);
    expect(h.traffic.every((entry) => entry.ignored === true)).toBe(true);
    expect(h.heights).toEqual([]);
  });

  it('notes a widget state that could not be saved', async () => {
    const h = recordingHost({
      saveState: () => {
        throw new Error('too large');
      },
    });
    await h.host.receive({ type: 'openai:setWidgetState', state: 'x' });
    expect(h.traffic).toEqual([
      expect.objectContaining({ type: 'openai:setWidgetState', note: 'not saved: too large' }),
    ]);
  });

  it('switches the display mode a widget asks for and tells it the new globals', async () => {
    const h = recordingHost();
    await h.host.receive({ type: 'openai:requestDisplayMode', mode: 'fullscreen' });
    expect(h.modes).toEqual(['modal']);
    expect(h.posted).toEqual([
      { type: 'openai:set_globals', globals: { displayMode: 'modal', maxHeight: 500 } },
    ]);
  });

  it('hands the action the mode the widget asked for, so the widget reads its own name back', async () => {
    const asked: Array<[string, string | undefined]> = [];
    const h = recordingHost({
      showMode: (mode, requested) => {
        asked.push([mode, requested]);
        return { displayMode: requested ?? APPS_SDK_MODE_NAMES[mode] };
      },
    });
    await h.host.receive({ type: 'openai:requestDisplayMode', mode: 'pip' });
    h.host.showMode('modal');
    expect(asked).toEqual([
      ['sidebar', 'pip'],
      ['modal', undefined],
    ]);
    expect(h.posted).toEqual([
      { type: 'openai:set_globals', globals: { displayMode: 'pip' } },
      { type: 'openai:set_globals', globals: { displayMode: 'fullscreen' } },
    ]);
  });

  it('tells the widget when the host switches the mode or its globals change', () => {
    const h = recordingHost();
    h.host.showMode('sidebar');
    h.host.setGlobals({ theme: 'dark' });
    expect(h.posted).toEqual([
      { type: 'openai:set_globals', globals: { displayMode: 'sidebar', maxHeight: 500 } },
      { type: 'openai:set_globals', globals: { theme: 'dark' } },
    ]);
    expect(h.traffic.map((e) => e.direction)).toEqual(['out', 'out']);
  });

  it('opens http(s) links and refuses any other, saying so in the traffic', async () => {
    const h = recordingHost();
    await h.host.receive({ type: 'openai:openExternal', href: 'https://example.com/docs' });
    await h.host.receive({ type: 'openai:openExternal', href: 'javascript:alert(1)' });
    expect(h.opened).toEqual(['https://example.com/docs']);
    expect(h.traffic[0]).toMatchObject({ note: 'opened: in a new tab, as the user chose' });
    expect(h.traffic[1]).toMatchObject({ note: 'refused: only http and https links open' });
  });

  it('shows a link the user dismissed, or that came while another waited, once they answered', async () => {
    let answer: (value: 'dismissed') => void = () => undefined;
    const asked = new Promise<'dismissed'>((resolve) => (answer = resolve));
    const answers = [asked, 'busy' as const];
    const h = recordingHost({ openExternal: () => answers.shift()! });
    const first = h.host.receive({ type: 'openai:openExternal', href: 'https://example.com/a' });
    await h.host.receive({ type: 'openai:openExternal', href: 'https://example.com/b' });
    expect(h.traffic).toEqual([
      expect.objectContaining({
        data: { type: 'openai:openExternal', href: 'https://example.com/b' },
        note: 'refused: another link the widget asked for waits for the user',
      }),
    ]);
    answer('dismissed');
    await first;
    expect(h.traffic[1]).toMatchObject({
      at: 1000,
      data: { type: 'openai:openExternal', href: 'https://example.com/a' },
      note: 'dismissed: the user did not open it',
    });
  });

  it('numbers a link when it is asked, before the ones refused while it waits, though they share its millisecond', async () => {
    let answer: (value: 'dismissed') => void = () => undefined;
    const asked = new Promise<'dismissed'>((resolve) => (answer = resolve));
    const answers = [asked, 'busy' as const, 'busy' as const];
    const { host, traffic } = recordingHost({ openExternal: () => answers.shift()! }, 0);
    const first = host.receive({ type: 'openai:openExternal', href: 'https://example.com/a' });
    await host.receive({ type: 'openai:openExternal', href: 'https://example.com/b' });
    await host.receive({ type: 'openai:openExternal', href: 'https://example.com/c' });
    answer('dismissed');
    await first;
    const hrefs = (list: TrafficEntry[]) => list.map((entry) => (entry.data as { href: string }).href);
    expect(hrefs(traffic)).toEqual([
      'https://example.com/b',
      'https://example.com/c',
      'https://example.com/a',
    ]);
    expect(hrefs([...traffic].sort((a, b) => a.seq - b.seq))).toEqual([
      'https://example.com/a',
      'https://example.com/b',
      'https://example.com/c',
    ]);
  });

  it('acts on no unknown message but shows it as ignored', async () => {
    const h = recordingHost();
    await h.host.receive({ type: 'openai:readToken' });
    await h.host.receive('just a string');
    await h.host.receive({ type: 'openai:callTool', toolName: 'counter' });
    expect(h.calls).toEqual([]);
    expect(h.posted).toEqual([]);
    expect(h.traffic.map((e) => [e.type, e.ignored])).toEqual([
      ['openai:readToken', true],
      ['(no type)', true],
      ['openai:callTool', true],
    ]);
  });
});

describe('MCP Apps in the panel', () => {
  it('tells which tools name an app resource, new or legacy key, without the SDK', () => {
    expect(declaresMcpApp({ ui: { resourceUri: 'ui://greeting/app.html' } })).toBe(true);
    expect(declaresMcpApp({ 'ui/resourceUri': 'ui://greeting/app.html' })).toBe(true);
    // Not validated here: mcpAppResourceUri decides once the host module is loaded.
    expect(declaresMcpApp({ ui: { resourceUri: 'https://example.com/app.html' } })).toBe(true);
    expect(declaresMcpApp({ ui: { visibility: ['app'] } })).toBe(false);
    expect(declaresMcpApp({ 'openai/outputTemplate': 'ui://widget/counter.html' })).toBe(false);
    expect(declaresMcpApp({ ui: 'ui://greeting/app.html' })).toBe(false);
    expect(declaresMcpApp(undefined)).toBe(false);
    expect(declaresMcpApp(null)).toBe(false);
  });

  it('turns ui/message content into the follow-up text, other blocks named by type', () => {
    expect(mcpAppMessageText({ role: 'user', content: [{ type: 'text', text: 'Hello' }] })).toBe('Hello');
    expect(
      mcpAppMessageText({
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          'odd',
          { type: 'text', text: 'there' },
        ],
      }),
    ).toBe('Look:\n[image]\n[content]\nthere');
    expect(mcpAppMessageText({ role: 'user' })).toBe('');
    expect(mcpAppMessageText(null)).toBe('');
  });

  it('knows JSON-RPC by its envelope', () => {
    expect(isJsonRpc({ jsonrpc: '2.0', method: 'ping', id: 1 })).toBe(true);
    expect(isJsonRpc({ jsonrpc: '1.0', method: 'ping' })).toBe(false);
    expect(isJsonRpc({ type: 'openai:callTool' })).toBe(false);
    expect(isJsonRpc('{"jsonrpc":"2.0"}')).toBe(false);
    expect(isJsonRpc(null)).toBe(false);
  });
});

describe('RpcTraffic', () => {
  const at = 1_700_000_000_000;
  const traffic = () => new RpcTraffic(() => at);

  it('shows requests and notifications by method and each answer by its request, both ways', () => {
    const log = traffic();
    const init = { jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {} };
    const entries = [
      log.entry('in', init),
      log.entry('out', { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2026-01-26' } }),
      log.entry('in', { jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} }),
      // The host's own request with the same id as one of the app's: told apart by direction.
      log.entry('out', { jsonrpc: '2.0', id: 1, method: 'ui/resource-teardown', params: {} }),
      log.entry('in', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add' } }),
      log.entry('in', { jsonrpc: '2.0', id: 1, result: {} }),
      log.entry('out', { jsonrpc: '2.0', id: 2, result: { content: [], structuredContent: { sum: 5 } } }),
    ];
    expect(entries.map((e) => `${e.seq} ${e.direction} ${e.type}`)).toEqual([
      '1 in ui/initialize',
      '2 out ui/initialize:result',
      '3 in ui/notifications/initialized',
      '4 out ui/resource-teardown',
      '5 in tools/call',
      '6 in ui/resource-teardown:result',
      '7 out tools/call:result',
    ]);
    expect(entries[0]).toEqual({ seq: 1, at, direction: 'in', type: 'ui/initialize', data: init });
    expect(entries.some((e) => e.note !== undefined || e.ignored)).toBe(false);
  });

  it('notes errors, links opened or not, and tool errors', () => {
    const log = traffic();
    log.entry('in', { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: {} });
    expect(
      log.entry('out', { jsonrpc: '2.0', id: 'a', error: { code: -32602, message: 'Unknown tool: nope' } }),
    ).toMatchObject({ type: 'tools/call:error', note: 'error: Unknown tool: nope' });
    log.entry('in', { jsonrpc: '2.0', id: 'b', method: 'ui/open-link', params: { url: 'javascript:1' } });
    expect(log.entry('out', { jsonrpc: '2.0', id: 'b', result: { isError: true } })).toMatchObject({
      type: 'ui/open-link:result',
      note: 'not opened: dismissed by the user, or not an http or https link',
    });
    log.entry('in', {
      jsonrpc: '2.0',
      id: 'd',
      method: 'ui/open-link',
      params: { url: 'https://a.example' },
    });
    expect(log.entry('out', { jsonrpc: '2.0', id: 'd', result: {} })).toMatchObject({
      type: 'ui/open-link:result',
      note: 'opened: in a new tab, as the user chose',
    });
    log.entry('in', { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: {} });
    expect(
      log.entry('out', { jsonrpc: '2.0', id: 'c', result: { content: [], isError: true } }),
    ).toMatchObject({
      type: 'tools/call:result',
      note: 'error: the result is marked isError',
    });
  });

  it('names an answer to no known request, and forgets a request once answered', () => {
    const log = traffic();
    expect(log.entry('out', { jsonrpc: '2.0', id: 9, result: {} }).type).toBe('(unknown request):result');
    log.entry('in', { jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(log.entry('out', { jsonrpc: '2.0', id: 3, result: {} }).type).toBe('ping:result');
    expect(log.entry('out', { jsonrpc: '2.0', id: 3, result: {} }).type).toBe('(unknown request):result');
  });

  it('marks what is not JSON-RPC as ignored', () => {
    const log = traffic();
    expect(log.ignored({ type: 'openai:callTool' })).toEqual({
      seq: 1,
      at,
      direction: 'in',
      type: 'openai:callTool',
      data: { type: 'openai:callTool' },
      ignored: true,
    });
    expect(log.entry('in', 'hello')).toMatchObject({ seq: 2, type: '(no type)', ignored: true });
  });
});

describe('contentHeightOf', () => {
  it('reads a finite height of zero or more from the bridge measure, and nothing else', () => {
    expect(contentHeightOf({ type: 'inspector:contentHeight', height: 0 })).toBe(0);
    expect(contentHeightOf({ type: 'inspector:contentHeight', height: 515.5 })).toBe(515.5);
    expect(contentHeightOf({ type: 'openai:notifyIntrinsicHeight', height: 515 })).toBeNull();
    expect(contentHeightOf({ type: 'inspector:contentHeight', height: -3 })).toBeNull();
    expect(contentHeightOf([{ type: 'inspector:contentHeight', height: 3 }])).toBeNull();
    expect(contentHeightOf('inspector:contentHeight')).toBeNull();
  });
});

describe('overflowNote', () => {
  it('says nothing while the content fits the frame, or when it is not known', () => {
    expect(overflowNote(null, 300, 300)).toBeNull();
    expect(overflowNote(300, 300, 300)).toBeNull();
    // A pixel of rounding is not an overflow.
    expect(overflowNote(301, 300, 300)).toBeNull();
    expect(overflowNote(120, 300, 300)).toBeNull();
  });

  it('names the content height, the height reported and the call that would fit it', () => {
    expect(overflowNote(712, 290, 290, 800)).toBe(
      "The widget's content is 712 px tall, but it last reported 290 px with notifyIntrinsicHeight: the rest " +
        'scrolls inside the frame. The host sizes the frame by what the widget reports; call ' +
        'notifyIntrinsicHeight(712) whenever its content changes height (a new width included).',
    );
  });

  it('tells a widget that reported no height about the default frame', () => {
    expect(overflowNote(500, null, 240)).toContain(
      'reported no height with notifyIntrinsicHeight, so the frame has the default 240 px',
    );
  });

  it('says what the most an inline frame has is when the content is taller still', () => {
    expect(overflowNote(2000, 290, 290, 640)).toContain(
      'reporting 2000 px would give it the most an inline frame has, 640 px',
    );
  });

  it('says nothing once the frame is as tall as an inline frame may be', () => {
    expect(overflowNote(2000, 900, 640, 640)).toBeNull();
  });
});
