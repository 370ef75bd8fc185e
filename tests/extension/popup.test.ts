import { createServer } from 'node:net';
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { ServerRecord } from '../../shared/servers';
import PopupApp from '../../extension/popup/PopupApp.vue';
import PopupPicker from '../../extension/popup/PopupPicker.vue';
import PopupResult from '../../extension/popup/PopupResult.vue';
import PopupStatus from '../../extension/popup/PopupStatus.vue';
import {
  LAST_CHOICE_KEY,
  pickServer,
  pickTool,
  readLastChoice,
  readSavedRequests,
  writeLastChoice,
} from '../../extension/popup/popup-storage';
import { extensionStore } from '../../extension/app/extension-store';
import { PLATFORM, type Platform } from '../../extension/app/platform';
import { useSavedRequestsStore } from '../../extension/saved-requests/saved-requests-store';
import { collectFailedFetches } from './failed-fetches';
import { answerPaths } from './support/fake-daemon';

const platform: Platform = {
  kind: 'extension',
  store: extensionStore(),
  defaultDaemonUrl: 'http://127.0.0.1:6274',
  requestHostAccess: async () => true,
  hasHostAccess: async () => true,
};

function server(id: string, status: ServerRecord['status']): ServerRecord {
  return { id, name: `${id} server`, status, config: { transport: 'stdio', command: 'node' } };
}

async function mountPopup(): Promise<VueWrapper> {
  const wrapper = mount(PopupApp, {
    global: { plugins: [createPinia()], provide: { [PLATFORM as symbol]: platform } },
    attachTo: document.body,
  });
  onTestFinished(() => wrapper.unmount());
  await flushPromises();
  return wrapper;
}

/** A local port nothing listens on: a daemon URL that refuses connections. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeEach(() => {
  fakeBrowser.reset();
  vi.restoreAllMocks();
  setActivePinia(createPinia());
});

describe('PopupApp without a daemon', () => {
  it('says it is not paired and opens the options page to pair', async () => {
    const openOptionsPage = vi.spyOn(fakeBrowser.runtime, 'openOptionsPage').mockResolvedValue();
    const wrapper = await mountPopup();

    expect(wrapper.get('[data-testid="popup-status"]').text()).toContain('Not paired with a daemon');
    expect(wrapper.get('[data-testid="popup-pair-hint"]').text()).toContain('npx inspector-daemon');
    expect(wrapper.find('[data-testid="popup-server"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="popup-run"]').attributes('disabled')).toBeDefined();

    await wrapper.get('[data-testid="popup-options"]').trigger('click');
    expect(openOptionsPage).toHaveBeenCalledOnce();
  });

  it('opens the full inspector in a new tab', async () => {
    const create = vi.spyOn(fakeBrowser.tabs, 'create');
    const wrapper = await mountPopup();

    await wrapper.get('[data-testid="popup-open-panel"]').trigger('click');
    expect(create).toHaveBeenCalledWith({ url: fakeBrowser.runtime.getURL('/devtools-panel.html') });
    expect(create.mock.calls[0]?.[0].url).toMatch(/^chrome-extension:\/\/[^/]+\/devtools-panel\.html$/);
  });

  it('explains a paired daemon that does not answer, with Retry and the options page', async () => {
    const failed = collectFailedFetches();
    const url = `http://127.0.0.1:${await closedPort()}`;
    await fakeBrowser.storage.local.set({ pairing: { url, token: 'token' } });
    const openOptionsPage = vi.spyOn(fakeBrowser.runtime, 'openOptionsPage').mockResolvedValue();
    const wrapper = await mountPopup();

    expect(wrapper.get('[data-testid="popup-problem"]').text()).toContain(`No daemon answers at ${url}`);
    expect(wrapper.find('[data-testid="popup-retry"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="popup-server"]').exists()).toBe(false);
    await wrapper.get('[data-testid="popup-options"]').trigger('click');
    expect(openOptionsPage).toHaveBeenCalledOnce();
    expect(failed.codes()).toEqual(['ECONNREFUSED']);
  });
});

describe('PopupStatus', () => {
  it('names the daemon version and URL once its health answered', () => {
    const wrapper = mount(PopupStatus, {
      props: { loaded: true, paired: true, url: 'http://127.0.0.1:6274', version: '0.1.0', problem: null },
    });
    expect(wrapper.get('[data-testid="popup-status"]').text()).toBe(
      '● daemon 0.1.0 at http://127.0.0.1:6274',
    );
    expect(wrapper.find('[data-testid="popup-options"]').exists()).toBe(false);
  });
});

describe('the last choice', () => {
  it('is kept in extension storage under popup:last and read back', async () => {
    expect(await readLastChoice(platform.store)).toBeNull();
    await writeLastChoice(platform.store, { serverId: 'everything', toolName: 'echo' });
    expect((await fakeBrowser.storage.local.get(LAST_CHOICE_KEY))[LAST_CHOICE_KEY]).toEqual({
      serverId: 'everything',
      toolName: 'echo',
    });
    expect(await readLastChoice(platform.store)).toEqual({ serverId: 'everything', toolName: 'echo' });
  });

  it('ignores a stored value of the wrong shape', async () => {
    await fakeBrowser.storage.local.set({ [LAST_CHOICE_KEY]: { serverId: 42, toolName: 'echo' } });
    expect(await readLastChoice(platform.store)).toBeNull();
    await fakeBrowser.storage.local.set({ [LAST_CHOICE_KEY]: { serverId: 'a', toolName: 7 } });
    expect(await readLastChoice(platform.store)).toEqual({ serverId: 'a' });
  });

  it('restores the server and tool when the daemon still has them, else falls back', () => {
    const servers = [server('off', 'disconnected'), server('on', 'connected'), server('last', 'error')];
    expect(pickServer(servers, { serverId: 'last', toolName: 'echo' })).toBe('last');
    expect(pickServer(servers, { serverId: 'removed' })).toBe('on');
    expect(pickServer(servers, null)).toBe('on');
    expect(pickServer([server('off', 'disconnected')], null)).toBe('off');
    expect(pickServer([], null)).toBeNull();

    const tools = [{ name: 'add' }, { name: 'echo' }];
    expect(pickTool(tools, 'echo')).toBe('echo');
    expect(pickTool(tools, 'gone')).toBe('add');
    expect(pickTool(tools, undefined)).toBe('add');
    expect(pickTool([], 'echo')).toBeNull();
  });

  it('shows the restored choice in the selects and reports a new one', async () => {
    const servers = [server('a', 'connected'), server('b', 'disconnected')];
    const tools = [{ name: 'add' }, { name: 'echo' }];
    await writeLastChoice(platform.store, { serverId: 'b', toolName: 'echo' });
    const last = await readLastChoice(platform.store);
    const wrapper = mount(PopupPicker, {
      props: {
        servers,
        serverId: pickServer(servers, last),
        tools,
        toolName: pickTool(tools, last?.toolName),
        saved: [],
        savedId: '',
      },
    });

    const serverSelect = wrapper.get('[data-testid="popup-server"]');
    expect((serverSelect.element as HTMLSelectElement).value).toBe('b');
    expect(serverSelect.text()).toContain('b server (disconnected)');
    expect((wrapper.get('[data-testid="popup-tool"]').element as HTMLInputElement).value).toBe('echo');
    expect(wrapper.find('[data-testid="popup-saved"]').exists()).toBe(false);

    await serverSelect.setValue('a');
    const search = wrapper.get('[data-testid="popup-tool"]');
    await search.trigger('focus');
    await search.setValue('ad');
    await search.trigger('keydown', { key: 'Enter' });
    expect(wrapper.emitted('server')).toEqual([['a']]);
    expect(wrapper.emitted('tool')).toEqual([['add', 0]]);
  });
});

describe('saved requests in the popup', () => {
  it('reads what the panel saved for the server, favourites first, and offers them', async () => {
    const panel = useSavedRequestsStore();
    await panel.load(platform.store, 'everything');
    const first = await panel.save({ title: 'Echo hi', toolName: 'echo', parameters: { message: 'hi' } });
    const second = await panel.save({ title: 'Add', toolName: 'add', parameters: { a: 1, b: 2 } });
    await panel.toggleFavorite(first.id);

    const saved = await readSavedRequests(platform.store, 'everything');
    expect(saved.map((r) => r.id)).toEqual([first.id, second.id]);
    expect(saved[1]?.parameters).toEqual({ a: 1, b: 2 });
    expect(await readSavedRequests(platform.store, 'other')).toEqual([]);

    const wrapper = mount(PopupPicker, {
      props: {
        servers: [server('everything', 'connected')],
        serverId: 'everything',
        tools: [{ name: 'add' }, { name: 'echo' }],
        toolName: 'add',
        saved,
        savedId: '',
      },
    });
    const search = wrapper.get('[data-testid="popup-saved"]');
    expect(search.attributes('placeholder')).toBe('Load a saved request… (2)');
    await search.trigger('focus');
    const listed = () =>
      wrapper.findAll('[data-testid="popup-saved-options"] [role="option"]').map((o) => o.text());
    expect(listed()).toEqual(['★ Echo hi · echo', 'Add · add']);
    // Typing finds a request by its tool too; Enter loads it.
    await search.setValue('ADD');
    expect(listed()).toEqual(['Add · add']);
    await search.trigger('keydown', { key: 'Enter' });
    expect(wrapper.emitted('saved')).toEqual([[second.id]]);
    await wrapper.setProps({ savedId: second.id });
    expect((search.element as HTMLInputElement).value).toBe('Add · add');
  });

  it('lists the first 200 of 10,000 saved requests, and finds any by its title, tool or description', async () => {
    const when = '2026-01-01T00:00:00.000Z';
    const saved = Array.from({ length: 10_000 }, (_, i) => ({
      id: `r${i}`,
      title: `Request ${i}`,
      description: i === 9_999 ? 'the last one' : '',
      toolName: 'echo',
      parameters: { message: String(i) },
      favorite: false,
      createdAt: when,
      updatedAt: when,
    }));
    const wrapper = mount(PopupPicker, {
      props: { servers: [], serverId: null, tools: [], toolName: null, saved, savedId: '' },
      attachTo: document.body,
    });
    onTestFinished(() => wrapper.unmount());
    const search = wrapper.get('[data-testid="popup-saved"]');
    await search.trigger('focus');
    expect(wrapper.findAll('[data-testid="popup-saved-options"] [role="option"]')).toHaveLength(200);
    expect(wrapper.get('[data-testid="popup-saved-more"]').text()).toBe('9,800 more — type to narrow');
    await search.setValue('LAST ONE');
    await search.trigger('keydown', { key: 'ArrowDown' });
    await search.trigger('keydown', { key: 'Enter' });
    expect(wrapper.emitted('saved')).toEqual([['r9999']]);
    await search.setValue('nothing like it');
    expect(wrapper.get('[data-testid="popup-saved-none"]').text()).toBe('No saved request matches');
  });

  it('keeps the notes out of the listbox, which holds options only, and reads out that nothing matches', async () => {
    const tools = Array.from({ length: 300 }, (_, i) => ({
      name: `tool-${i}`,
      inputSchema: { type: 'object' },
    }));
    const wrapper = mount(PopupPicker, {
      props: { servers: [], serverId: null, tools, toolName: null, saved: [], savedId: '' },
      attachTo: document.body,
    });
    onTestFinished(() => wrapper.unmount());
    const box = wrapper.get('[data-testid="popup-tool"]');
    await box.trigger('focus');
    const listbox = wrapper.get('[role="listbox"]');
    const roles = () => [...listbox.element.children].map((child) => child.getAttribute('role'));
    expect(new Set(roles())).toEqual(new Set(['option']));
    // The live region is there before it has anything to say, and says only that nothing matches.
    const status = wrapper.get('[data-testid="popup-tool-status"]');
    expect([status.attributes('role'), status.text()]).toEqual(['status', '']);
    await box.setValue('nothing like it');
    expect(roles()).toEqual([]);
    expect(wrapper.get('[data-testid="popup-tool-none"]').text()).toBe('No tool matches');
    expect(wrapper.get('[data-testid="popup-tool-status"]').element).toBe(status.element);
    expect(status.text()).toBe('No tool matches');
  });

  it('leaves out broken entries and gives id-less ones an id', async () => {
    await fakeBrowser.storage.local.set({
      'savedRequests:everything': [
        { title: 'No id', toolName: 'echo', parameters: {} },
        { title: '', toolName: 'echo' },
      ],
    });
    const saved = await readSavedRequests(platform.store, 'everything');
    expect(saved.map((r) => [r.id, r.title])).toEqual([['#0', 'No id']]);
  });
});

describe('PopupResult', () => {
  it('shows text content, the isError flag and where structuredContent is validated', () => {
    const wrapper = mount(PopupResult, {
      props: {
        result: {
          isError: true,
          content: [
            { type: 'text', text: 'Something failed' },
            { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          ],
          structuredContent: { ok: false },
        },
        hasOutputSchema: true,
      },
    });
    expect(wrapper.get('[data-testid="popup-result-error"]').text()).toContain('isError: true');
    expect(wrapper.get('[data-testid="content-text"]').text()).toBe('Something failed');
    expect(wrapper.get('[data-testid="content-image"] img').attributes('src')).toBe(
      'data:image/png;base64,AAAA',
    );
    expect(wrapper.get('[data-testid="popup-result-structured"]').text()).toContain('"ok": false');
    expect(wrapper.get('[data-testid="popup-result-note"]').text()).toContain('full inspector');
  });

  it('shows the first 50,000 characters of a large structuredContent, and all on Show all', async () => {
    const structuredContent = { items: Array.from({ length: 5_000 }, (_, i) => ({ i, name: `item ${i}` })) };
    const wrapper = mount(PopupResult, { props: { result: { content: [], structuredContent } } });
    const json = JSON.stringify(structuredContent, null, 2);
    expect(wrapper.get('[data-testid="popup-structured-json"]').element.textContent).toBe(
      json.slice(0, 50_000),
    );
    await wrapper.get('[data-testid="show-all-json"]').trigger('click');
    expect(JSON.parse(wrapper.get('[data-testid="popup-structured-json"]').text())).toEqual(
      structuredContent,
    );
  });

  it('shows server text as text, not markup, and no note without an outputSchema', () => {
    const wrapper = mount(PopupResult, {
      props: { result: { content: [{ type: 'text', text: '<b>bold</b>' }] } },
    });
    expect(wrapper.find('[data-testid="popup-result-error"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="content-text"]').text()).toBe('<b>bold</b>');
    expect(wrapper.find('b').exists()).toBe(false);
    expect(wrapper.find('[data-testid="popup-result-note"]').exists()).toBe(false);
  });
});

describe('a tools/list answer the daemon found wrong, in the popup', () => {
  it('says what is wrong under the selects, as text, and lists the tools it could', async () => {
    await fakeBrowser.storage.local.set({ pairing: { url: 'http://127.0.0.1:6274', token: 'token' } });
    answerPaths({
      '/health': { status: 'ok', version: '0.0.0', mode: 'local', uptimeMs: 1, timestamp: '' },
      '/servers/': { servers: [server('a', 'connected')] },
      '/tools/list': {
        tools: [
          { name: 'echo', inputSchema: { type: 'object' } },
          { name: 'echo', inputSchema: {} },
        ],
        toolsMetadata: {},
        resultProblem: 'tools.1 has no string "name": left out; "<i>nextCursor</i>" is a JSON number',
      },
    });
    const wrapper = await mountPopup();

    const warning = wrapper.get('[data-testid="popup-tools-problem"]');
    expect(warning.text()).toBe(
      'The server\'s tools/list answer is not as MCP says: tools.1 has no string "name": left out; ' +
        '"<i>nextCursor</i>" is a JSON number',
    );
    expect(warning.find('i').exists()).toBe(false);
    // A name the server listed twice is offered twice, each saying so, as the panel's list does.
    await wrapper.get('[data-testid="popup-tool"]').trigger('focus');
    expect(
      wrapper
        .findAll('[data-testid="popup-tool-options"] [role="option"]')
        .map((o) => o.text().replace(/\s+/g, ' ')),
    ).toEqual(['echo listed 2×', 'echo listed 2×']);
  });
});

describe("the popup's tool search", () => {
  const tools = Array.from({ length: 100_000 }, (_, i) => ({ name: `tool-${i}` }));
  const mountSearch = (toolName: string | null = 'tool-0') =>
    mount(PopupPicker, {
      props: { servers: [server('a', 'connected')], serverId: 'a', tools, toolName, saved: [], savedId: '' },
      attachTo: document.body,
    });
  const options = (wrapper: VueWrapper) =>
    wrapper.findAll('[data-testid="popup-tool-options"] [role="option"]');

  it('lists the first 200 of 100,000 tools and says how many more there are', async () => {
    const wrapper = mountSearch();
    onTestFinished(() => wrapper.unmount());
    expect(wrapper.findAll('option').map((o) => o.text())).toEqual(['a server (connected)']);
    expect(wrapper.find('[data-testid="popup-tool-options"]').exists()).toBe(false);
    await wrapper.get('[data-testid="popup-tool"]').trigger('focus');
    expect(options(wrapper)).toHaveLength(200);
    expect(wrapper.get('[data-testid="popup-tool-more"]').text()).toBe('99,800 more — type to narrow');
    await wrapper.get('[data-testid="popup-tool"]').setValue('tool-9999');
    expect(options(wrapper).map((o) => o.text())).toEqual([
      'tool-9999',
      ...Array.from({ length: 10 }, (_, i) => `tool-9999${i}`),
    ]);
    expect(wrapper.find('[data-testid="popup-tool-more"]').exists()).toBe(false);
    await wrapper.get('[data-testid="popup-tool"]').setValue('nothing like it');
    expect(wrapper.get('[data-testid="popup-tool-none"]').text()).toBe('No tool matches');
  });

  it('selects the name picked, so that typing next searches afresh', async () => {
    const wrapper = mountSearch(null);
    onTestFinished(() => wrapper.unmount());
    const search = wrapper.get('[data-testid="popup-tool"]');
    (search.element as HTMLInputElement).focus();
    await search.trigger('focus');
    await search.setValue('tool-4242');
    await search.trigger('keydown', { key: 'Enter' });
    expect(wrapper.emitted('tool')).toEqual([['tool-4242', 4242]]);
    await wrapper.setProps({ toolName: 'tool-4242' });
    await flushPromises();
    const box = search.element as HTMLInputElement;
    expect(box.value).toBe('tool-4242');
    expect([box.selectionStart, box.selectionEnd]).toEqual([0, 'tool-4242'.length]);
  });

  it('marks the hidden characters of a tool name in its option', async () => {
    const wrapper = mount(PopupPicker, {
      props: {
        servers: [server('a', 'connected')],
        serverId: 'a',
        tools: [{ name: 'list\u202Eexe.txt' }],
        toolName: null,
        saved: [],
        savedId: '',
      },
      attachTo: document.body,
    });
    onTestFinished(() => wrapper.unmount());
    await wrapper.get('[data-testid="popup-tool"]').trigger('focus');
    const [option] = options(wrapper);
    expect(option?.text()).toBe('list[RLO]exe.txt');
    expect(option?.get('mark.hidden-char').attributes('title')).toContain('U+202E');
  });

  it('moves along the matches with the arrow keys, picks with Enter and closes with Escape', async () => {
    const wrapper = mountSearch('tool-2');
    onTestFinished(() => wrapper.unmount());
    const search = wrapper.get('[data-testid="popup-tool"]');
    await search.trigger('focus');
    // Opened on the tool picked before.
    const active = () => wrapper.get('[role="option"][aria-selected="true"]');
    expect(active().text()).toBe('tool-2');
    expect(search.attributes('aria-activedescendant')).toBe(active().attributes('id'));
    await search.trigger('keydown', { key: 'ArrowDown' });
    await search.trigger('keydown', { key: 'ArrowDown' });
    await search.trigger('keydown', { key: 'ArrowUp' });
    expect(active().text()).toBe('tool-3');
    await search.trigger('keydown', { key: 'Enter' });
    expect(wrapper.emitted('tool')).toEqual([['tool-3', 3]]);
    expect(wrapper.find('[data-testid="popup-tool-options"]').exists()).toBe(false);
    await search.trigger('keydown', { key: 'ArrowDown' });
    expect(options(wrapper)).toHaveLength(200);
    await search.trigger('keydown', { key: 'Escape' });
    expect(wrapper.find('[data-testid="popup-tool-options"]').exists()).toBe(false);
    // A click picks too.
    await search.trigger('focus');
    await options(wrapper)[5]!.trigger('mousedown');
    expect(wrapper.emitted('tool')).toEqual([
      ['tool-3', 3],
      ['tool-5', 5],
    ]);
  });

  it('picks the second tool of a name the server lists twice, shows it, and keeps the form of each apart', async () => {
    await fakeBrowser.storage.local.set({ pairing: { url: 'http://127.0.0.1:6274', token: 'token' } });
    answerPaths({
      '/health': { status: 'ok', version: '0.0.0', mode: 'local', uptimeMs: 1, timestamp: '' },
      '/servers/': { servers: [server('a', 'connected')] },
      '/tools/list': {
        tools: [
          {
            name: 'echo',
            description: 'The first echo',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
          },
          {
            name: 'echo',
            description: 'The second echo',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
          },
        ],
        toolsMetadata: {},
      },
    });
    const wrapper = await mountPopup();
    const pick = async (position: number) => {
      await wrapper.get('[data-testid="popup-tool"]').trigger('focus');
      const options = wrapper.findAll('[data-testid="popup-tool-options"] [role="option"]');
      await options[position]!.trigger('mousedown');
      await flushPromises();
    };
    const text = () => (wrapper.get('[id="popup-echo-text"]').element as HTMLInputElement).value;
    expect(wrapper.get('.desc').text()).toBe('The first echo');
    await wrapper.get('[id="popup-echo-text"]').setValue('for the first');
    await pick(1);
    expect(wrapper.get('.desc').text()).toBe('The second echo');
    expect(text()).toBe('');
    await wrapper.get('[id="popup-echo-text"]').setValue('for the second');
    await pick(0);
    expect(text()).toBe('for the first');
    await pick(1);
    expect(text()).toBe('for the second');
  });
});
