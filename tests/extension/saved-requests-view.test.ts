import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, type Pinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import SavedRequests from '../../extension/saved-requests/SavedRequests.vue';
import { extensionStore } from '../../extension/app/extension-store';
import { PLATFORM, type Platform } from '../../extension/app/platform';

const platform: Platform = {
  kind: 'extension',
  store: extensionStore(),
  defaultDaemonUrl: 'http://127.0.0.1:6274',
  requestHostAccess: async () => true,
  hasHostAccess: async () => true,
};

interface Props {
  serverId: string;
  toolName: string | null;
  parameters: Record<string, unknown>;
}

/** A new Pinia per mount stands for a fresh panel: only extension storage carries data over. */
async function mountView(props: Partial<Props> = {}, pinia: Pinia = createPinia()): Promise<VueWrapper> {
  const wrapper = mount(SavedRequests, {
    props: { serverId: 'everything', toolName: 'echo', parameters: { message: 'hello' }, ...props },
    global: { plugins: [pinia], provide: { [PLATFORM as symbol]: platform } },
    attachTo: document.body,
  });
  onTestFinished(() => wrapper.unmount());
  await flushPromises();
  return wrapper;
}

async function saveRequest(wrapper: VueWrapper, title: string, description = ''): Promise<void> {
  await wrapper.get('[data-testid="saved-title"]').setValue(title);
  await wrapper.get('[data-testid="saved-description"]').setValue(description);
  await wrapper.get('[data-testid="saved-save"]').trigger('submit');
  await flushPromises();
}

function titles(wrapper: VueWrapper): string[] {
  return wrapper.findAll('[data-testid="saved-item-title"]').map((t) => t.text());
}

function item(wrapper: VueWrapper, title: string): VueWrapper | ReturnType<VueWrapper['get']> {
  const found = wrapper.findAll('[data-testid="saved-item"]').find((i) => i.text().includes(title));
  if (!found) throw new Error(`no saved item titled ${title}`);
  return found;
}

beforeEach(() => {
  fakeBrowser.reset();
});

describe('SavedRequests', () => {
  it('says how to save a request while there is none', async () => {
    const wrapper = await mountView();
    expect(wrapper.get('[data-testid="saved-empty"]').text()).toMatch(/Save current request/);
    expect(wrapper.findAll('[data-testid="saved-item"]')).toHaveLength(0);
  });

  it('enables saving only with a tool and a title', async () => {
    const noTool = await mountView({ toolName: null });
    await noTool.get('[data-testid="saved-title"]').setValue('Something');
    expect(noTool.get('[data-testid="saved-save"]').attributes('disabled')).toBeDefined();

    const withTool = await mountView();
    const button = withTool.get('[data-testid="saved-save"]');
    expect(button.attributes('disabled')).toBeDefined();
    await withTool.get('[data-testid="saved-title"]').setValue('   ');
    expect(button.attributes('disabled')).toBeDefined();
    await withTool.get('[data-testid="saved-title"]').setValue('Echo hello');
    expect(button.attributes('disabled')).toBeUndefined();
  });

  it('saves the current request, clears the form and still lists it after a restart', async () => {
    const wrapper = await mountView();
    await saveRequest(wrapper, 'Echo hello', 'greets the world');

    const entry = wrapper.get('[data-testid="saved-item"]');
    expect(entry.text()).toContain('Echo hello');
    expect(entry.text()).toContain('echo');
    expect(entry.text()).toContain('greets the world');
    expect((wrapper.get('[data-testid="saved-title"]').element as HTMLInputElement).value).toBe('');
    expect(wrapper.find('[data-testid="saved-empty"]').exists()).toBe(false);

    wrapper.unmount();
    const restarted = await mountView();
    expect(titles(restarted)).toEqual(['Echo hello']);
  });

  it('marks hidden characters in a title and description, as an imported collection may hold them', async () => {
    const wrapper = await mountView();
    await saveRequest(wrapper, 'Echo\u202Eolleh', `checks${'\u{E0041}'}`);
    const title = wrapper.get('[data-testid="saved-item-title"]');
    expect(title.text()).toBe('Echo[RLO]olleh');
    expect(title.attributes('title')).toBe('Echo[RLO]olleh');
    expect(wrapper.get('[data-testid="saved-item"] .description').text()).toBe('checks[hidden tags: "A"]');
  });

  it('emits load with the tool and a copy of the saved parameters', async () => {
    const parameters = { message: 'hello', nested: { n: 1 } };
    const wrapper = await mountView({ parameters });
    await saveRequest(wrapper, 'Nested');
    await wrapper.setProps({ toolName: 'add', parameters: { a: 1 } });

    await wrapper.get('[data-testid="saved-load"]').trigger('click');
    expect(wrapper.emitted('load')).toEqual([[{ toolName: 'echo', parameters }]]);
  });

  it('renames inline: Enter confirms, Escape cancels', async () => {
    const wrapper = await mountView();
    await saveRequest(wrapper, 'Old title', 'old description');

    await wrapper.get('[data-testid="saved-rename"]').trigger('click');
    const input = wrapper.get('[data-testid="saved-rename-title"]');
    expect(document.activeElement).toBe(input.element);
    await input.setValue('Abandoned');
    await input.trigger('keydown', { key: 'Escape' });
    expect(titles(wrapper)).toEqual(['Old title']);
    expect(wrapper.find('[data-testid="saved-rename-title"]').exists()).toBe(false);
    expect(document.activeElement?.getAttribute('data-testid')).toBe('saved-rename');

    await wrapper.get('[data-testid="saved-rename"]').trigger('click');
    // A blank title is refused, saying so, and the field stays open.
    await wrapper.get('[data-testid="saved-rename-title"]').setValue('   ');
    await wrapper.get('[data-testid="saved-rename-title"]').trigger('keydown', { key: 'Enter' });
    expect(wrapper.get('[data-testid="saved-problem"]').text()).toContain('A saved request needs a title');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('saved-rename-title');
    // Cancel takes what was said of the rename with it; the rename starts again.
    await wrapper.get('[data-testid="saved-rename-cancel"]').trigger('click');
    expect(wrapper.find('[data-testid="saved-problem"]').exists()).toBe(false);
    await wrapper.get('[data-testid="saved-rename"]').trigger('click');
    await wrapper.get('[data-testid="saved-rename-title"]').setValue('New title');
    await wrapper.get('[data-testid="saved-rename-description"]').setValue('new description');
    await wrapper.get('[data-testid="saved-rename-title"]').trigger('keydown', { key: 'Enter' });
    await flushPromises();
    expect(titles(wrapper)).toEqual(['New title']);
    expect(wrapper.get('[data-testid="saved-item"]').text()).toContain('new description');

    wrapper.unmount();
    expect(titles(await mountView())).toEqual(['New title']);
  });

  it('duplicates an entry and lists favourites first', async () => {
    const wrapper = await mountView();
    await saveRequest(wrapper, 'Original');
    await wrapper.get('[data-testid="saved-duplicate"]').trigger('click');
    await flushPromises();
    expect(titles(wrapper).sort()).toEqual(['Original', 'Original (copy)']);

    const star = item(wrapper, 'Original (copy)').get('[data-testid="saved-favorite"]');
    await star.trigger('click');
    await flushPromises();
    expect(titles(wrapper)).toEqual(['Original (copy)', 'Original']);
    expect(
      wrapper.findAll('[data-testid="saved-favorite"]').map((s) => s.attributes('aria-pressed')),
    ).toEqual(['true', 'false']);

    wrapper.unmount();
    expect(titles(await mountView())).toEqual(['Original (copy)', 'Original']);
  });

  it('asks inline before deleting, without window.confirm', async () => {
    // happy-dom has no window.confirm; one that would approve shows that the view never asks it.
    const confirm = vi.fn(() => true);
    Object.defineProperty(window, 'confirm', { value: confirm, configurable: true });
    onTestFinished(() => {
      Reflect.deleteProperty(window, 'confirm');
    });
    const wrapper = await mountView();
    await saveRequest(wrapper, 'Doomed');

    await wrapper.get('[data-testid="saved-delete"]').trigger('click');
    expect(titles(wrapper)).toEqual(['Doomed']);
    await wrapper.get('[data-testid="saved-delete-cancel"]').trigger('click');
    expect(wrapper.find('[data-testid="saved-delete-confirm"]').exists()).toBe(false);
    expect(titles(wrapper)).toEqual(['Doomed']);

    await wrapper.get('[data-testid="saved-delete"]').trigger('click');
    await wrapper.get('[data-testid="saved-delete-confirm"]').trigger('click');
    await flushPromises();
    expect(titles(wrapper)).toEqual([]);
    expect(confirm).not.toHaveBeenCalled();

    wrapper.unmount();
    expect(titles(await mountView())).toEqual([]);
  });

  it('filters the list and says when nothing matches', async () => {
    const wrapper = await mountView();
    await saveRequest(wrapper, 'Echo hello');
    await wrapper.setProps({ toolName: 'add' });
    await saveRequest(wrapper, 'Sum', 'adds two numbers');

    await wrapper.get('[data-testid="saved-filter"]').setValue('NUMBERS');
    expect(titles(wrapper)).toEqual(['Sum']);
    await wrapper.get('[data-testid="saved-filter"]').setValue('zzz');
    expect(titles(wrapper)).toEqual([]);
    expect(wrapper.text()).toContain('No saved request matches “zzz”');
  });

  it('shows the first 200 of 1,000 saved requests, says how many more, and finds the others by filter', async () => {
    const at = (i: number): string => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    const many = Array.from({ length: 1000 }, (_, i) => ({
      id: `r${i}`,
      title: `Request ${i}`,
      description: '',
      toolName: 'echo',
      parameters: { message: `m${i}` },
      favorite: false,
      createdAt: at(i),
      updatedAt: at(i),
    }));
    await platform.store.set('savedRequests:everything', many);
    const wrapper = await mountView();
    expect(wrapper.findAll('[data-testid="saved-item"]')).toHaveLength(200);
    // The most recently updated first.
    expect(titles(wrapper)[0]).toBe('Request 999');
    expect(wrapper.get('[data-testid="saved-more"]').text()).toContain('800 more');
    await wrapper.get('[data-testid="saved-filter"]').setValue('Request 7');
    expect(titles(wrapper)).toContain('Request 7');
    expect(wrapper.find('[data-testid="saved-more"]').exists()).toBe(false);
  });

  it('keeps each server its own list when serverId changes', async () => {
    const wrapper = await mountView({ serverId: 'alpha' });
    await saveRequest(wrapper, 'Alpha request');
    await wrapper.setProps({ serverId: 'beta' });
    await flushPromises();
    expect(titles(wrapper)).toEqual([]);
    await wrapper.setProps({ serverId: 'alpha' });
    await flushPromises();
    expect(titles(wrapper)).toEqual(['Alpha request']);
  });

  it('exports saved-requests-<serverId>.json through a Blob link', async () => {
    const wrapper = await mountView({ serverId: 'alpha' });
    expect(wrapper.get('[data-testid="saved-export"]').attributes('disabled')).toBeDefined();
    await saveRequest(wrapper, 'Echo hello');

    const blobs: Blob[] = [];
    const createObjectURL = vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      blobs.push(blob as Blob);
      return 'blob:saved-requests';
    });
    const downloads: Array<{ href: string; download: string }> = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      downloads.push({ href: this.href, download: this.download });
    });
    onTestFinished(() => {
      createObjectURL.mockRestore();
      click.mockRestore();
    });

    await wrapper.get('[data-testid="saved-export"]').trigger('click');
    expect(downloads).toEqual([{ href: 'blob:saved-requests', download: 'saved-requests-alpha.json' }]);
    const file = JSON.parse(await blobs[0]!.text());
    expect(file).toMatchObject({
      version: 1,
      serverId: 'alpha',
      requests: [{ title: 'Echo hello', toolName: 'echo', parameters: { message: 'hello' } }],
    });
  });

  it('imports a file and reports the count and every problem', async () => {
    const wrapper = await mountView();
    const text = JSON.stringify({
      version: 1,
      serverId: 'elsewhere',
      requests: [
        { title: 'Imported', toolName: 'echo', parameters: { message: 'hi' } },
        { title: 'No tool', parameters: {} },
        { title: 'Bad params', toolName: 'echo', parameters: [1] },
      ],
    });
    const input = wrapper.get('[data-testid="saved-import"]');
    Object.defineProperty(input.element, 'files', {
      value: [new File([text], 'saved.json', { type: 'application/json' })],
    });
    await input.trigger('change');
    await flushPromises();

    const report = wrapper.get('[data-testid="saved-import-report"]');
    expect(report.text()).toContain('Imported 1 saved request.');
    expect(report.findAll('li').map((li) => li.text())).toEqual([
      'requests[1].toolName: must be a non-empty string',
      'requests[2].parameters: must be an object',
    ]);
    expect(titles(wrapper)).toEqual(['Imported']);

    expect(report.find('[data-testid="saved-import-skipped"]').exists()).toBe(false);

    // The same file again adds nothing, and says so.
    await input.trigger('change');
    await flushPromises();
    expect(wrapper.get('[data-testid="saved-import-report"]').text()).toContain('Imported 0 saved requests.');
    expect(wrapper.get('[data-testid="saved-import-skipped"]').text()).toBe('Skipped 1 already saved.');
    expect(titles(wrapper)).toEqual(['Imported']);

    // Anything done next makes the report old news: it goes, on Load as on any change.
    await wrapper.get('[data-testid="saved-load"]').trigger('click');
    expect(wrapper.find('[data-testid="saved-import-report"]').exists()).toBe(false);
    await input.trigger('change');
    await flushPromises();
    expect(wrapper.find('[data-testid="saved-import-report"]').exists()).toBe(true);
    await wrapper.get('[data-testid="saved-duplicate"]').trigger('click');
    await flushPromises();
    expect(wrapper.find('[data-testid="saved-import-report"]').exists()).toBe(false);
    expect(titles(wrapper)).toHaveLength(2);

    wrapper.unmount();
    expect(titles(await mountView())).toHaveLength(2);
  });
});
