import { type DOMWrapper, mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import WidgetTraffic from '../../extension/widgets/WidgetTraffic.vue';
import { TEXT_LIMIT } from '../../extension/ui/content';
import type { TrafficEntry } from '../../extension/widgets/apps-sdk/widget-host';

const AT = new Date(2026, 0, 2, 3, 4, 5, 67).getTime();

const ENTRIES: TrafficEntry[] = [
  {
    seq: 1,
    at: AT,
    direction: 'in',
    type: 'openai:callTool',
    data: { type: 'openai:callTool', requestId: 'r1', toolName: 'counter', params: { start: 1 } },
  },
  {
    seq: 2,
    at: AT + 5,
    direction: 'out',
    type: 'openai:callTool:result',
    data: { type: 'openai:callTool:result', requestId: 'r1', result: { structuredContent: { count: 2 } } },
  },
  {
    seq: 3,
    at: AT + 9,
    direction: 'in',
    type: 'openai:readToken',
    data: { type: 'openai:readToken' },
    ignored: true,
  },
  {
    seq: 4,
    at: AT + 12,
    direction: 'in',
    type: 'openai:openExternal',
    data: { type: 'openai:openExternal', href: 'javascript:alert(1)' },
    note: 'refused: only http and https links open',
  },
];

/** Opens a message's row as a click on its summary does. */
async function openRow(row: Pick<DOMWrapper<Element>, 'get'>): Promise<void> {
  const details = row.get('details');
  (details.element as HTMLDetailsElement).open = true;
  await details.trigger('toggle');
}

describe('WidgetTraffic', () => {
  it('says so when there is no message yet', () => {
    const wrapper = mount(WidgetTraffic, { props: { entries: [] } });
    expect(wrapper.text()).toContain('No messages yet');
    expect(wrapper.findAll('[data-testid="widget-message"]')).toHaveLength(0);
    expect(wrapper.get('[data-testid="widget-traffic-clear"]').attributes('disabled')).toBeDefined();
  });

  it('lists every message with its time, direction and type, ignored and refused ones marked', () => {
    const wrapper = mount(WidgetTraffic, { props: { entries: ENTRIES } });
    const rows = wrapper.findAll('[data-testid="widget-message"]');
    expect(rows.map((r) => [r.attributes('data-direction'), r.attributes('data-type')])).toEqual([
      ['in', 'openai:callTool'],
      ['out', 'openai:callTool:result'],
      ['in', 'openai:readToken'],
      ['in', 'openai:openExternal'],
    ]);
    expect(rows[0]!.get('time').text()).toBe('03:04:05.067');
    expect(rows[0]!.get('.direction').attributes('aria-label')).toBe('widget to host');
    expect(rows[1]!.get('.direction').attributes('aria-label')).toBe('host to widget');
    expect(rows[2]!.attributes('data-ignored')).toBe('true');
    expect(rows[2]!.find('[data-testid="widget-message-ignored"]').exists()).toBe(true);
    expect(rows[0]!.attributes('data-ignored')).toBeUndefined();
    const note = rows[3]!.get('[data-testid="widget-message-note"]');
    expect(note.text()).toBe('refused');
    expect(note.attributes('title')).toBe('refused: only http and https links open');
    expect(rows[3]!.get('details .note').text()).toBe('refused: only http and https links open');
    expect(wrapper.get('[data-testid="widget-traffic-count"]').text()).toBe('4');
  });

  it('shows each message as JSON in an expandable row, as text', async () => {
    const hostile = { type: 'openai:sendFollowupTurn', message: '<img src=x onerror="alert(1)">' };
    const wrapper = mount(WidgetTraffic, {
      props: { entries: [{ seq: 1, at: AT, direction: 'in', type: hostile.type, data: hostile }] },
    });
    const row = wrapper.get('[data-testid="widget-message"]');
    expect(row.get('details').element.tagName).toBe('DETAILS');
    await openRow(row);
    expect(JSON.parse(row.get('[data-testid="widget-message-json"]').text())).toEqual(hostile);
    expect(wrapper.findAll('img')).toHaveLength(0);
  });

  it('lists a message recorded when the user answered it in the place it was asked', () => {
    // Numbered when asked (2), recorded when answered: after the messages that came while it waited.
    const late: TrafficEntry = {
      seq: 2,
      at: AT + 1,
      direction: 'in',
      type: 'openai:openExternal',
      data: { type: 'openai:openExternal', href: 'https://example.com/docs' },
      note: 'dismissed: the user did not open it',
    };
    const after = ENTRIES.map((entry) => (entry.seq > 1 ? { ...entry, seq: entry.seq + 1 } : entry));
    const wrapper = mount(WidgetTraffic, { props: { entries: [...after, late] } });
    const rows = wrapper.findAll('[data-testid="widget-message"]');
    expect(rows.map((r) => r.get('time').text())).toEqual([
      '03:04:05.067',
      '03:04:05.068',
      '03:04:05.072',
      '03:04:05.076',
      '03:04:05.079',
    ]);
    expect(rows[1]!.get('[data-testid="widget-message-note"]').text()).toBe('dismissed');
  });

  it('keeps the order they were asked in for links asked in the same millisecond', () => {
    const link = (seq: number, note: string): TrafficEntry => ({
      seq,
      at: AT,
      direction: 'in',
      type: 'openai:openExternal',
      data: { type: 'openai:openExternal', href: `https://example.com/${seq}` },
      note,
    });
    // The first waited for the user while the other two were refused, so it was recorded last.
    const entries = [link(2, 'refused: busy'), link(3, 'refused: busy'), link(1, 'dismissed: by the user')];
    const wrapper = mount(WidgetTraffic, { props: { entries } });
    const notes = wrapper.findAll('[data-testid="widget-message-note"]').map((n) => n.text());
    expect(notes).toEqual(['dismissed', 'refused', 'refused']);
  });

  it('tells an opened link quietly and a link not opened as a warning, in the badge and the note', () => {
    const link = (seq: number, note: string): TrafficEntry => ({
      seq,
      at: AT + seq,
      direction: 'out',
      type: 'ui/open-link:result',
      data: {},
      note,
    });
    const wrapper = mount(WidgetTraffic, {
      props: {
        entries: [link(1, 'opened: in a new tab, as the user chose'), link(2, 'dismissed: not opened')],
      },
    });
    const tones = wrapper
      .findAll('[data-testid="widget-message"]')
      .map((row) => [
        row.get('[data-testid="widget-message-note"]').classes(),
        row.get('[data-testid="widget-message-note-text"]').classes(),
      ]);
    expect(tones).toEqual([
      [
        ['badge', 'muted'],
        ['note', 'muted'],
      ],
      [
        ['badge', 'warn'],
        ['note', 'warn'],
      ],
    ]);
  });

  it('writes a message only while its row is open, and a large one only in part until Show all', async () => {
    const big = { type: 'ui/notifications/tool-result', blob: 'x'.repeat(TEXT_LIMIT * 3) };
    const entries: TrafficEntry[] = Array.from({ length: 500 }, (_, i) => ({
      seq: i + 1,
      at: AT,
      direction: 'in',
      type: big.type,
      data: big,
    }));
    const wrapper = mount(WidgetTraffic, { props: { entries } });
    const written = () => wrapper.html().split('x').length - 1;
    // 500 messages of 150,000 characters each: none written while all are closed.
    expect(wrapper.findAll('[data-testid="widget-message-json"]')).toHaveLength(0);
    expect(written()).toBe(0);
    const row = wrapper.findAll('[data-testid="widget-message"]')[7]!;
    await openRow(row);
    expect(row.get('[data-testid="widget-message-json"]').element.textContent).toHaveLength(TEXT_LIMIT);
    expect(row.get('[data-testid="json-clipped"]').text()).toContain(
      `Showing the first 50,000 of ${JSON.stringify(big, null, 2).length.toLocaleString('en-US')} characters`,
    );
    expect(written()).toBeLessThan(TEXT_LIMIT);
    await row.get('[data-testid="show-all-json"]').trigger('click');
    expect(JSON.parse(row.get('[data-testid="widget-message-json"]').text())).toEqual(big);
  });

  it('asks to be cleared', async () => {
    const wrapper = mount(WidgetTraffic, { props: { entries: ENTRIES } });
    await wrapper.get('[data-testid="widget-traffic-clear"]').trigger('click');
    expect(wrapper.emitted('clear')).toHaveLength(1);
  });
});
