import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import ResourcesView from '../../extension/resources/ResourcesView.vue';
import { useResourcesStore } from '../../extension/resources/resources-store';
import { answerPaths } from './support/fake-daemon';
import { layOutLists } from './support/list-layout';

async function mountListing(answers: Record<string, unknown>) {
  layOutLists();
  answerPaths(answers);
  const wrapper = mount(ResourcesView, { props: { serverId: 'everything' }, attachTo: document.body });
  onTestFinished(() => wrapper.unmount());
  await flushPromises();
  return { wrapper, store: useResourcesStore() };
}

describe('the resources lists', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('says what the daemon found wrong in either list answer, above the lists, as text', async () => {
    const { wrapper } = await mountListing({
      '/resources/list': {
        resources: [{ uri: 'test://a', name: 'a' }],
        resultProblem: 'resources.1 has no string "uri": left out',
      },
      '/resources/templates/list': {
        resourceTemplates: [],
        resultProblem: '"resourceTemplates" is a JSON string, not an array: no resourceTemplates shown',
      },
    });
    expect(wrapper.get('[data-testid="resources-list-problem"]').text()).toBe(
      'The server\'s resources/list answer is not as MCP says: resources.1 has no string "uri": left out',
    );
    expect(wrapper.get('[data-testid="templates-list-problem"]').text()).toBe(
      "The server's resources/templates/list answer is not as MCP says: " +
        '"resourceTemplates" is a JSON string, not an array: no resourceTemplates shown',
    );
    expect(wrapper.find('[data-testid="resource-test://a"]').exists()).toBe(true);
  });

  it('puts only the rows in view in the page, and shows a URI listed twice twice', async () => {
    const resources = Array.from({ length: 20_000 }, (_, i) => ({ uri: `test://${i}`, name: `r${i}` }));
    resources[1] = { uri: 'test://0', name: 'the other test://0' };
    const { wrapper, store } = await mountListing({
      '/resources/list': { resources },
      '/resources/templates/list': {
        resourceTemplates: [
          { uriTemplate: 'test://{id}', name: 'twice' },
          { uriTemplate: 'other://{id}', name: 'twice' },
        ],
      },
    });
    expect(wrapper.findAll('[role="option"]').length).toBeLessThanOrEqual(40);
    expect(wrapper.findAll('[data-testid="resource-test://0"]').map((row) => row.text())).toEqual([
      'r0test://0listed 2×',
      'the other test://0test://0listed 2×',
    ]);
    expect(wrapper.findAll('[data-testid="template-twice"]').map((row) => row.text())).toEqual([
      'twicetest://{id}',
      'twiceother://{id}',
    ]);
    await wrapper.get('[data-testid="template-twice"]').trigger('keydown', { key: 'Enter' });
    expect(store.selectedTemplate).toBe('twice');
  });

  it('selects each resource of a URI listed twice, and each template of a name listed twice, on its own', async () => {
    const { wrapper, store } = await mountListing({
      '/resources/list': {
        resources: [
          { uri: 'test://same', name: 'first' },
          { uri: 'test://other', name: 'other' },
          { uri: 'test://same', name: 'second' },
        ],
      },
      '/resources/templates/list': {
        resourceTemplates: [
          { uriTemplate: 'test://{id}', name: 'twice', description: 'The first template' },
          { uriTemplate: 'test://{id}', name: 'twice', description: 'The second template' },
          { uriTemplate: 'other://{id}', name: 'once' },
        ],
      },
      '/resources/read': { contents: [] },
    });
    const selected = () =>
      wrapper.findAll('[role="option"][aria-selected="true"]').map((row) => row.text().split('test://')[0]);
    const [first, second] = wrapper.findAll('[data-testid="resource-test://same"]');
    await second!.trigger('click');
    await flushPromises();
    expect(selected()).toEqual(['second']);
    expect(store.selectedUri).toBe('test://same');
    await first!.trigger('click');
    await flushPromises();
    expect(selected()).toEqual(['first']);
    // By URI from elsewhere (a resource link, a deep link): the first of it.
    await store.selectResource('test://same');
    await flushPromises();
    expect(selected()).toEqual(['first']);

    const templates = wrapper.findAll('[data-testid="template-twice"]');
    await templates[1]!.trigger('click');
    expect(selected()).toEqual(['twice']);
    expect(templates[1]!.attributes('aria-selected')).toBe('true');
    expect(templates[0]!.attributes('aria-selected')).toBe('false');
    expect(wrapper.get('[aria-label="Resource"] header').text()).toContain('The second template');

    const badges = (testId: string) =>
      wrapper.findAll(`[data-testid="${testId}"]`).map((row) => row.find('[data-testid="repeat-badge"]'));
    expect(badges('resource-test://same').map((badge) => badge.text())).toEqual(['listed 2×', 'listed 2×']);
    expect(badges('resource-test://same')[0]!.attributes('title')).toContain('lists this URI 2 times');
    expect(badges('resource-test://other')[0]!.exists()).toBe(false);
    expect(badges('template-twice').map((badge) => badge.text())).toEqual(['listed 2×', 'listed 2×']);
    expect(badges('template-twice')[0]!.attributes('title')).toContain('lists this URI template 2 times');
    expect(badges('template-once')[0]!.exists()).toBe(false);
  });
});

describe('the resources search', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('finds a resource or template by any of its fields, case aside, and follows a new list', async () => {
    const { wrapper, store } = await mountListing({
      '/resources/list': {
        resources: [
          { uri: 'file:///Notes.md', name: 'notes', mimeType: 'text/markdown' },
          { uri: 'test://b', name: 'b', title: 'Quarterly Report', description: 'Numbers' },
          // A server's mistake: a name that is a number, searched as it is shown, breaking nothing.
          { uri: 'test://c', name: 5, description: 'plain' },
        ],
      },
      '/resources/templates/list': {
        resourceTemplates: [{ uriTemplate: 'users://{id}', name: 'user', description: 'A user by id' }],
      },
    });
    const shown = () => ({
      resources: store.filtered.map((r) => r.uri),
      templates: store.filteredTemplates.map((t) => t.name),
    });
    await wrapper.get('[data-testid="resource-search"]').setValue('MARKDOWN');
    expect(shown()).toEqual({ resources: ['file:///Notes.md'], templates: [] });
    await wrapper.get('[data-testid="resource-search"]').setValue('  report ');
    expect(shown()).toEqual({ resources: ['test://b'], templates: [] });
    await wrapper.get('[data-testid="resource-search"]').setValue('by id');
    expect(shown()).toEqual({ resources: [], templates: ['user'] });
    // Fields are searched one by one: the end of a name and the start of the next field do not match.
    await wrapper.get('[data-testid="resource-search"]').setValue('5plain');
    expect(shown().resources).toEqual([]);
    await wrapper.get('[data-testid="resource-search"]').setValue('plain');
    expect(shown().resources).toEqual(['test://c']);
    // Shown as "5", it is found by its digits.
    await wrapper.get('[data-testid="resource-search"]').setValue('5');
    expect(shown().resources).toEqual(['test://c']);
    await wrapper.get('[data-testid="resource-search"]').setValue('plain');
    expect(wrapper.find('[data-testid="resource-test://c"]').exists()).toBe(true);
    // A new list is searched as it comes.
    store.resources = [{ uri: 'test://d', name: 'plainly new' }];
    await flushPromises();
    expect(shown().resources).toEqual(['test://d']);
  });
});

describe('Retry of a list that failed', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('hands the keyboard to the search box once its button has gone with the error', async () => {
    const { wrapper } = await mountListing({});
    const retry = wrapper.get('[data-testid="resources-error"] button');
    (retry.element as HTMLButtonElement).focus();
    answerPaths({
      '/resources/list': { resources: [{ uri: 'test://a', name: 'a' }] },
      '/resources/templates/list': { resourceTemplates: [] },
    });
    await retry.trigger('click');
    await flushPromises();
    expect(wrapper.find('[data-testid="resources-error"]').exists()).toBe(false);
    expect(document.activeElement?.getAttribute('data-testid')).toBe('resource-search');
  });
});
