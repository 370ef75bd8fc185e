/**
 * The WebMCP view and the replay beside a page's answer, in happy-dom. The page is reached through a
 * stand-in `devtools.inspectedWindow.eval` evaluating here, where a stand-in `document.modelContext`
 * holds the tools (the e2e test drives the real ones). What the page sends is shown as text.
 */
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import PageReplay from '../../extension/page/PageReplay.vue';
import WebMcpView from '../../extension/webmcp/WebMcpView.vue';
import { useWebMcpStore } from '../../extension/webmcp/webmcp-store';
import { installModelContext, StandInModelContext, stubInspectedWindow } from './webmcp-stand-in';

beforeEach(() => {
  setActivePinia(createPinia());
});
afterEach(() => {
  vi.unstubAllGlobals();
  installModelContext(undefined);
});

describe('the WebMCP view', () => {
  it('says where WebMCP tools come from outside DevTools, and why a page has none', async () => {
    vi.stubGlobal('chrome', { runtime: {} });
    vi.stubGlobal('browser', undefined);
    const outside = mount(WebMcpView);
    expect(outside.get('[data-testid="webmcp-state"]').text()).toContain('only');
    expect(outside.get('[data-testid="webmcp-state"]').attributes('data-state')).toBe('outside');
    outside.unmount();

    setActivePinia(createPinia());
    stubInspectedWindow();
    installModelContext(undefined);
    const absent = mount(WebMcpView);
    await useWebMcpStore().poll();
    await flushPromises();
    expect(absent.get('[data-testid="webmcp-state"]').attributes('data-state')).toBe('absent');
    expect(absent.text()).toContain('has no WebMCP');
  });

  it("lists the page's tools as text, runs one and shows its result", async () => {
    stubInspectedWindow();
    const context = new StandInModelContext();
    installModelContext(context);
    context.registerTool({
      name: 'greet',
      title: '<b>Greeter</b>',
      description: '<img src=x onerror="globalThis.pwned=1">',
      inputSchema: { type: 'object', properties: { who: { type: 'string' } } },
      annotations: { readOnlyHint: true, untrustedContentHint: false },
      execute: (args) => ({ content: [{ type: 'text', text: `hello ${String(args.who)}` }] }),
    });
    const view = mount(WebMcpView);
    const webmcp = useWebMcpStore();
    await vi.waitFor(async () => {
      await webmcp.poll();
      expect(webmcp.tools).toHaveLength(1);
    });
    await flushPromises();
    expect(view.findAll('[data-testid="webmcp-tool"]').map((li) => li.attributes('data-tool'))).toEqual([
      'greet',
    ]);
    // Shown as text, never as markup.
    expect(view.get('[data-testid="webmcp-heading"]').text()).toContain('<b>Greeter</b>');
    expect(view.get('[data-testid="webmcp-description"]').text()).toBe(
      '<img src=x onerror="globalThis.pwned=1">',
    );
    expect(view.find('img').exists()).toBe(false);
    expect(view.findAll('[data-testid="webmcp-hints"] li').map((li) => li.text())).toEqual(['readOnlyHint']);

    await view.get('[data-testid="field-who"]').setValue('panel');
    await view.get('[data-testid="webmcp-run"]').trigger('click');
    await vi.waitFor(async () => {
      await webmcp.poll();
      await flushPromises();
      expect(view.find('[data-testid="webmcp-result"]').exists()).toBe(true);
    });
    expect(view.get('[data-testid="webmcp-result"]').text()).toContain('hello panel');
    expect(view.get('[data-testid="run-status"]').attributes('data-state')).toBe('completed');
  });
});

describe("the replay beside the page's answer", () => {
  const result = { content: [{ type: 'text', text: 'same' }] };

  it('says the answers are the same, or differ, and shows the daemon’s error with its status', () => {
    const same = mount(PageReplay, {
      props: {
        replay: {
          running: false,
          serverId: 'srv',
          ok: true,
          result: { content: [{ text: 'same', type: 'text' }] },
        },
        pageMessage: { jsonrpc: '2.0', id: 1, result },
      },
    });
    expect(same.get('[data-testid="page-replay-verdict"]').text()).toBe("Same answer as the page's.");
    expect(same.get('[data-testid="page-replay-daemon"]').text()).toContain('"same"');
    expect(same.text()).toContain('(srv)');

    const differs = mount(PageReplay, {
      props: {
        replay: { running: false, serverId: 'srv', ok: false, status: 502, error: 'Tool failed' },
        pageMessage: { jsonrpc: '2.0', id: 1, result },
      },
    });
    expect(differs.get('[data-testid="page-replay-verdict"]').text()).toContain('differs');
    expect(differs.get('[data-testid="page-replay-daemon"]').text()).toBe('HTTP 502: Tool failed');

    const running = mount(PageReplay, { props: { replay: { running: true } } });
    expect(running.find('[data-testid="page-replay-verdict"]').exists()).toBe(false);
    expect(running.get('[data-testid="page-replay-original"]').text()).toContain('no JSON-RPC answer');
    expect(running.get('[data-testid="page-replay-daemon"]').text()).toBe('Waiting for the daemon…');
  });
});
