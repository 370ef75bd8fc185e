import { mount } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { effectScope } from 'vue';
import LinkConsent from '../../extension/widgets/LinkConsent.vue';
import { type LinkConsent as Consent, useLinkConsent } from '../../extension/widgets/link-consent';

/** The consent of one widget, whose tabs open into `opened`; disposed (as on unmount) after the test. */
function consent(): { links: Consent; opened: string[]; dispose: () => void } {
  const opened: string[] = [];
  const scope = effectScope();
  const links = scope.run(() => useLinkConsent((url) => opened.push(url)))!;
  onTestFinished(() => scope.stop());
  return { links, opened, dispose: () => scope.stop() };
}

describe('useLinkConsent', () => {
  it('opens nothing until the user answers Open, then opens the address asked for', async () => {
    const { links, opened } = consent();
    const answer = links.ask('https://example.com/docs?q=1');
    expect(links.prompt.value).toEqual({ seq: 1, url: 'https://example.com/docs?q=1', refused: 0 });
    expect(opened).toEqual([]);
    links.answer(true);
    expect(await answer).toBe('opened');
    expect(opened).toEqual(['https://example.com/docs?q=1']);
    expect(links.prompt.value).toBeNull();
  });

  it('opens nothing when the user dismisses', async () => {
    const { links, opened } = consent();
    const answer = links.ask('https://example.com/');
    links.answer(false);
    expect(await answer).toBe('dismissed');
    expect(opened).toEqual([]);
  });

  it('keeps one prompt: requests that come while it waits are refused and counted, never swapped in', async () => {
    const { links, opened } = consent();
    const first = links.ask('https://example.com/first');
    expect(await links.ask('https://evil.example/second')).toBe('busy');
    expect(await links.ask('https://evil.example/third')).toBe('busy');
    expect(links.prompt.value).toMatchObject({ url: 'https://example.com/first', refused: 2 });
    links.answer(true);
    expect(await first).toBe('opened');
    expect(opened).toEqual(['https://example.com/first']);
    // The next request gets a prompt of its own.
    void links.ask('https://example.com/next');
    expect(links.prompt.value).toEqual({ seq: 2, url: 'https://example.com/next', refused: 0 });
  });

  it('shows and opens the address as the browser reads it (punycode host, non-ASCII encoded)', () => {
    const { links } = consent();
    void links.ask('https://exаmple.com/pa th/\u202Egnp.exe');
    expect(links.prompt.value?.url).toBe('https://xn--exmple-4nf.com/pa%20th/%E2%80%AEgnp.exe');
  });

  it('withdraws the prompt as dismissed when the widget reloads or goes', async () => {
    const { links, opened, dispose } = consent();
    const reloaded = links.ask('https://example.com/a');
    links.withdraw();
    expect(await reloaded).toBe('dismissed');
    const gone = links.ask('https://example.com/b');
    dispose();
    expect(await gone).toBe('dismissed');
    expect(opened).toEqual([]);
  });
});

describe('LinkConsent', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function prompt(refused = 0) {
    const wrapper = mount(LinkConsent, {
      props: { prompt: { seq: 1, url: 'https://example.com/docs?x=%3Cb%3E', refused }, label: 'Widget' },
    });
    onTestFinished(() => wrapper.unmount());
    return wrapper;
  }

  it('shows the whole address as text, its origin first, and who asks', () => {
    const wrapper = prompt();
    const url = wrapper.get('[data-testid="widget-link-url"]');
    expect(url.text()).toBe('https://example.com/docs?x=%3Cb%3E');
    expect(url.get('strong').text()).toBe('https://example.com');
    expect(wrapper.text()).toContain('The widget wants to open');
    expect(wrapper.get('[data-testid="widget-link-consent"]').attributes('aria-label')).toBe(
      'Widget asks to open a link',
    );
  });

  it('says where an address with a user name goes, and shows no user name in its place', () => {
    const wrapper = mount(LinkConsent, {
      props: {
        prompt: { seq: 1, url: 'https://docs.example.com:x@evil.test/a?b#c', refused: 0 },
        label: 'App',
      },
    });
    onTestFinished(() => wrapper.unmount());
    const url = wrapper.get('[data-testid="widget-link-url"]');
    // The whole address is still there to read, in data-url; its text is where it goes.
    expect(url.attributes('data-url')).toBe('https://docs.example.com:x@evil.test/a?b#c');
    expect(url.text()).toBe('https://evil.test/a?b#c');
    expect(wrapper.get('[data-testid="widget-link-userinfo"]').text()).toBe(
      'It starts with “docs.example.com:x@”: what comes before the @ is a login, not where it goes. It goes to https://evil.test.',
    );
    expect(prompt().find('[data-testid="widget-link-userinfo"]').exists()).toBe(false);
  });

  it('arms Open only after a moment, so that a click meant for something else does not land on it', async () => {
    const wrapper = prompt();
    const open = wrapper.get('[data-testid="widget-link-open"]');
    expect(open.attributes('disabled')).toBeDefined();
    await open.trigger('click');
    expect(wrapper.emitted('answer')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(600);
    expect(open.attributes('disabled')).toBeUndefined();
    await open.trigger('click');
    expect(wrapper.emitted('answer')).toEqual([[true]]);
  });

  it('dismisses with the button, at once, or with Escape', async () => {
    const wrapper = prompt();
    await wrapper.get('[data-testid="widget-link-dismiss"]').trigger('click');
    await wrapper.get('[data-testid="widget-link-consent"]').trigger('keydown', { key: 'Escape' });
    expect(wrapper.emitted('answer')).toEqual([[false], [false]]);
  });

  it('says how many more links were refused while it waits', () => {
    expect(prompt(0).find('[data-testid="widget-link-refused"]').exists()).toBe(false);
    expect(prompt(1).get('[data-testid="widget-link-refused"]').text()).toBe(
      'It asked for 1 more link while this one waits: that one was not opened.',
    );
    expect(prompt(3).get('[data-testid="widget-link-refused"]').text()).toBe(
      'It asked for 3 more links while this one waits: those were not opened.',
    );
  });
});
