/**
 * happy-dom has no layout: the scroll container measures 0 px high, so the virtualizer renders no row in
 * LogsView. These tests cover the toolbar through the real stores, and the row itself through LogRow
 * (rows built by the real LogModel); end-to-end tests in Chromium cover the virtual list.
 */
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import LogRow from '../../extension/logs/LogRow.vue';
import LogsView from '../../extension/logs/LogsView.vue';
import { useLiveStore } from '../../extension/app/live-store';
import { useLogsStore } from '../../extension/logs/logs-store';
import { useServersStore } from '../../extension/servers/servers-store';
import { LogModel, type LogRow as Row } from '../../extension/logs/log-pairing';
import type { RpcLogEntry } from '../../shared/logs';
import type { ServerRecord } from '../../shared/servers';

let pinia: Pinia;
let seq = 0;

function entry(body: Record<string, unknown>, serverId = 'everything', ms = 0): RpcLogEntry {
  const direction = 'method' in body ? 'send' : 'receive';
  const timestamp = new Date(Date.UTC(2025, 0, 1, 10) + ms).toISOString();
  return { type: 'rpc', seq: ++seq, serverId, direction, timestamp, message: { jsonrpc: '2.0', ...body } };
}

function server(id: string, name: string): ServerRecord {
  return { id, name, status: 'connected', config: { transport: 'stdio', command: 'node' } };
}

async function mountView(): Promise<VueWrapper> {
  const wrapper = mount(LogsView, { global: { plugins: [pinia] }, attachTo: document.body });
  onTestFinished(() => wrapper.unmount());
  await flushPromises();
  return wrapper;
}

function text(wrapper: VueWrapper, testId: string): string {
  return wrapper.get(`[data-testid="${testId}"]`).text();
}

beforeEach(() => {
  pinia = createPinia();
  setActivePinia(pinia);
  useServersStore().servers = [server('everything', 'Everything'), server('other', 'Other')];
});

describe('LogsView toolbar', () => {
  it('says what to do while the log is empty', async () => {
    const wrapper = await mountView();
    expect(text(wrapper, 'log-empty')).toMatch(/Connect a server/);
    expect(text(wrapper, 'log-count')).toBe('0 rows');
    expect(wrapper.get('[data-testid="log-export"]').attributes('disabled')).toBeDefined();
  });

  it('offers one server filter per registered server and filters the store', async () => {
    const logs = useLogsStore();
    logs.addEntries([
      entry({ id: 1, method: 'tools/call' }, 'everything'),
      entry({ id: 1, method: 'tools/list' }, 'other'),
      entry({ id: 2, method: 'tools/list' }, 'other'),
    ]);
    const wrapper = await mountView();
    const options = wrapper.findAll('[data-testid="log-server-filter"] input[type="checkbox"]');
    expect(options.map((option) => option.attributes('value'))).toEqual(['everything', 'other']);
    expect(wrapper.get('[data-testid="log-server-filter"]').text()).toContain('Everything');
    await options[1]?.setValue(true);
    expect(logs.serverFilter).toEqual(['other']);
    expect(text(wrapper, 'log-count')).toBe('2 of 3 rows');
    await options[1]?.setValue(false);
    expect(text(wrapper, 'log-count')).toBe('3 rows');
  });

  it('filters by method as the user types', async () => {
    const logs = useLogsStore();
    logs.addEntries([entry({ id: 1, method: 'tools/call' }), entry({ id: 2, method: 'resources/read' })]);
    const wrapper = await mountView();
    await wrapper.get('[data-testid="log-method-filter"]').setValue('READ');
    expect(logs.methodFilter).toBe('READ');
    expect(text(wrapper, 'log-count')).toBe('1 of 2 rows');
    await wrapper.get('[data-testid="log-method-filter"]').setValue('nothing');
    expect(text(wrapper, 'log-empty')).toMatch(/No entry matches/);
  });

  it('pauses, counts what arrives meanwhile, and shows it on resume', async () => {
    const logs = useLogsStore();
    const wrapper = await mountView();
    const pause = wrapper.get('[data-testid="log-pause"]');
    expect(pause.text()).toBe('Pause');
    await pause.trigger('click');
    expect(pause.attributes('aria-pressed')).toBe('true');
    logs.addEntries([entry({ id: 1, method: 'ping' }), entry({ id: 1, result: {} }, 'everything', 3)]);
    await flushPromises();
    expect(pause.text()).toBe('Resume (+2)');
    expect(pause.attributes('title')).toBe(
      '2 messages arrived while paused (a request and its response make one row)',
    );
    expect(text(wrapper, 'log-count')).toBe('0 rows');
    await pause.trigger('click');
    expect(pause.text()).toBe('Pause');
    expect(text(wrapper, 'log-count')).toBe('1 row');
    expect(logs.visibleAt(0)?.latencyMs).toBe(3);
  });

  it('clears the log', async () => {
    const logs = useLogsStore();
    logs.addEntries([entry({ id: 1, method: 'ping' })]);
    const wrapper = await mountView();
    expect(text(wrapper, 'log-count')).toBe('1 row');
    expect(wrapper.get('[data-testid="log-export"]').attributes('disabled')).toBeUndefined();
    await wrapper.get('[data-testid="log-clear"]').trigger('click');
    expect(logs.rowCount).toBe(0);
    expect(text(wrapper, 'log-count')).toBe('0 rows');
  });

  it('shows the live channel state', async () => {
    const live = useLiveStore();
    const wrapper = await mountView();
    expect(text(wrapper, 'log-live-state')).toBe('offline');
    live.state = 'open';
    await flushPromises();
    expect(text(wrapper, 'log-live-state')).toBe('● live');
    live.state = 'connecting';
    await flushPromises();
    expect(text(wrapper, 'log-live-state')).toBe('reconnecting…');
  });
});

describe('LogRow', () => {
  function rowsOf(entries: RpcLogEntry[]): Row[] {
    const model = new LogModel();
    model.addAll(entries);
    return model.rows;
  }

  function mountRow(row: Row, expanded = false): VueWrapper {
    const wrapper = mount(LogRow, { props: { row, expanded } });
    onTestFinished(() => wrapper.unmount());
    return wrapper;
  }

  it('shows a paired request with its status and latency, and toggles on click', async () => {
    const [row] = rowsOf([
      entry({ id: 4, method: 'tools/call', params: { name: 'echo' } }),
      entry({ id: 4, result: { content: [] } }, 'everything', 42),
    ]);
    const wrapper = mountRow(row as Row);
    expect(wrapper.text()).toContain('tools/call');
    expect(wrapper.text()).toContain('everything');
    expect(wrapper.get('.id').text()).toBe('4');
    expect(wrapper.get('.status').text()).toBe('ok');
    expect(wrapper.get('[data-testid="log-latency"]').text()).toBe('42 ms');
    expect(wrapper.find('[data-testid="log-detail"]').exists()).toBe(false);
    await wrapper.get('.summary').trigger('click');
    expect(wrapper.emitted('toggle')).toHaveLength(1);
  });

  it('marks a method that hides characters, in its column and as an escape in its JSON', () => {
    const [row] = rowsOf([entry({ method: 'notifications/tools/\u202Edegnahc_tsil' })]);
    const wrapper = mountRow(row as Row, true);
    const method = wrapper.get('.method');
    expect(method.text()).toContain('notifications/tools/[RLO]degnahc_tsil');
    expect(method.attributes('title')).toBe('notifications/tools/[RLO]degnahc_tsil');
    expect(wrapper.get('[data-testid="log-detail"]').text()).toContain(
      '"method": "notifications/tools/\\u202Edegnahc_tsil"',
    );
  });

  it('shows the request and response JSON pretty-printed when expanded', () => {
    const [row] = rowsOf([
      entry({ id: 4, method: 'tools/call', params: { name: 'echo' } }),
      entry({ id: 4, error: { code: -32602, message: 'bad' } }, 'everything', 5),
    ]);
    const wrapper = mountRow(row as Row, true);
    expect(wrapper.get('.status').text()).toBe('error -32602');
    const blocks = wrapper.findAll('[data-testid="log-detail"] pre').map((pre) => pre.text());
    expect(blocks).toHaveLength(2);
    expect(JSON.parse(blocks[0] as string)).toMatchObject({ id: 4, params: { name: 'echo' } });
    expect(blocks[0]).toContain('\n  "id": 4');
    expect(JSON.parse(blocks[1] as string)).toMatchObject({ error: { code: -32602 } });
  });

  it('shows a pending request as pending with no latency', () => {
    const [row] = rowsOf([entry({ id: 1, method: 'tools/call' })]);
    const wrapper = mountRow(row as Row, true);
    expect(wrapper.get('.status').text()).toBe('pending');
    expect(wrapper.get('[data-testid="log-latency"]').text()).toBe('');
    expect(wrapper.get('[data-testid="log-detail"]').text()).toContain('Waiting for the response');
  });

  it('shows a stderr line in full, as text', () => {
    const line = '<b>not bold</b> warning: disk almost full';
    const [row] = rowsOf([
      { type: 'rpc', seq: 1, serverId: 'x', direction: 'stderr', timestamp: '', message: line },
    ]);
    const wrapper = mountRow(row as Row, true);
    expect(wrapper.get('.summary .stderr-line').text()).toBe(line);
    expect(wrapper.get('[data-testid="log-detail"] pre').text()).toBe(line);
    expect(wrapper.find('b').exists()).toBe(false);
  });

  it('shows a notification without id or status, and a response without its request', () => {
    const [notification, orphan] = rowsOf([
      entry({ method: 'notifications/message', params: { level: 'info' } }),
      entry({ id: 99, result: {} }),
    ]);
    const first = mountRow(notification as Row);
    expect(first.get('.id').text()).toBe('');
    expect(first.get('.status').text()).toBe('');
    const second = mountRow(orphan as Row, true);
    expect(second.get('.method').text()).toBe('(response)');
    expect(second.get('.id').text()).toBe('99');
    expect(second.get('[data-testid="log-detail"]').text()).toContain('no longer in the log');
  });

  it('shows the first 50,000 characters of a large message, and all on Show all', async () => {
    const big = { content: [{ type: 'text', text: '<b>x</b>'.repeat(20_000) }] };
    const [row] = rowsOf([
      entry({ id: 9, method: 'tools/call', params: { name: 'echo' } }),
      entry({ id: 9, result: big }),
    ]);
    const wrapper = mountRow(row as Row, true);
    const response = wrapper.findAll('[data-testid="log-detail"] section')[1]!;
    const json = JSON.stringify({ jsonrpc: '2.0', id: 9, result: big }, null, 2);
    expect(response.get('pre').element.textContent).toBe(json.slice(0, 50_000));
    expect(response.get('[data-testid="json-clipped"]').text()).toContain(
      `of ${json.length.toLocaleString('en-US')} characters`,
    );
    expect(wrapper.find('b').exists()).toBe(false);
    await response.get('[data-testid="show-all-json"]').trigger('click');
    expect(JSON.parse(response.get('pre').element.textContent!)).toEqual({
      jsonrpc: '2.0',
      id: 9,
      result: big,
    });
  });
});
