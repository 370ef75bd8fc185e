/**
 * The Server view's handshake, icons and client capabilities, and the sampling dialog's deprecation
 * mark: records shaped as the daemon sends them (tests/daemon/server-handshake.test.ts checks those
 * against real servers), with hostile text where a server could put it.
 */
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { ElicitationRequired } from '../../shared/api';
import { HANDSHAKE_MAX_BYTES, type ServerRecord } from '../../shared/servers';
import ServerInfo from '../../extension/servers/ServerInfo.vue';
import ElicitationDialog from '../../extension/tools/ElicitationDialog.vue';

const HOSTILE = '<img src=x onerror="alert(1)">';
const CLIENT_CAPABILITIES = { sampling: {}, roots: { listChanged: true }, elicitation: { form: {} } };

const DISCOVER = {
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: { listChanged: true } },
  instructions: `Use me ${HOSTILE}`,
  resultType: 'complete',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-fixture', version: '2.0.0' } },
};

function record(overrides: Partial<ServerRecord>): ServerRecord {
  return {
    id: 'fixture',
    name: 'fixture',
    config: { transport: 'stdio', command: 'node' },
    status: 'connected',
    serverInfo: { name: 'modern-fixture', version: '2.0.0' },
    capabilities: { tools: { listChanged: true } },
    clientCapabilities: CLIENT_CAPABILITIES,
    ...overrides,
  };
}

const MODERN = record({
  era: 'modern',
  protocolVersion: '2026-07-28',
  handshake: { method: 'server/discover', bytes: JSON.stringify(DISCOVER).length, result: DISCOVER },
});
const LEGACY = record({
  era: 'legacy',
  protocolVersion: '2025-11-25',
  handshake: {
    method: 'initialize',
    bytes: 120,
    result: { protocolVersion: '2025-11-25', serverInfo: { name: 'modern-fixture', version: '2.0.0' } },
  },
});

function show(server: ServerRecord) {
  const wrapper = mount(ServerInfo, { props: { server }, attachTo: document.body });
  onTestFinished(() => wrapper.unmount());
  return wrapper;
}

beforeEach(() => {
  setActivePinia(createPinia());
});

describe('the Server view', () => {
  it('shows the server/discover result of a modern server as text, laid out once opened', async () => {
    const wrapper = show(MODERN);
    const handshake = wrapper.get('[data-testid="server-handshake"]');
    expect(handshake.get('summary').text()).toMatch(
      /^server\/discover result as the server sent it \(\d+ bytes\)$/,
    );
    expect(wrapper.get('[data-testid="server-handshake-json"]').text()).toBe('');
    (handshake.element as HTMLDetailsElement).open = true;
    await handshake.trigger('toggle');
    const json = wrapper.get('[data-testid="server-handshake-json"]').text();
    expect(JSON.parse(json)).toEqual(DISCOVER);
    expect(json).toContain('<img src=x onerror=');
    expect(wrapper.find('img').exists()).toBe(false);
  });

  it('shows the initialize result of a legacy server', async () => {
    const wrapper = show(LEGACY);
    expect(wrapper.get('[data-testid="server-handshake"] summary').text()).toContain('initialize result');
    const handshake = wrapper.get('[data-testid="server-handshake"]');
    (handshake.element as HTMLDetailsElement).open = true;
    await handshake.trigger('toggle');
    expect(JSON.parse(wrapper.get('[data-testid="server-handshake-json"]').text())).toEqual(
      LEGACY.handshake?.result,
    );
  });

  it('says why a handshake larger than the limit is not shown', () => {
    const wrapper = show(
      record({ era: 'modern', handshake: { method: 'server/discover', bytes: HANDSHAKE_MAX_BYTES + 10 } }),
    );
    expect(wrapper.get('[data-testid="server-handshake"] summary').text()).toContain('64.0 KiB');
    expect(wrapper.get('[data-testid="server-handshake-too-large"]').text()).toContain(
      'larger than the 64.0 KiB the daemon keeps',
    );
    expect(wrapper.find('[data-testid="server-handshake-json"]').exists()).toBe(false);
  });

  it('marks sampling deprecated among the client capabilities of a modern server only', () => {
    const modern = show(MODERN);
    expect(modern.get('[data-testid="client-capability-sampling-deprecated"]').text()).toBe(
      'deprecated in 2026-07-28',
    );
    expect(modern.find('[data-testid="client-capability-roots-deprecated"]').exists()).toBe(false);
    const legacy = show(LEGACY);
    expect(legacy.get('[data-testid="client-capability-sampling"]').text()).toBe('sampling');
    expect(legacy.find('[data-testid="client-capability-sampling-deprecated"]').exists()).toBe(false);
  });

  it('lists icons as text, never fetching them, with long addresses cut and at most twelve', () => {
    const src = `https://example.com/${'a'.repeat(500)}.png`;
    const icons = Array.from({ length: 14 }, (_, i) => ({
      src: i === 0 ? src : `data:image/png;base64,${HOSTILE}`,
      mimeType: 'image/png',
      sizes: ['48x48', 7 as unknown as string],
    }));
    const wrapper = show(record({ serverInfo: { name: 'iconic', version: '1', icons } }));
    const list = wrapper.get('[data-testid="server-info-icons"]');
    const items = list.findAll('li');
    expect(items).toHaveLength(13);
    expect(items[0]?.text()).toContain('… (');
    expect(items[0]?.text().length).toBeLessThan(300);
    expect(items[0]?.text()).toContain('image/png, 48x48');
    expect(items[1]?.text()).toContain(HOSTILE);
    expect(items[12]?.text()).toBe('and 2 more');
    expect(wrapper.find('img').exists()).toBe(false);
  });

  it("shows the first 50,000 characters of a server's large capability, and all on Show all", async () => {
    const experimental = {
      'io.example/huge': { names: Array.from({ length: 5_000 }, (_, i) => `name-${i}`) },
    };
    const wrapper = show(record({ capabilities: { experimental } }));
    const capability = wrapper.get('[data-testid="server-capability-experimental"]').element.parentElement!;
    const pre = () => capability.querySelector('pre')!.textContent;
    expect(pre()).toBe(JSON.stringify(experimental, null, 2).slice(0, 50_000));
    capability.querySelector<HTMLButtonElement>('[data-testid="show-all-json"]')!.click();
    await flushPromises();
    expect(JSON.parse(pre()!)).toEqual(experimental);
  });

  it('shows no handshake or client capabilities for a server not connected', () => {
    const wrapper = show({ ...record({}), status: 'disconnected', clientCapabilities: undefined });
    expect(wrapper.find('[data-testid="server-handshake"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="client-capability-sampling"]').exists()).toBe(false);
  });
});

describe('a sampling request', () => {
  const sampling: ElicitationRequired = {
    status: 'elicitation_required',
    kind: 'sampling',
    executionId: 'exec-1',
    requestId: 'req-1',
    request: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 },
    timestamp: '2026-01-01T00:00:00.000Z',
  };

  const open = (serverEra?: 'modern' | 'legacy') => {
    const wrapper = mount(ElicitationDialog, {
      props: { elicitation: sampling, serverName: 'fixture', serverEra },
      attachTo: document.body,
    });
    onTestFinished(() => wrapper.unmount());
    return wrapper;
  };

  it('is marked deprecated in 2026-07-28 when its server is on the modern era', () => {
    expect(open('modern').get('[data-testid="sampling-deprecated"]').text()).toBe(
      'Sampling is deprecated in 2026-07-28; the inspector still answers it for this server.',
    );
  });

  it('is not marked for a legacy server, or when the era is not known', () => {
    expect(open('legacy').find('[data-testid="sampling-deprecated"]').exists()).toBe(false);
    expect(open().find('[data-testid="sampling-deprecated"]').exists()).toBe(false);
  });
});
