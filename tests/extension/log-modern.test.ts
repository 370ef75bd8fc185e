/**
 * The 2026-07-28 era in the log: rows of a multi-round call grouped (LogModel), and the row showing
 * its round, a list result's cache hint, what an error code means and the MCP headers it was sent with.
 */
import { mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { describe, expect, it, onTestFinished } from 'vitest';
import LogRow from '../../extension/logs/LogRow.vue';
import { LogModel, type LogRow as Row } from '../../extension/logs/log-pairing';
import { cacheHintText, errorMeaning } from '../../extension/logs/log-notes';
import { useLogsStore } from '../../extension/logs/logs-store';
import type { RpcMessageEntry } from '../../shared/logs';

let seq = 0;

function entry(
  body: Record<string, unknown>,
  extra: Pick<RpcMessageEntry, 'headers' | 'call'> = {},
  ms = 0,
): RpcMessageEntry {
  const direction = 'method' in body ? 'send' : 'receive';
  const timestamp = new Date(Date.UTC(2026, 7, 1, 10) + ms).toISOString();
  return {
    type: 'rpc',
    seq: ++seq,
    serverId: 'modern',
    direction,
    timestamp,
    message: { jsonrpc: '2.0', ...body },
    ...extra,
  };
}

const ask = (id: number, round: number, call = 'c-1') =>
  entry({ id, method: 'tools/call', params: { name: 'ask', arguments: {} } }, { call: { id: call, round } });
const answer = (id: number, round: number, resultType: string, call = 'c-1') =>
  entry({ id, result: { resultType, content: [] } }, { call: { id: call, round } }, 5);

function mountRow(row: Row, expanded = false): VueWrapper {
  const wrapper = mount(LogRow, { props: { row, expanded } });
  onTestFinished(() => wrapper.unmount());
  return wrapper;
}

describe('LogModel groups the rounds of a call', () => {
  it('numbers each round and tells the earlier rows how many rounds the call has had', () => {
    const model = new LogModel();
    model.addAll([ask(1, 1), answer(1, 1, 'input_required')]);
    expect(model.rows[0]?.round).toEqual({ call: 'c-1', round: 1, rounds: 1, label: 'tools/call ask' });
    model.addAll([ask(2, 2), answer(2, 2, 'input_required'), ask(3, 3), answer(3, 3, 'complete')]);
    expect(model.rows.map((row) => [row.id, row.round?.round, row.round?.rounds, row.status])).toEqual([
      [1, 1, 3, 'ok'],
      [2, 2, 3, 'ok'],
      [3, 3, 3, 'ok'],
    ]);
  });

  it('keeps two calls apart, and a request without a call stays alone', () => {
    const model = new LogModel();
    model.addAll([
      ask(1, 1, 'a'),
      ask(2, 1, 'b'),
      ask(3, 2, 'a'),
      entry({ id: 4, method: 'ping' }),
      // A tag that is not one is ignored, not trusted.
      entry({ id: 5, method: 'tools/list' }, { call: { id: 'x', round: -1 } }),
    ]);
    expect(model.rows.map((row) => row.round && [row.round.call, row.round.round, row.round.rounds])).toEqual(
      [['a', 1, 2], ['b', 1, 1], ['a', 2, 2], undefined, undefined],
    );
  });
});

describe('the runs of rows of a call in the filtered log', () => {
  it('starts a new run for each call, also right after another call, and none for a call of one round', () => {
    setActivePinia(createPinia());
    const logs = useLogsStore();
    logs.addEntries([
      ask(1, 1, 'a'),
      ask(2, 2, 'a'),
      ask(3, 1, 'b'),
      ask(4, 2, 'b'),
      ask(5, 3, 'b'),
      ask(6, 1, 'single'),
      entry({ id: 7, method: 'ping' }),
      ask(8, 3, 'a'),
    ]);
    const runs = Array.from({ length: logs.visibleCount }, (_, index) => logs.callRun(index));
    expect(runs).toEqual(['start', 'in', 'start', 'in', 'in', undefined, undefined, 'start']);
  });

  it('joins the rounds of a call that the filter leaves together into one run', () => {
    setActivePinia(createPinia());
    const logs = useLogsStore();
    logs.addEntries([ask(11, 1, 'f'), entry({ id: 12, method: 'ping' }), ask(13, 2, 'f')]);
    expect(Array.from({ length: logs.visibleCount }, (_, index) => logs.callRun(index))).toEqual([
      'start',
      undefined,
      'start',
    ]);
    logs.methodFilter = 'tools/call';
    expect(Array.from({ length: logs.visibleCount }, (_, index) => logs.callRun(index))).toEqual([
      'start',
      'in',
    ]);
  });
});

describe('LogRow at 2026-07-28', () => {
  it('shows "round N of" its call once the call has more than one round, and marks nothing before', () => {
    const model = new LogModel();
    model.addAll([ask(1, 1), answer(1, 1, 'input_required')]);
    expect(
      mountRow(model.rows[0] as Row)
        .find('[data-testid="log-round"]')
        .exists(),
    ).toBe(false);
    model.addAll([ask(2, 2), answer(2, 2, 'complete')]);
    const [first, second] = model.rows.map((row) => mountRow(row));
    expect(first?.get('[data-testid="log-round"]').text()).toBe('round 1 of tools/call ask');
    expect(second?.get('[data-testid="log-round"]').text()).toBe('round 2 of tools/call ask');
    expect(second?.get('[data-testid="log-round"]').attributes('title')).toMatch(
      /Round 2 of 2 of tools\/call ask/,
    );
  });

  it('shows the MCP headers a request was sent with when expanded, before the request', () => {
    const model = new LogModel();
    model.addAll([
      entry(
        { id: 7, method: 'tools/call', params: { name: 'echo', arguments: { region: 'eu' } } },
        { headers: { 'mcp-method': 'tools/call', 'mcp-name': 'echo', 'mcp-param-region': 'eu' } },
      ),
    ]);
    const wrapper = mountRow(model.rows[0] as Row, true);
    const headings = wrapper.findAll('[data-testid="log-detail"] h3').map((h) => h.text());
    expect(headings).toEqual(['HTTP headers sent', 'Request', 'Response']);
    expect(wrapper.get('[data-testid="log-detail"] pre').text()).toBe(
      'mcp-method: tools/call\nmcp-name: echo\nmcp-param-region: eu',
    );
    // A row without headers has no such section.
    const plain = new LogModel();
    plain.add(entry({ id: 8, method: 'ping' }));
    const headingsOf = mountRow(plain.rows[0] as Row, true)
      .findAll('h3')
      .map((h) => h.text());
    expect(headingsOf).toEqual(['Request', 'Response']);
  });

  it("shows a list result's ttlMs and cacheScope in the summary", () => {
    const model = new LogModel();
    model.addAll([
      entry({ id: 1, method: 'tools/list' }),
      entry({ id: 1, result: { tools: [], ttlMs: 60_000, cacheScope: 'public' } }),
    ]);
    expect(
      mountRow(model.rows[0] as Row)
        .get('[data-testid="log-cache"]')
        .text(),
    ).toBe('ttl 60 s · scope public');
    expect(cacheHintText({ result: { ttlMs: 0 } })).toBe('ttl 0 ms');
    expect(cacheHintText({ result: { ttlMs: 7_200_000, cacheScope: 'private' } })).toBe(
      'ttl 2 h · scope private',
    );
    // A hostile value is not shown.
    expect(cacheHintText({ result: { ttlMs: '60', cacheScope: { x: 1 } } })).toBe('');
    expect(cacheHintText({ result: { tools: [] } })).toBe('');
  });

  it('explains a 2026-07-28 error code next to the number', () => {
    const model = new LogModel();
    model.addAll([
      entry({ id: 1, method: 'tools/call', params: { name: 'echo' } }),
      entry({ id: 1, error: { code: -32020, message: 'Mcp-Name does not match' } }),
    ]);
    const wrapper = mountRow(model.rows[0] as Row, true);
    expect(wrapper.get('.status').text()).toBe('error -32020');
    expect(wrapper.get('.status').attributes('title')).toMatch(
      /^error -32020: Header mismatch\. An MCP HTTP header/,
    );
    expect(wrapper.get('[data-testid="log-error-name"]').text()).toBe('Header mismatch');
    expect(wrapper.get('[data-testid="log-error-meaning"]').text()).toMatch(/^-32020 Header mismatch: /);
  });

  it('knows the codes of the SDK and the spec, and calls the rest of -32000..-32099 the server’s own', () => {
    expect(
      [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32021, -32022, -32042].map(
        (code) => errorMeaning(code)?.name,
      ),
    ).toEqual([
      'Parse error',
      'Invalid request',
      'Method not found',
      'Invalid params',
      'Internal error',
      'Request timed out',
      'Resource not found',
      'Missing required client capability',
      'Unsupported protocol version',
      'URL elicitation required',
    ]);
    expect(errorMeaning(-32050)?.name).toBe('Server error');
    expect(errorMeaning(42)).toBeUndefined();
  });
});
