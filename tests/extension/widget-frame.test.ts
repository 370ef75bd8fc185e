import { mount } from '@vue/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import WidgetFrame from '../../extension/widgets/WidgetFrame.vue';
import { localStorageStore } from '../../extension/app/key-value-store';
import { PLATFORM, type Platform } from '../../extension/app/platform';
import { LINK_SCRIPT } from '../../extension/widgets/apps-sdk/widget-host';

const PAGE = '<!doctype html><html><head></head><body><p id="w">widget</p></body></html>';

function platform(widgetSandboxUrl?: string): Platform {
  return {
    kind: widgetSandboxUrl ? 'extension' : 'web',
    store: localStorageStore(),
    defaultDaemonUrl: 'http://127.0.0.1:6274',
    hasHostAccess: async () => true,
    requestHostAccess: async () => true,
    ...(widgetSandboxUrl && { widgetSandboxUrl }),
  };
}

function frame(options: { sandboxUrl?: string; kind?: 'apps-sdk' | 'mcp-app'; height?: number | null } = {}) {
  return mount(WidgetFrame, {
    // happy-dom loads no page from a `src` (and says so loudly): the extension's frame stays detached.
    ...(!options.sandboxUrl && { attachTo: document.body }),
    props: {
      html: PAGE,
      kind: options.kind ?? 'apps-sdk',
      height: options.height ?? null,
      title: 'Widget of counter',
    },
    global: { provide: { [PLATFORM as symbol]: platform(options.sandboxUrl) } },
  });
}

function post(source: unknown, data: unknown): void {
  window.dispatchEvent(new MessageEvent('message', { data, source: source as Window }));
}

let wrapper: ReturnType<typeof frame> | undefined;
afterEach(() => {
  wrapper?.unmount();
  wrapper = undefined;
});

describe('WidgetFrame on the web page', () => {
  it('renders the page in a srcdoc frame sandboxed to scripts only, with the link script', () => {
    wrapper = frame({ height: 180 });
    const iframe = wrapper.get('iframe');
    expect(iframe.attributes('sandbox')).toBe('allow-scripts');
    expect(iframe.attributes('src')).toBeUndefined();
    expect(iframe.attributes('referrerpolicy')).toBe('no-referrer');
    expect(iframe.attributes('title')).toBe('Widget of counter');
    expect(iframe.attributes('data-kind')).toBe('apps-sdk');
    expect((iframe.element as HTMLIFrameElement).srcdoc).toBe(PAGE + LINK_SCRIPT);
    expect((iframe.element as HTMLIFrameElement).style.height).toBe('180px');
  });

  it('hands an MCP App page over as it is', () => {
    wrapper = frame({ kind: 'mcp-app' });
    expect((wrapper.get('iframe').element as HTMLIFrameElement).srcdoc).toBe(PAGE);
  });

  it('says the frame is ready with its window at mount', () => {
    wrapper = frame();
    const ready = wrapper.emitted('frameReady');
    expect(ready).toHaveLength(1);
    expect(ready![0]![0]).toBe((wrapper.get('iframe').element as HTMLIFrameElement).contentWindow);
  });

  it("emits the messages of its own frame's window and no other", () => {
    wrapper = frame();
    const own = (wrapper.get('iframe').element as HTMLIFrameElement).contentWindow;
    post(window, { type: 'openai:sendFollowupTurn', message: 'from the page itself' });
    post(null, { type: 'openai:sendFollowupTurn', message: 'from nowhere' });
    post({}, { type: 'openai:sendFollowupTurn', message: 'from another frame' });
    post(own, { type: 'openai:sendFollowupTurn', message: 'from the widget' });
    expect(wrapper.emitted('message')).toEqual([
      [{ type: 'openai:sendFollowupTurn', message: 'from the widget' }],
    ]);
  });

  it('stops listening once unmounted', () => {
    const got: unknown[] = [];
    const mounted = mount(WidgetFrame, {
      attachTo: document.body,
      props: { html: PAGE, kind: 'apps-sdk', onMessage: (data: unknown) => got.push(data) },
      global: { provide: { [PLATFORM as symbol]: platform() } },
    });
    const own = (mounted.get('iframe').element as HTMLIFrameElement).contentWindow;
    post(own, { type: 'openai:sendFollowupTurn', message: 'early' });
    mounted.unmount();
    post(own, { type: 'openai:sendFollowupTurn', message: 'late' });
    expect(got).toEqual([{ type: 'openai:sendFollowupTurn', message: 'early' }]);
  });
});

describe('WidgetFrame in the extension', () => {
  // happy-dom loads no extension page; about:blank stands in for the sandbox page.
  const SANDBOX = 'about:blank';

  it('loads the sandbox page, with no token or page in its address', () => {
    wrapper = frame({ sandboxUrl: SANDBOX });
    const iframe = wrapper.get('iframe');
    expect(iframe.attributes('src')).toBe(SANDBOX);
    expect(iframe.attributes('sandbox')).toBe('allow-scripts');
    expect(iframe.attributes('srcdoc')).toBeUndefined();
    expect(wrapper.emitted('frameReady')).toBeUndefined();
  });

  /** happy-dom gives a frame with a `src` no window: this one stands in and records what it is sent. */
  function frameWindow(element: Element): { sent: Array<[unknown, string]>; window: Window } {
    const sent: Array<[unknown, string]> = [];
    const stand = { postMessage: (message: unknown, origin: string) => sent.push([message, origin]) };
    Object.defineProperty(element, 'contentWindow', { value: stand, configurable: true });
    return { sent, window: stand as unknown as Window };
  }

  it('says the frame is ready, then posts the page once, when the sandbox has loaded', async () => {
    wrapper = frame({ sandboxUrl: SANDBOX });
    const { sent, window: target } = frameWindow(wrapper.get('iframe').element);
    await wrapper.get('iframe').trigger('load');
    // The widget's own page fires load again: nothing more is sent.
    await wrapper.get('iframe').trigger('load');
    expect(sent).toEqual([[{ type: 'inspector:render', html: PAGE + LINK_SCRIPT }, '*']]);
    expect(wrapper.emitted('frameReady')).toEqual([[target]]);
  });

  it('sends what the host posts to the frame window, and emits only what that window sends', () => {
    wrapper = frame({ sandboxUrl: SANDBOX });
    const { sent, window: target } = frameWindow(wrapper.get('iframe').element);
    (wrapper.vm as unknown as { post(message: unknown): void }).post({
      type: 'openai:set_globals',
      globals: {},
    });
    expect(sent).toEqual([[{ type: 'openai:set_globals', globals: {} }, '*']]);
    post(window, { type: 'openai:sendFollowupTurn', message: 'not the widget' });
    post(target, { type: 'openai:sendFollowupTurn', message: 'the widget' });
    expect(wrapper.emitted('message')).toEqual([
      [{ type: 'openai:sendFollowupTurn', message: 'the widget' }],
    ]);
  });
});
