import { mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import WidgetFollowups from '../../extension/widgets/WidgetFollowups.vue';

describe('WidgetFollowups', () => {
  it('says where messages will show while there are none', () => {
    const wrapper = mount(WidgetFollowups, { props: { items: [] } });
    expect(wrapper.find('[data-testid="widget-followups"]').text()).toContain(
      'Messages the widget sends to the conversation show here.',
    );
    expect(wrapper.findAll('[data-testid="widget-followup"]')).toHaveLength(0);
  });

  it('lists the messages in order, as text and never as HTML', () => {
    const items = [
      { seq: 1, message: 'Tell me more about the number 6' },
      { seq: 2, message: '<img src=x onerror="alert(1)">\nsecond line' },
    ];
    const wrapper = mount(WidgetFollowups, { props: { items } });
    const rows = wrapper.findAll('[data-testid="widget-followup"]');
    expect(rows.map((row) => row.find('pre').element.textContent)).toEqual(items.map((i) => i.message));
    expect(wrapper.find('img').exists()).toBe(false);
    expect(wrapper.text()).not.toContain('show here');
  });
});
