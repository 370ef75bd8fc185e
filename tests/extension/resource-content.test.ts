/**
 * @vitest-environment jsdom
 *
 * DOMPurify does not support happy-dom (its sanitising is broken there: scripts and event handlers
 * survive), so the viewer, which shows Markdown through DOMPurify, is tested on jsdom.
 */
import { mount } from '@vue/test-utils';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import ResourceContent from '../../extension/resources/ResourceContent.vue';
import { loadMarkdown } from '../../extension/ui/markdown-loader';
import ResourceTemplateForm from '../../extension/resources/ResourceTemplateForm.vue';
import {
  base64Bytes,
  blobText,
  clockTime,
  contentKind,
  fileNameFromUri,
  formatSize,
} from '../../extension/resources/resource-content';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function blobBytes(blob: Blob): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as ArrayBuffer);
    reader.onerror = () => reject(reader.error);
    reader.readAsArrayBuffer(blob);
  });
}

function view(contents: unknown[], extra: Record<string, unknown> = {}) {
  const wrapper = mount(ResourceContent, {
    props: { result: { contents, ...extra } },
    attachTo: document.body,
  });
  onTestFinished(() => wrapper.unmount());
  return wrapper;
}

describe('contentKind', () => {
  it('tells the kinds apart by MIME type and by text or blob', () => {
    expect(contentKind({ text: 'hi', mimeType: 'text/plain' })).toBe('text');
    expect(contentKind({ text: '# Hi', mimeType: 'text/markdown; charset=utf-8' })).toBe('markdown');
    expect(contentKind({ text: '{"a":1}', mimeType: 'application/json' })).toBe('json');
    expect(contentKind({ text: '{"a":1}', mimeType: 'application/ld+json' })).toBe('json');
    expect(contentKind({ text: '[1, 2]' })).toBe('json');
    expect(contentKind({ text: '{not json', mimeType: 'application/json' })).toBe('text');
    expect(contentKind({ text: '{"a":1}', mimeType: 'text/plain' })).toBe('text');
    expect(contentKind({ blob: PNG, mimeType: 'image/png' })).toBe('image');
    expect(contentKind({ blob: 'UklGRg==', mimeType: 'audio/wav' })).toBe('audio');
    expect(contentKind({ blob: 'AAEC', mimeType: 'application/pdf' })).toBe('binary');
    expect(contentKind({ blob: 'AAEC' })).toBe('binary');
    expect(contentKind({ uri: 'x://y' })).toBe('unknown');
  });
});

describe('resource helpers', () => {
  it('counts the bytes of base64 data and says the size in bytes or KiB', () => {
    expect(base64Bytes('AAEC')).toBe(3);
    expect(base64Bytes('AAE=')).toBe(2);
    expect(base64Bytes('AA==')).toBe(1);
    expect(formatSize(3)).toBe('3 bytes');
    expect(formatSize(2048)).toBe('2.0 KiB (2,048 bytes)');
    expect(formatSize(3 * 1024 * 1024)).toBe('3.0 MiB (3,145,728 bytes)');
  });

  it("names a download after the URI's last segment", () => {
    expect(fileNameFromUri('file:///home/me/report.pdf?version=2#page=1')).toBe('report.pdf');
    expect(fileNameFromUri('test://static/resource/2')).toBe('2');
    expect(fileNameFromUri('demo://files/my%20notes.bin')).toBe('my notes.bin');
    expect(fileNameFromUri('demo://files/a%2Fb')).toBe('a_b');
    expect(fileNameFromUri('urn:isbn')).toBe('isbn');
    expect(fileNameFromUri('file:///')).toBe('resource');
    expect(fileNameFromUri(undefined)).toBe('resource');
  });

  it('decodes textual blobs only when they are UTF-8', () => {
    expect(blobText({ blob: 'aMOpbGxv', mimeType: 'text/plain' })).toBe('héllo');
    expect(blobText({ blob: 'eyJhIjoxfQ==', mimeType: 'application/json' })).toBe('{"a":1}');
    expect(blobText({ blob: '/w==', mimeType: 'text/plain' })).toBeUndefined();
    expect(blobText({ blob: 'aMOpbGxv', mimeType: 'application/octet-stream' })).toBeUndefined();
  });

  it('shows a time as HH:MM:SS', () => {
    expect(clockTime(new Date(2025, 0, 2, 7, 5, 9).getTime())).toBe('07:05:09');
  });
});

describe('ResourceContent', () => {
  it('shows plain text as text, with its URI and MIME type', () => {
    const wrapper = view([{ uri: 'test://a', mimeType: 'text/plain', text: '<b>line one</b>\nline two' }]);
    const item = wrapper.get('[data-testid="resource-item"]');
    expect(item.attributes('data-kind')).toBe('text');
    expect(item.get('[data-testid="resource-text"]').text()).toBe('<b>line one</b>\nline two');
    expect(item.find('b').exists()).toBe(false);
    expect(item.get('[data-testid="resource-item-uri"]').text()).toBe('test://a');
    expect(item.get('[data-testid="resource-item-mime"]').text()).toBe('text/plain');
  });

  it('renders Markdown and can show its source', async () => {
    await loadMarkdown();
    const source = '# Title\n\nSome **bold** text and a [link](https://example.com).';
    const wrapper = view([{ uri: 'test://md', mimeType: 'text/markdown', text: source }]);
    const markdown = wrapper.get('[data-testid="resource-markdown"]');
    expect(markdown.get('h1').text()).toBe('Title');
    expect(markdown.get('strong').text()).toBe('bold');
    const link = markdown.get('a');
    expect(link.attributes('href')).toBe('https://example.com');
    expect(link.attributes('target')).toBe('_blank');
    expect(link.attributes('rel')).toBe('noopener noreferrer');

    await wrapper.get('[data-testid="markdown-source-toggle"]').trigger('click');
    expect(wrapper.find('[data-testid="resource-markdown"]').exists()).toBe(false);
    expect(wrapper.get('pre').text()).toBe(source);
  });

  it('strips scripts, event handlers and javascript: links from Markdown', async () => {
    await loadMarkdown();
    const hostile = [
      '# Hello',
      '<script>window.pwned = true</script>',
      '<img src="x" onerror="window.pwned = true">',
      '<a href="javascript:alert(1)">click</a>',
      '[md link](javascript:alert(2))',
      '<iframe src="https://example.com"></iframe>',
      '<style>body { display: none }</style>',
      '<p style="position: fixed" onclick="alert(3)">styled</p>',
    ].join('\n\n');
    const wrapper = view([{ uri: 'test://md', mimeType: 'text/markdown', text: hostile }]);
    const markdown = wrapper.get('[data-testid="resource-markdown"]');
    expect(markdown.get('h1').text()).toBe('Hello');
    expect(markdown.findAll('script')).toHaveLength(0);
    expect(markdown.findAll('iframe')).toHaveLength(0);
    expect(markdown.findAll('style')).toHaveLength(0);
    const attributes = markdown.findAll('*').flatMap((element) => Object.entries(element.attributes()));
    expect(attributes.filter(([name]) => /^on|^style$/i.test(name))).toEqual([]);
    expect(attributes.filter(([, value]) => /javascript:/i.test(value))).toEqual([]);
    expect(markdown.get('p a').text()).toBe('click');
    // The image would be fetched: it is named in the text instead.
    expect(markdown.findAll('img')).toHaveLength(0);
    expect(markdown.text()).toContain('[remote image: x — not loaded]');
    expect((window as unknown as { pwned?: boolean }).pwned).toBeUndefined();
  });

  it('pretty-prints JSON', () => {
    const wrapper = view([{ uri: 'test://j', mimeType: 'application/json', text: '{"a":1,"b":[true]}' }]);
    expect(wrapper.get('[data-testid="resource-json"]').text()).toBe(
      JSON.stringify({ a: 1, b: [true] }, null, 2),
    );
  });

  it('shows an image blob as an image', () => {
    const wrapper = view([{ uri: 'test://img', mimeType: 'image/png', blob: PNG }]);
    const item = wrapper.get('[data-kind="image"]');
    expect(item.get('img').attributes('src')).toBe(`data:image/png;base64,${PNG}`);
  });

  it('gives an audio blob a player', () => {
    const wrapper = view([{ uri: 'test://a', mimeType: 'audio/wav', blob: 'UklGRg==' }]);
    const audio = wrapper.get('[data-kind="audio"] audio');
    expect(audio.attributes('src')).toBe('data:audio/wav;base64,UklGRg==');
    expect(audio.attributes()).toHaveProperty('controls');
  });

  it('offers other binary blobs as a download named after the URI', async () => {
    const wrapper = view([
      { uri: 'test://files/data.bin', mimeType: 'application/octet-stream', blob: 'AAEC' },
    ]);
    expect(wrapper.get('[data-testid="resource-size"]').text()).toContain('3 bytes');

    // jsdom has no object URLs: record the Blob the button hands over instead.
    const created: Blob[] = [];
    const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
    URL.createObjectURL = (blob: Blob | MediaSource) => {
      created.push(blob as Blob);
      return 'blob:test/1';
    };
    URL.revokeObjectURL = () => undefined;
    const clicked: Array<{ href: string; download: string }> = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push({ href: this.href, download: this.download });
    });
    onTestFinished(() => {
      URL.createObjectURL = original.create;
      URL.revokeObjectURL = original.revoke;
      click.mockRestore();
    });

    await wrapper.get('[data-testid="resource-download"]').trigger('click');
    expect(clicked).toEqual([{ href: 'blob:test/1', download: 'data.bin' }]);
    expect(created).toHaveLength(1);
    expect(created[0]!.type).toBe('application/octet-stream');
    expect(created[0]!.size).toBe(3);
    expect([...new Uint8Array(await blobBytes(created[0]!))]).toEqual([0, 1, 2]);
  });

  it('also shows a text blob decoded, next to its download', () => {
    const wrapper = view([{ uri: 'test://blob/1', mimeType: 'text/plain', blob: 'aMOpbGxv' }]);
    expect(wrapper.get('[data-kind="binary"] [data-testid="resource-blob-text"]').text()).toBe('héllo');
    expect(wrapper.find('[data-testid="resource-download"]').exists()).toBe(true);
  });

  it('shows the _meta of each item and of the result', () => {
    const wrapper = view([{ uri: 'test://a', text: 'x', _meta: { source: 'cache' } }], {
      _meta: { traceId: 't1' },
    });
    expect(wrapper.get('[data-testid="resource-item-meta"]').text()).toContain('"source": "cache"');
    expect(wrapper.get('[data-testid="resource-result-meta"]').text()).toContain('"traceId": "t1"');
  });

  it('shows every item of several contents', () => {
    const wrapper = view([
      { uri: 'test://1', text: 'one' },
      { uri: 'test://2', mimeType: 'image/png', blob: PNG },
    ]);
    expect(wrapper.findAll('[data-testid="resource-item"]').map((i) => i.attributes('data-kind'))).toEqual([
      'text',
      'image',
    ]);
  });
});

describe('a large result _meta', () => {
  it('shows its first 50,000 characters, and all on Show all', async () => {
    const meta = { index: Array.from({ length: 4_000 }, (_, i) => `entry ${i} <b>of</b> the index`) };
    const wrapper = view([{ uri: 'test://a', text: 'hi' }], { _meta: meta });
    const shown = wrapper.get('[data-testid="resource-result-meta"] pre');
    expect(shown.element.textContent).toBe(JSON.stringify(meta, null, 2).slice(0, 50_000));
    expect(wrapper.find('b').exists()).toBe(false);
    await wrapper.get('[data-testid="resource-result-meta"] [data-testid="show-all-json"]').trigger('click');
    expect(JSON.parse(wrapper.get('[data-testid="resource-result-meta"] pre').text())).toEqual(meta);
  });
});

describe('ResourceTemplateForm', () => {
  const template = { name: 'file', uriTemplate: 'demo://files/{id}{?format}' };

  it('starts variables named like Object members empty, and expands what is typed in them', async () => {
    const wrapper = mount(ResourceTemplateForm, {
      props: {
        template: { name: 'odd', uriTemplate: 'tpl://{a}/{__proto__}/{constructor}' },
        modelValue: {},
        'onUpdate:modelValue': (value: Record<string, string>) => wrapper.setProps({ modelValue: value }),
      },
    });
    const field = (name: string) => wrapper.get(`[data-testid="template-var-${name}"]`);
    expect(
      ['a', '__proto__', 'constructor'].map((name) => (field(name).element as HTMLInputElement).value),
    ).toEqual(['', '', '']);
    expect(wrapper.get('[data-testid="template-empty"]').text()).toContain('a, __proto__, constructor');
    await field('__proto__').setValue('P');
    await field('constructor').setValue('C');
    await field('a').setValue('A');
    expect(wrapper.get('[data-testid="template-preview"]').text()).toBe('tpl://A/P/C');
    expect(wrapper.find('[data-testid="template-empty"]').exists()).toBe(false);
  });

  it('has an input per variable and previews the expanded URI', async () => {
    const wrapper = mount(ResourceTemplateForm, {
      props: {
        template,
        modelValue: {},
        'onUpdate:modelValue': (value: Record<string, string>) => wrapper.setProps({ modelValue: value }),
      },
    });
    await wrapper.get('[data-testid="template-var-id"]').setValue('a b');
    expect(wrapper.get('[data-testid="template-preview"]').text()).toBe('demo://files/a%20b');
    await wrapper.get('[data-testid="template-var-format"]').setValue('json');
    expect(wrapper.get('[data-testid="template-preview"]').text()).toBe('demo://files/a%20b?format=json');

    await wrapper.get('form').trigger('submit');
    expect(wrapper.emitted('read')).toEqual([['demo://files/a%20b?format=json']]);
  });

  it('reads with Ctrl+Enter (or Cmd+Enter) from a field, and not with a plain Enter of another key', async () => {
    const wrapper = mount(ResourceTemplateForm, {
      props: { template, modelValue: { id: 'x' } },
      attachTo: document.body,
    });
    const field = wrapper.get('[data-testid="template-var-id"]');
    await field.trigger('keydown', { key: 'a', ctrlKey: true });
    expect(wrapper.emitted('read')).toBeUndefined();
    await field.trigger('keydown', { key: 'Enter', ctrlKey: true });
    await field.trigger('keydown', { key: 'Enter', metaKey: true });
    expect(wrapper.emitted('read')).toEqual([['demo://files/x'], ['demo://files/x']]);
    wrapper.unmount();
  });
});
