/** A STDIO server's output lines in the log: stderr, and stdout lines that are not JSON-RPC. */
import { mount } from '@vue/test-utils';
import { describe, expect, it, onTestFinished } from 'vitest';
import LogRow from '../../extension/logs/LogRow.vue';
import { LogModel } from '../../extension/logs/log-pairing';
import type { RpcLogEntry } from '../../shared/logs';

function outputLine(direction: 'stderr' | 'stdout', message: string, seq: number): RpcLogEntry {
  return { type: 'rpc', seq, serverId: 'weather', direction, timestamp: '2025-01-01T10:00:00.000Z', message };
}

describe('server output lines in the log', () => {
  it('shows a stray stdout line as the server wrote it, named as stdout that belongs on stderr', () => {
    const model = new LogModel(100);
    model.add(outputLine('stderr', 'starting', 1));
    model.add(outputLine('stdout', 'Weather server listening on port 3000', 2));
    const rows = model.visibleRows;
    expect(rows.map((row) => [row.kind, row.direction])).toEqual([
      ['stderr', 'stderr'],
      ['stderr', 'stdout'],
    ]);
    const wrapper = mount(LogRow, { props: { row: rows[1]!, expanded: true } });
    onTestFinished(() => wrapper.unmount());
    expect(wrapper.get('.arrow').attributes('title')).toBe(
      'stdout, not a JSON-RPC message: it belongs on stderr',
    );
    expect(wrapper.get('.summary .stderr-line').text()).toBe('Weather server listening on port 3000');
    expect(wrapper.get('[data-testid="log-detail"]').text()).toBe('Weather server listening on port 3000');
  });
});
