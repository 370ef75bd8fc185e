/**
 * A server's output lines in the log: a STDIO server's stderr and stdout lines that are not JSON-RPC,
 * and a remote server's events that are no JSON-RPC message.
 */
import { mount } from '@vue/test-utils';
import { describe, expect, it, onTestFinished } from 'vitest';
import LogRow from '../../extension/logs/LogRow.vue';
import { LogModel } from '../../extension/logs/log-pairing';
import type { RpcLogEntry } from '../../shared/logs';

function outputLine(direction: 'stderr' | 'stdout' | 'event', message: string, seq: number): RpcLogEntry {
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

  it('shows the start of an event that is no JSON-RPC message as it came, named as such', () => {
    const model = new LogModel(100);
    model.add(outputLine('event', '<html>Bad gateway</html>', 1));
    const rows = model.visibleRows;
    expect(rows.map((row) => [row.kind, row.direction])).toEqual([['stderr', 'event']]);
    const wrapper = mount(LogRow, { props: { row: rows[0]!, expanded: true } });
    onTestFinished(() => wrapper.unmount());
    expect(wrapper.get('.arrow').attributes('title')).toBe(
      'an event from the server that is not a JSON-RPC message',
    );
    expect(wrapper.get('.summary .stderr-line').text()).toBe('<html>Bad gateway</html>');
  });
});
