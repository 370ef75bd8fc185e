/**
 * @vitest-environment jsdom
 *
 * ContentBlock renders Markdown through DOMPurify, which does not work on happy-dom: tested on jsdom.
 */
import { mount } from '@vue/test-utils';
import { describe, expect, it, onTestFinished } from 'vitest';
import { nextTick } from 'vue';
import ContentBlock from '../../extension/ui/ContentBlock.vue';
import { loadMarkdown, markdownRenderer } from '../../extension/ui/markdown-loader';
import { dataUrl, mediaMime, OPEN_RESOURCE, TEXT_LIMIT } from '../../extension/ui/content';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function view(props: { block?: unknown; contents?: unknown }, opened?: string[]) {
  const wrapper = mount(ContentBlock, {
    props,
    attachTo: document.body,
    global: opened ? { provide: { [OPEN_RESOURCE as symbol]: (uri: string) => opened.push(uri) } } : {},
  });
  onTestFinished(() => wrapper.unmount());
  return wrapper;
}

describe('ContentBlock', () => {
  it('shows text as text, server markup included', () => {
    const hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    const wrapper = view({ block: { type: 'text', text: `one\ntwo ${hostile}` } });
    expect(wrapper.get('[data-testid="content-text"] pre').text()).toBe(`one\ntwo ${hostile}`);
    expect(wrapper.findAll('img, script')).toHaveLength(0);
  });

  it('pretty-prints JSON text and switches to the raw text', async () => {
    const wrapper = view({ block: { type: 'text', text: '{"a":[1]}' } });
    expect(wrapper.get('[data-testid="text-json"]').text()).toBe('{\n  "a": [\n    1\n  ]\n}');
    await wrapper.get('[data-testid="text-json-toggle"]').trigger('click');
    expect(wrapper.find('[data-testid="text-json"]').exists()).toBe(false);
    expect(wrapper.get('pre').text()).toBe('{"a":[1]}');
  });

  it('shows the first part of a huge text, and all of it on request', async () => {
    const huge = 'x'.repeat(TEXT_LIMIT * 4 + 7);
    const wrapper = view({ block: { type: 'text', text: huge } });
    expect(wrapper.get('pre').text()).toHaveLength(TEXT_LIMIT);
    expect(wrapper.text()).toContain(`of ${(TEXT_LIMIT * 4 + 7).toLocaleString('en-US')} characters`);
    await wrapper.get('[data-testid="show-all-text"]').trigger('click');
    expect(wrapper.get('pre').text()).toHaveLength(huge.length);
    expect(wrapper.find('[data-testid="show-all-text"]').exists()).toBe(false);
  });

  it('shows a text of megabytes a million characters more at a time, or all of it', async () => {
    const huge = 'y'.repeat(2_500_000);
    const wrapper = view({ block: { type: 'text', text: huge } });
    expect(wrapper.get('pre').text()).toHaveLength(TEXT_LIMIT);
    await wrapper.get('[data-testid="show-more-text"]').trigger('click');
    expect(wrapper.get('pre').text()).toHaveLength(TEXT_LIMIT + 1_000_000);
    expect(wrapper.text()).toContain(
      `Showing the first ${(TEXT_LIMIT + 1_000_000).toLocaleString('en-US')} of 2,500,000`,
    );
    await wrapper.get('[data-testid="show-more-text"]').trigger('click');
    // Less than a million left: Show all says the rest.
    expect(wrapper.find('[data-testid="show-more-text"]').exists()).toBe(false);
    await wrapper.get('[data-testid="show-all-text"]').trigger('click');
    expect(wrapper.get('pre').text()).toHaveLength(huge.length);
  });

  it('shows an image and gives audio a player, from their base64 data', () => {
    const image = view({ block: { type: 'image', data: PNG, mimeType: 'image/png' } });
    expect(image.get('img').attributes('src')).toBe(`data:image/png;base64,${PNG}`);
    expect(image.get('img').attributes('alt')).toContain('image/png');
    expect(image.get('figcaption').text()).toContain('bytes');
    const audio = view({ block: { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' } });
    expect(audio.get('audio').attributes('src')).toBe('data:audio/wav;base64,UklGRg==');
    expect(audio.get('audio').attributes()).toHaveProperty('controls');
  });

  it('refuses an image whose MIME type is not an image type, and keeps data: URLs to base64', () => {
    const wrapper = view({ block: { type: 'image', data: PNG, mimeType: 'text/html' } });
    expect(wrapper.find('img').exists()).toBe(false);
    expect(wrapper.get('[data-testid="content-bad-mime"]').text()).toContain('"text/html" is not an image');
    expect(mediaMime('image/svg+xml', 'image')).toBe('image/svg+xml');
    expect(mediaMime('image/png"><script>', 'image')).toBeUndefined();
    expect(dataUrl('image/png', 'AA"); background: url(https://x)')).toBe(
      'data:image/png;base64,AAbackgroundurlhttps//x',
    );
  });

  it('opens a resource link in the Resources view when clicked, a javascript: URI too, never as a link', async () => {
    const opened: string[] = [];
    const wrapper = view(
      {
        block: {
          type: 'resource_link',
          uri: 'javascript:alert(document.domain)',
          name: 'Evil',
          description: 'A link that would run script if followed',
          mimeType: 'text/plain',
          size: 2048,
        },
      },
      opened,
    );
    expect(wrapper.findAll('a')).toHaveLength(0);
    const open = wrapper.get('[data-testid="resource-link-open"]');
    expect(open.element.tagName).toBe('BUTTON');
    expect(open.attributes('aria-label')).toBe('Open javascript:alert(document.domain) in Resources');
    expect(wrapper.text()).toContain('A link that would run script if followed');
    expect(wrapper.text()).toContain('2.0 KiB');
    await open.trigger('click');
    expect(opened).toEqual(['javascript:alert(document.domain)']);
  });

  it('shows a resource link as text where nothing can open it', () => {
    const wrapper = view({ block: { type: 'resource_link', uri: 'demo://a', name: 'a' } });
    expect(wrapper.find('[data-testid="resource-link-open"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="resource-link-uri"]').text()).toBe('demo://a');
  });

  it('shows an embedded resource by its kind: Markdown rendered and sanitised, a blob with its size', async () => {
    // The renderer is not loaded until a Markdown resource is shown; the source shows meanwhile.
    expect(markdownRenderer.value).toBeNull();
    const markdown = view({
      block: {
        type: 'resource',
        resource: {
          uri: 'demo://doc.md',
          mimeType: 'text/markdown',
          text: '# Title\n\n<img src=x onerror="alert(1)"> [x](javascript:alert(1))',
        },
      },
    });
    expect(markdown.text()).toContain('Embedded resource');
    expect(markdown.get('[data-testid="resource-item-uri"]').text()).toBe('demo://doc.md');
    expect(markdown.get('[data-testid="resource-text"]').text()).toContain('# Title');
    await loadMarkdown();
    await nextTick();
    expect(markdown.find('[data-testid="resource-text"]').exists()).toBe(false);
    const html = markdown.get('[data-testid="resource-markdown"]');
    expect(html.get('h1').text()).toBe('Title');
    expect(html.html()).not.toContain('onerror');
    expect(html.findAll('a[href^="javascript"]')).toHaveLength(0);
    const blob = view({ block: { type: 'resource', resource: { uri: 'demo://b', blob: 'AAECAw==' } } });
    expect(blob.get('[data-testid="resource-blob-size"]').text()).toBe('4 bytes');
    expect(blob.get('[data-testid="resource-download"]').text()).toContain('Download b');
  });

  it('reads the resource a relative link of the Markdown names in the Resources view, by click or Enter', async () => {
    await loadMarkdown();
    const opened: string[] = [];
    const wrapper = view(
      {
        contents: {
          uri: 'demo://docs/a.md',
          mimeType: 'text/markdown',
          text: 'See [b](b.md) and [web](https://x.test/)',
        },
      },
      opened,
    );
    await nextTick();
    const link = wrapper.get('[data-resource-uri]');
    expect(link.attributes('href')).toBeUndefined();
    await link.trigger('click');
    await link.trigger('keydown', { key: 'Enter' });
    await link.trigger('keydown', { key: 'a' });
    expect(opened).toEqual(['demo://docs/b.md', 'demo://docs/b.md']);
    // A web link is an ordinary link, opened by the browser in a new tab.
    await wrapper.get('a[href="https://x.test/"]').trigger('click');
    expect(opened).toHaveLength(2);
  });

  it('shows a resources/read item without the embedded label', () => {
    const wrapper = view({ contents: { uri: 'demo://t', mimeType: 'text/plain', text: 'hello' } });
    expect(wrapper.text()).not.toContain('Embedded resource');
    expect(wrapper.get('[data-testid="resource-item"]').attributes('data-kind')).toBe('text');
    expect(wrapper.get('[data-testid="resource-text"]').text()).toBe('hello');
  });

  it('says so for a type it does not render, and shows the item as JSON', () => {
    const wrapper = view({ block: { type: 'hologram', frames: 3 } });
    expect(wrapper.get('[data-testid="content-unknown-note"]').text()).toBe(
      'Content type "hologram" is not one this inspector renders: shown as JSON.',
    );
    expect(JSON.parse(wrapper.get('[data-testid="content-json"]').text())).toEqual({
      type: 'hologram',
      frames: 3,
    });
    const notObject = view({ block: 42 });
    expect(notObject.get('[data-testid="content-unknown-note"]').text()).toContain('no type');
  });

  it("shows a block's annotations and _meta", () => {
    const wrapper = view({
      block: {
        type: 'text',
        text: 'hi',
        annotations: { audience: ['user'], priority: 0.5 },
        _meta: { 'example/x': 1 },
      },
    });
    expect(wrapper.get('[data-testid="content-annotations"]').text()).toBe('for user · priority 0.5');
    expect(wrapper.get('[data-testid="content-meta"]').text()).toContain('example/x');
  });
});

describe('large JSON of a content item', () => {
  const big = { trace: Array.from({ length: 4_000 }, (_, i) => ({ step: i, note: '<i>step</i>' })) };
  const json = JSON.stringify(big, null, 2);

  it("shows the first 50,000 characters of a block's and an embedded resource's _meta, all on Show all", async () => {
    const wrapper = mount(ContentBlock, {
      props: {
        block: {
          type: 'resource',
          resource: { uri: 'test://a', mimeType: 'text/plain', text: 'hi', _meta: big },
          _meta: big,
        },
      },
    });
    for (const testId of ['content-meta-json', 'resource-item-meta-json']) {
      expect(wrapper.get(`[data-testid="${testId}"]`).element.textContent).toBe(json.slice(0, TEXT_LIMIT));
    }
    expect(wrapper.findAll('[data-testid="json-clipped"]')).toHaveLength(2);
    expect(wrapper.find('i').exists()).toBe(false);
    await wrapper.get('[data-testid="content-meta"] [data-testid="show-all-json"]').trigger('click');
    expect(JSON.parse(wrapper.get('[data-testid="content-meta-json"]').text())).toEqual(big);
  });

  it('says a block of a type it does not render is clipped, and shows all on Show all', async () => {
    const block = { type: 'hologram', ...big };
    const wrapper = mount(ContentBlock, { props: { block } });
    expect(wrapper.get('[data-testid="content-json"]').element.textContent).toHaveLength(TEXT_LIMIT);
    expect(wrapper.get('[data-testid="json-clipped"]').text()).toContain('Showing the first 50,000');
    await wrapper.get('[data-testid="show-all-json"]').trigger('click');
    expect(JSON.parse(wrapper.get('[data-testid="content-json"]').text())).toEqual(block);
  });
});
