import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import ToolsView from '../../extension/tools/ToolsView.vue';
import { localStorageStore } from '../../extension/app/key-value-store';
import { PLATFORM, type Platform } from '../../extension/app/platform';
import { type Tool, useToolsStore } from '../../extension/tools/tools-store';

const platform: Platform = {
  kind: 'web',
  store: localStorageStore(),
  defaultDaemonUrl: 'http://127.0.0.1:6274',
  requestHostAccess: async () => true,
  hasHostAccess: async () => true,
};

const tool = (name: string, description: string): Tool => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
});

describe('ToolsView', () => {
  beforeEach(() => setActivePinia(createPinia()));

  /** The view unpaired: listing fails, then the list is set as a server would have sent it. */
  async function mountView() {
    const wrapper = mount(ToolsView, {
      props: { serverId: 'everything' },
      global: { provide: { [PLATFORM as symbol]: platform } },
      attachTo: document.body,
    });
    onTestFinished(() => wrapper.unmount());
    await flushPromises();
    const store = useToolsStore();
    store.tools = [tool('echo', 'Echoes its text'), tool('add', 'Adds two numbers')];
    store.select('echo');
    await flushPromises();
    return { wrapper, store };
  }

  it('lists the tools and selects one by click, from anywhere in its row', async () => {
    const { wrapper, store } = await mountView();
    const add = wrapper.get('[data-testid="tool-add"]');
    expect(add.text()).toContain('Adds two numbers');
    expect(add.attributes('aria-selected')).toBe('false');
    await add.get('.split-item-desc').trigger('click');
    expect(store.selectedName).toBe('add');
    expect(add.attributes('aria-selected')).toBe('true');
    expect(wrapper.get('[data-testid="tool-title"]').text()).toBe('add');
  });

  it('selects a tool with Enter and ignores clicks between the rows', async () => {
    const { wrapper, store } = await mountView();
    await wrapper.get('[data-testid="tool-add"]').trigger('keydown', { key: 'Enter' });
    expect(store.selectedName).toBe('add');
    await wrapper.get('ul[aria-label="Tools"]').trigger('click');
    expect(store.selectedName).toBe('add');
  });
});
