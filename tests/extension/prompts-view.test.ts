import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import PromptMessages from '../../extension/prompts/PromptMessages.vue';
import PromptsView from '../../extension/prompts/PromptsView.vue';
import { loadMarkdown } from '../../extension/ui/markdown-loader';
import {
  missingArguments,
  promptArgs,
  usePromptsStore,
  type Prompt,
} from '../../extension/prompts/prompts-store';
import { answerPaths } from './support/fake-daemon';
import { layOutLists } from './support/list-layout';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const COMPLEX: Prompt = {
  name: 'complex_prompt',
  description: 'A prompt with arguments',
  arguments: [
    { name: 'temperature', description: 'Temperature setting', required: true },
    { name: 'style', description: 'Output style' },
  ],
};

describe('promptArgs', () => {
  it('sends only the arguments that have a value', () => {
    expect(promptArgs({ temperature: '0.7', style: '' })).toEqual({ temperature: '0.7' });
  });

  it('sends no arguments at all when every field is empty', () => {
    expect(promptArgs({ temperature: '', style: '   ' })).toBeUndefined();
    expect(promptArgs({})).toBeUndefined();
  });

  it('keeps values as typed, spaces included', () => {
    expect(promptArgs({ text: '  two words ', none: undefined })).toEqual({ text: '  two words ' });
  });
});

describe('missingArguments', () => {
  it('names the required arguments without a value', () => {
    expect(missingArguments(COMPLEX, {})).toEqual(['temperature']);
    expect(missingArguments(COMPLEX, { temperature: ' ' })).toEqual(['temperature']);
    expect(missingArguments(COMPLEX, { temperature: '1' })).toEqual([]);
    expect(missingArguments({ name: 'simple' }, {})).toEqual([]);
  });
});

describe('PromptMessages', () => {
  it('shows each message with its role and content by type', async () => {
    await loadMarkdown();
    const hostile = '<img src=x onerror="alert(1)">';
    const wrapper = mount(PromptMessages, {
      props: {
        result: {
          description: 'A complex prompt',
          messages: [
            { role: 'user', content: { type: 'text', text: `line one\nline two ${hostile}` } },
            { role: 'assistant', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
            { role: 'user', content: { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' } },
            {
              role: 'user',
              content: {
                type: 'resource',
                resource: {
                  uri: 'demo://resource/static/document/a.md',
                  mimeType: 'text/markdown',
                  text: '# A',
                },
              },
            },
            {
              role: 'assistant',
              content: { type: 'resource_link', uri: 'demo://b', name: 'b', description: 'The b resource' },
            },
          ],
        },
      },
    });
    expect(wrapper.get('[data-testid="prompt-result-description"]').text()).toBe('A complex prompt');
    const messages = wrapper.findAll('[data-testid="prompt-message"]');
    expect(messages.map((m) => m.get('[data-testid="prompt-role"]').text())).toEqual([
      'user',
      'assistant',
      'user',
      'user',
      'assistant',
    ]);
    expect(messages[0]!.get('pre').text()).toBe(`line one\nline two ${hostile}`);
    expect(messages[0]!.findAll('img')).toHaveLength(0);
    expect(messages[1]!.get('img').attributes('src')).toBe(`data:image/png;base64,${PNG}`);
    expect(messages[2]!.get('audio').attributes('src')).toBe('data:audio/wav;base64,UklGRg==');
    expect(messages[3]!.text()).toContain('demo://resource/static/document/a.md');
    expect(messages[3]!.get('[data-testid="resource-markdown"]').text()).toBe('A');
    expect(messages[4]!.text()).toContain('demo://b');
    expect(messages[4]!.text()).toContain('The b resource');
  });
});

describe('PromptsView', () => {
  beforeEach(() => setActivePinia(createPinia()));

  /** The view unpaired: listing fails, then the list is set as a server would have sent it. */
  async function mountView() {
    layOutLists();
    const wrapper = mount(PromptsView, { props: { serverId: 'everything' }, attachTo: document.body });
    onTestFinished(() => wrapper.unmount());
    await flushPromises();
    const store = usePromptsStore();
    store.prompts = [{ name: 'simple_prompt', description: 'A prompt without arguments' }, COMPLEX];
    store.select('complex_prompt');
    await flushPromises();
    return { wrapper, store };
  }

  it('lists the prompts with their descriptions', async () => {
    const { wrapper } = await mountView();
    expect(wrapper.get('[data-testid="prompt-simple_prompt"]').text()).toContain(
      'A prompt without arguments',
    );
    expect(wrapper.get('[data-testid="prompt-complex_prompt"]').attributes('aria-selected')).toBe('true');
  });

  it('marks required arguments and ties labels and help to the inputs', async () => {
    const { wrapper } = await mountView();
    const temperature = wrapper.get('[data-testid="prompt-arg-temperature"]');
    expect(temperature.attributes('aria-required')).toBe('true');
    const label = wrapper.get(`label[for="${temperature.attributes('id')}"]`);
    expect(label.text()).toContain('temperature');
    expect(label.text()).toContain('*');
    const help = wrapper.get(`#${CSS.escape(temperature.attributes('aria-describedby')!)}`);
    expect(help.text()).toBe('Temperature setting');
    expect(wrapper.get('[data-testid="prompt-arg-style"]').attributes('aria-required')).toBeUndefined();
  });

  it('marks under an argument box the hidden characters its value holds', async () => {
    const { wrapper } = await mountView();
    const temperature = wrapper.get('[data-testid="prompt-arg-temperature"]');
    // As a completion the server offered would fill it.
    await temperature.setValue('hot\u202Edlo');
    const marks = wrapper.get('[data-testid="prompt-arg-temperature-hidden"]');
    expect(marks.text()).toBe('Holds characters the box does not show: hot[RLO]dlo');
    expect(temperature.attributes('aria-describedby')!.split(' ')).toEqual([
      marks.attributes('id'),
      expect.stringMatching(/-temperature-help$/),
    ]);
    await temperature.setValue('hot');
    expect(wrapper.find('[data-testid="prompt-arg-temperature-hidden"]').exists()).toBe(false);
  });

  it('keeps Get disabled with a hint while a required argument is empty', async () => {
    const { wrapper, store } = await mountView();
    const button = wrapper.get('[data-testid="prompt-get"]');
    expect(button.attributes('disabled')).toBeDefined();
    expect(wrapper.get('[data-testid="prompt-missing"]').text()).toContain('temperature');

    await wrapper.get('[data-testid="prompt-arg-temperature"]').setValue('0.5');
    expect(store.currentValues).toEqual({ temperature: '0.5' });
    expect(button.attributes('disabled')).toBeUndefined();
    expect(wrapper.find('[data-testid="prompt-missing"]').exists()).toBe(false);
  });

  it('gets the prompt on Ctrl+Enter and shows a failure clearly', async () => {
    const { wrapper } = await mountView();
    await wrapper.get('[data-testid="prompt-arg-temperature"]').setValue('0.5');
    await wrapper.get('[data-testid="prompt-arg-style"]').trigger('keydown', { key: 'Enter', ctrlKey: true });
    await flushPromises();
    // Not paired with a daemon here: the call fails before any request, and says why.
    expect(wrapper.get('[data-testid="prompt-error"]').text()).toContain('Not paired with a daemon');
  });
});

describe('the prompts list', () => {
  beforeEach(() => setActivePinia(createPinia()));

  async function mountListing(answer: Record<string, unknown>) {
    layOutLists();
    answerPaths({ '/prompts/list': answer });
    const wrapper = mount(PromptsView, { props: { serverId: 'everything' }, attachTo: document.body });
    onTestFinished(() => wrapper.unmount());
    await flushPromises();
    return { wrapper, store: usePromptsStore() };
  }

  it('puts only the rows in view in the page, of 20,000 prompts, and shows a name listed twice twice', async () => {
    const prompts = Array.from({ length: 20_000 }, (_, i) => ({ name: `p${i}`, description: `Prompt ${i}` }));
    prompts[1] = { name: 'p0', description: 'The other p0' };
    const { wrapper, store } = await mountListing({ prompts });
    expect(wrapper.findAll('[role="option"]').length).toBeLessThanOrEqual(40);
    expect(
      wrapper.findAll('[data-testid="prompt-p0"]').map((row) => row.get('.split-item-desc').text()),
    ).toEqual(['Prompt 0', 'The other p0']);
    await wrapper.get('[data-testid="prompt-search"]').setValue('Prompt 19999');
    await wrapper.get('[data-testid="prompt-p19999"]').trigger('keydown', { key: 'Enter' });
    expect(store.selectedName).toBe('p19999');
  });

  it('selects and shows each prompt of a name listed twice on its own, and marks both', async () => {
    const { wrapper, store } = await mountListing({
      prompts: [
        { name: 'greet', description: 'The first greet' },
        { name: 'other' },
        { name: 'greet', description: 'The second greet', arguments: [{ name: 'who' }] },
      ],
    });
    const selected = () =>
      wrapper
        .findAll('[role="option"][aria-selected="true"]')
        .map((row) => row.find('.split-item-desc').text());
    expect(selected()).toEqual(['The first greet']);
    const [first, second] = wrapper.findAll('[data-testid="prompt-greet"]');
    await second!.trigger('click');
    expect(selected()).toEqual(['The second greet']);
    expect(wrapper.get('[aria-label="Prompt"] header').text()).toContain('The second greet');
    expect(wrapper.find('[data-testid="prompt-arg-who"]').exists()).toBe(true);
    await first!.trigger('click');
    expect(selected()).toEqual(['The first greet']);
    expect(wrapper.find('[data-testid="prompt-arg-who"]').exists()).toBe(false);
    expect(store.selectedName).toBe('greet');
    const badges = wrapper.findAll('[role="option"] [data-testid="repeat-badge"]');
    expect(badges.map((badge) => badge.text())).toEqual(['listed 2×', 'listed 2×']);
    expect(badges[0]!.attributes('title')).toContain('which MCP does not allow');
    expect(wrapper.get('[data-testid="prompt-other"]').find('[data-testid="repeat-badge"]').exists()).toBe(
      false,
    );
  });

  it('keeps the arguments typed for each prompt of a name listed twice apart', async () => {
    const { wrapper, store } = await mountListing({
      prompts: [
        { name: 'greet', description: 'The first greet', arguments: [{ name: 'who' }] },
        { name: 'greet', description: 'The second greet', arguments: [{ name: 'who' }] },
      ],
    });
    const [first, second] = wrapper.findAll('[data-testid="prompt-greet"]');
    const who = () => (wrapper.get('[data-testid="prompt-arg-who"]').element as HTMLInputElement).value;
    await wrapper.get('[data-testid="prompt-arg-who"]').setValue('Ada');
    await second!.trigger('click');
    await flushPromises();
    expect(who()).toBe('');
    expect(store.currentValues).toEqual({});
    await wrapper.get('[data-testid="prompt-arg-who"]').setValue('Grace');
    await first!.trigger('click');
    await flushPromises();
    expect(who()).toBe('Ada');
    await second!.trigger('click');
    await flushPromises();
    expect(who()).toBe('Grace');
  });

  it('says what the daemon found wrong in the prompts/list answer, above the list, as text', async () => {
    const { wrapper } = await mountListing({
      prompts: [{ name: 'simple_prompt' }],
      resultProblem: 'prompts.1 has no string "name": left out; "<b>nextCursor</b>" is a JSON number',
    });
    const warning = wrapper.get('[data-testid="prompts-list-problem"]');
    expect(warning.text()).toBe(
      'The server\'s prompts/list answer is not as MCP says: prompts.1 has no string "name": left out; ' +
        '"<b>nextCursor</b>" is a JSON number',
    );
    expect(warning.find('b').exists()).toBe(false);
    expect(wrapper.find('[data-testid="prompt-simple_prompt"]').exists()).toBe(true);
  });
});
