import { mount } from '@vue/test-utils';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ElicitationRequired, JsonObject } from '../../shared/api';
import ElicitationDialog from '../../extension/tools/ElicitationDialog.vue';

function sampling(request: JsonObject): ElicitationRequired {
  return {
    status: 'elicitation_required',
    kind: 'sampling',
    executionId: 'exec-1',
    requestId: 'req-1',
    request,
    timestamp: '2026-01-01T00:00:00.000Z',
  };
}

const REQUEST = {
  systemPrompt: 'You are a helpful test server.',
  messages: [
    { role: 'user', content: { type: 'text', text: 'Write a haiku about <b>tests</b>' } },
    { role: 'assistant', content: [{ type: 'text', text: 'Earlier answer' }] },
  ],
  maxTokens: 20,
  temperature: 0.7,
  modelPreferences: { hints: [{ name: 'claude' }], speedPriority: 0.5 },
  tools: [{ name: 'search', inputSchema: { type: 'object' } }],
};

function open(request: JsonObject = REQUEST) {
  const wrapper = mount(ElicitationDialog, {
    props: { elicitation: sampling(request), serverName: 'everything' },
    attachTo: document.body,
  });
  onTestFinished(() => wrapper.unmount());
  return wrapper;
}

describe('a sampling request', () => {
  it('shows the request as text: system prompt, each message with its role, and the settings', () => {
    const wrapper = open();
    expect(wrapper.find('[data-testid="elicitation-dialog"]').exists()).toBe(false);
    const dialog = wrapper.get('[data-testid="sampling-dialog"]');
    expect(dialog.text()).toContain('everything asks for an LLM reply');
    expect(wrapper.get('[data-testid="sampling-system"]').text()).toBe('You are a helpful test server.');
    const messages = wrapper.get('[data-testid="sampling-messages"]');
    expect(messages.findAll('li').map((li) => li.find('.role').text())).toEqual(['user', 'assistant']);
    expect(messages.text()).toContain('Write a haiku about <b>tests</b>');
    expect(messages.find('b').exists()).toBe(false);
    const settings = wrapper.get('[data-testid="sampling-settings"]').text();
    for (const part of [
      'Max tokens',
      '20',
      'Temperature',
      '0.7',
      'Model hints',
      'claude',
      'speedPriority',
      'Tools offered',
      'search',
    ])
      expect(settings).toContain(part);
  });

  it('sends the written reply as a CreateMessageResult', async () => {
    const wrapper = open();
    await wrapper.get('[data-testid="sampling-text"]').setValue('Green bars at dawn');
    await wrapper.get('[data-testid="sampling-model"]').setValue('hand-written');
    await wrapper.get('[data-testid="sampling-send"]').trigger('submit');
    await wrapper.get('form').trigger('submit');
    expect(wrapper.emitted('respond')).toEqual([
      [
        {
          action: 'accept',
          content: {
            role: 'assistant',
            content: { type: 'text', text: 'Green bars at dawn' },
            model: 'hand-written',
            stopReason: 'endTurn',
          },
        },
      ],
    ]);
  });

  it('sends an image reply, and waits while the model name or the image data is missing', async () => {
    const wrapper = open();
    await wrapper.get('[data-testid="sampling-kind"]').setValue('image');
    await wrapper.get('[data-testid="sampling-model"]').setValue(' ');
    const send = wrapper.get('[data-testid="sampling-send"]');
    expect(send.attributes('disabled')).toBeDefined();
    expect(wrapper.get('[data-testid="sampling-blocked"]').text()).toContain('Model');
    expect(wrapper.get('[data-testid="sampling-blocked"]').text()).toContain('Image: paste base64 data');
    await wrapper.get('form').trigger('submit');
    expect(wrapper.emitted('respond')).toBeUndefined();

    await wrapper.get('[data-testid="sampling-model"]').setValue('vision');
    await wrapper.get('[data-testid="sampling-image"]').setValue('iVBORw0K\nGgo=');
    expect(send.attributes('disabled')).toBeUndefined();
    await wrapper.get('form').trigger('submit');
    expect(wrapper.emitted('respond')?.[0]?.[0]).toEqual({
      action: 'accept',
      content: {
        role: 'assistant',
        content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        model: 'vision',
        stopReason: 'endTurn',
      },
    });
  });

  it('rejects with decline, and cancels with Escape, once', async () => {
    const rejected = open();
    await rejected.get('[data-testid="sampling-reject"]').trigger('click');
    await rejected.get('[data-testid="sampling-cancel"]').trigger('click');
    expect(rejected.emitted('respond')).toEqual([[{ action: 'decline' }]]);

    const escaped = open();
    await escaped.get('[data-testid="sampling-dialog"]').trigger('keydown', { key: 'Escape' });
    expect(escaped.emitted('respond')).toEqual([[{ action: 'cancel' }]]);
  });
});
