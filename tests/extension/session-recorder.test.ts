/**
 * The Logs view's Record button, through the real stores: entries arrive as the live channel delivers
 * them (`receive`), and the downloaded session is read back with the parser `replay` and `diff` use.
 */
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import LogsView from '../../extension/logs/LogsView.vue';
import { useLogsStore } from '../../extension/logs/logs-store';
import { useSessionRecorderStore } from '../../extension/logs/session-recorder';
import { useServersStore } from '../../extension/servers/servers-store';
import type { RpcLogEntry } from '../../shared/logs';
import type { ServerRecord } from '../../shared/servers';
import { exchanges, parseSession } from '../../shared/session-file';

let seq = 0;

function entry(body: Record<string, unknown>, serverId: string, direction: 'send' | 'receive'): RpcLogEntry {
  const timestamp = new Date(Date.UTC(2026, 0, 1, 10, 0, 0, seq)).toISOString();
  return { type: 'rpc', seq: ++seq, serverId, direction, timestamp, message: { jsonrpc: '2.0', ...body } };
}

/** A tools/call and its answer, as the daemon logs them. */
function call(serverId: string, id: number, message: string): RpcLogEntry[] {
  return [
    entry({ id, method: 'tools/call', params: { name: 'echo', arguments: { message } } }, serverId, 'send'),
    entry({ id, result: { content: [{ type: 'text', text: `Echo: ${message}` }] } }, serverId, 'receive'),
  ];
}

function server(id: string, name: string): ServerRecord {
  return {
    id,
    name,
    status: 'disconnected',
    config: { transport: 'stdio', command: 'node' },
    serverInfo: { name: `${id}-server`, version: '1.2.3' },
    capabilities: { tools: { listChanged: true } },
    protocolVersion: '2025-11-25',
    instructions: 'Call echo.',
  };
}

async function mountView(): Promise<VueWrapper> {
  const wrapper = mount(LogsView, { attachTo: document.body });
  onTestFinished(() => wrapper.unmount());
  await flushPromises();
  return wrapper;
}

const button = (wrapper: VueWrapper, testId: string) => wrapper.get(`[data-testid="${testId}"]`);

beforeEach(() => {
  setActivePinia(createPinia());
  useServersStore().servers = [server('everything', 'Everything'), server('other', 'Other')];
});

describe('Record in the Logs view', () => {
  it('asks for one server to be checked before it can record', async () => {
    const wrapper = await mountView();
    const record = button(wrapper, 'log-record');
    expect(record.attributes('disabled')).toBeDefined();
    expect(record.attributes('title')).toBe('Check one server to record its session');
    await wrapper.findAll('[data-testid="log-server-option"]')[0]?.setValue(true);
    expect(record.attributes('disabled')).toBeUndefined();
    expect(record.attributes('title')).toMatch(/^Record everything's messages/);
  });

  it('records that server from Start to Stop, paused or not, and downloads it as a session', async () => {
    const logs = useLogsStore();
    const recorder = useSessionRecorderStore();
    for (const item of call('everything', 1, 'before')) logs.receive(item);
    const wrapper = await mountView();
    await wrapper.findAll('[data-testid="log-server-option"]')[0]?.setValue(true);
    expect(wrapper.find('[data-testid="log-session-download"]').exists()).toBe(false);

    await button(wrapper, 'log-record').trigger('click');
    expect(button(wrapper, 'log-record').attributes('aria-pressed')).toBe('true');
    for (const item of [...call('everything', 2, 'hello'), ...call('other', 2, 'elsewhere')])
      logs.receive(item);
    logs.pause();
    const paused = call('everything', 3, 'while paused');
    for (const item of paused) logs.receive(item);
    // The live channel may send an entry again after a reconnect: it is recorded once.
    logs.receive(paused[1] as RpcLogEntry);
    await flushPromises();
    expect(button(wrapper, 'log-record').text()).toBe('■ Stop (4)');

    await button(wrapper, 'log-record').trigger('click');
    for (const item of call('everything', 4, 'after')) logs.receive(item);
    await flushPromises();
    expect(button(wrapper, 'log-record').text()).toBe('● Record');
    expect(button(wrapper, 'log-session-download').text()).toBe('Download session');

    const session = parseSession(recorder.sessionFile(), 'panel.jsonl');
    expect(session.header).toMatchObject({
      type: 'session',
      version: 1,
      server: {
        name: 'Everything',
        serverInfo: { name: 'everything-server', version: '1.2.3' },
        capabilities: { tools: { listChanged: true } },
        protocolVersion: '2025-11-25',
        instructions: 'Call echo.',
      },
    });
    expect(session.lines).toHaveLength(4);
    expect(exchanges(session).map((exchange) => [exchange.params?.arguments, exchange.result])).toEqual([
      [{ message: 'hello' }, { content: [{ type: 'text', text: 'Echo: hello' }] }],
      [{ message: 'while paused' }, { content: [{ type: 'text', text: 'Echo: while paused' }] }],
    ]);
  });

  it('starts a new session with each Record', async () => {
    const logs = useLogsStore();
    const recorder = useSessionRecorderStore();
    const wrapper = await mountView();
    await wrapper.findAll('[data-testid="log-server-option"]')[1]?.setValue(true);
    for (const message of ['first', 'second']) {
      await button(wrapper, 'log-record').trigger('click');
      for (const item of call('other', 1, message)) logs.receive(item);
      await button(wrapper, 'log-record').trigger('click');
      const [only, ...rest] = exchanges(parseSession(recorder.sessionFile(), 'panel.jsonl'));
      expect(rest).toEqual([]);
      expect(only?.params?.arguments).toEqual({ message });
    }
  });
});
