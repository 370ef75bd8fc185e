/**
 * The Page view in happy-dom, fed by a stand-in `chrome.devtools.network.onRequestFinished` (the real
 * one exists only in DevTools; the e2e test drives that): the rows, the filter, an expanded row's HTTP
 * line with the names (never the values) of the headers it would carry, and the words shown outside
 * DevTools.
 */
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import PageTrafficView from '../../extension/page/PageTrafficView.vue';
import { type FinishedRequest, usePageTrafficStore } from '../../extension/page/page-traffic-store';

type Listener = (request: FinishedRequest) => void;

function standInNetwork(): Listener {
  const listeners = new Set<Listener>();
  vi.stubGlobal('chrome', {
    devtools: {
      network: {
        onRequestFinished: {
          addListener: (listener: Listener) => listeners.add(listener),
          removeListener: (listener: Listener) => listeners.delete(listener),
        },
      },
    },
  });
  return (request) => listeners.forEach((listener) => listener(request));
}

function finished(sent: object, answerText: string, mimeType: string): FinishedRequest {
  return {
    startedDateTime: '2026-11-24T16:00:00.000Z',
    time: 25,
    request: {
      method: 'POST',
      url: 'https://app.example.test/mcp',
      headers: [
        { name: 'Authorization', value: 'Bearer view-secret' },
        { name: 'Cookie', value: 'sid=cookie-secret' },
        { name: 'Content-Type', value: 'application/json' },
      ],
      postData: { mimeType: 'application/json', text: JSON.stringify(sent) },
    },
    response: {
      status: 200,
      statusText: 'OK',
      headers: [
        { name: 'Content-Type', value: mimeType },
        { name: 'Mcp-Session-Id', value: 'view-session' },
      ],
      content: { mimeType },
    },
    getContent: (callback) => callback?.(answerText, ''),
  };
}

beforeEach(() => {
  setActivePinia(createPinia());
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Page view', () => {
  it('says plainly that page traffic is only visible in DevTools', () => {
    vi.stubGlobal('chrome', { runtime: {} });
    vi.stubGlobal('browser', { runtime: {} });
    const wrapper = mount(PageTrafficView);
    expect(wrapper.find('[data-testid="page-unavailable"]').text()).toContain('only visible in DevTools');
    expect(wrapper.find('[data-testid="page-row"]').exists()).toBe(false);
  });

  it('lists the calls, filters them, and opens one on its HTTP exchange without header values', async () => {
    const fire = standInNetwork();
    const wrapper = mount(PageTrafficView);
    expect(wrapper.find('[data-testid="page-empty"]').text()).toContain('No MCP traffic from this page yet');

    fire(
      finished(
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [] } }),
        'application/json',
      ),
    );
    fire(
      finished(
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } },
        `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\n` +
          `data: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"<b>done</b>"}]}}\n\n`,
        'text/event-stream',
      ),
    );
    await usePageTrafficStore().settled();
    await flushPromises();
    const methods = () =>
      wrapper.findAll('[data-testid="page-row"]').map((row) => row.attributes('data-method'));
    expect(methods()).toEqual(['tools/list', 'tools/call', 'notifications/progress']);
    expect(wrapper.find('[data-testid="page-count"]').text()).toBe('3 rows');

    await wrapper.find('[data-testid="page-filter"]').setValue('call');
    expect(methods()).toEqual(['tools/call']);
    expect(wrapper.find('[data-testid="page-count"]').text()).toBe('1 of 3 rows');

    await wrapper.find('[data-testid="page-row"] .summary').trigger('click');
    const row = wrapper.find('[data-testid="page-row"]');
    expect(row.find('[data-testid="log-detail"]').text()).toContain('<b>done</b>');
    expect(row.find('b').exists()).toBe(false);
    const http = row.find('[data-testid="page-http"]').text();
    expect(http).toContain('POST https://app.example.test/mcp → 200 OK · event stream · Streamable HTTP');
    expect(http).toContain('Carries the headers Authorization (values hidden');
    expect(wrapper.html()).not.toContain('view-secret');
    expect(wrapper.html()).not.toContain('cookie-secret');
    expect(wrapper.html()).not.toContain('view-session');
    expect(row.find('[data-testid="page-add-server"]').exists()).toBe(true);

    await wrapper.find('[data-testid="page-clear"]').trigger('click');
    expect(wrapper.findAll('[data-testid="page-row"]')).toHaveLength(0);
    expect(wrapper.find('[data-testid="page-export"]').attributes('disabled')).toBeDefined();
  });
});
