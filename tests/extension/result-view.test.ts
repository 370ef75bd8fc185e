import { flushPromises, mount } from '@vue/test-utils';
import { describe, expect, it, onTestFinished } from 'vitest';
import ResultView from '../../extension/tools/ResultView.vue';
import { PRETTY_LIMIT, TEXT_LIMIT } from '../../extension/ui/content';
import { setPatternWorkerFactory } from '../../extension/validation/pattern-jobs.ts';
import { fakePatternWorker } from './support/fake-pattern-worker.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function view(result: Record<string, unknown>, outputSchema?: Record<string, unknown>) {
  return mount(ResultView, { props: outputSchema ? { result, outputSchema } : { result } });
}

describe('ResultView', () => {
  it('shows plain text with its line breaks kept', () => {
    const wrapper = view({ content: [{ type: 'text', text: 'first line\nsecond line' }] });
    const item = wrapper.get('[data-testid="content-text"]');
    expect(item.get('pre').text()).toBe('first line\nsecond line');
    expect(item.find('[data-testid="text-json-toggle"]').exists()).toBe(false);
  });

  it('pretty-prints text that is JSON and toggles back to the raw text', async () => {
    const wrapper = view({ content: [{ type: 'text', text: '{"a":1,"b":[true]}' }] });
    const item = wrapper.get('[data-testid="content-text"]');
    expect(item.get('[data-testid="text-json"]').text()).toBe(JSON.stringify({ a: 1, b: [true] }, null, 2));
    await item.get('[data-testid="text-json-toggle"]').trigger('click');
    expect(item.find('[data-testid="text-json"]').exists()).toBe(false);
    expect(item.get('pre').text()).toBe('{"a":1,"b":[true]}');
    await item.get('[data-testid="text-json-toggle"]').trigger('click');
    expect(item.find('[data-testid="text-json"]').exists()).toBe(true);
  });

  it('shows the first 100 content items of many, and 1,000 more at a time on request', async () => {
    const blocks = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ type: 'text', text: `block ${i + 1}` }));
    const wrapper = mount(ResultView, {
      props: { result: { content: blocks(1_250) } },
      attachTo: document.body,
    });
    onTestFinished(() => wrapper.unmount());
    const shown = () => wrapper.findAll('.items > li').length;
    expect(shown()).toBe(100);
    const more = () => wrapper.get('[data-testid="result-more-blocks"]').text().replace(/\s+/g, ' ');
    expect(more()).toMatch(
      /^1,150 more content items not shown \(Copy JSON has them all\)\. Show 1,000 more$/,
    );
    await wrapper.get('[data-testid="result-show-more"]').trigger('click');
    expect(shown()).toBe(1_100);
    expect(wrapper.get('[data-testid="result-show-more"]').text()).toBe('Show 150 more');
    await wrapper.get('[data-testid="result-show-more"]').trigger('click');
    expect(shown()).toBe(1_250);
    expect(wrapper.find('[data-testid="result-more-blocks"]').exists()).toBe(false);
    await flushPromises();
    // The button went with its line: the keyboard is on the first item it showed, not on the page.
    expect(document.activeElement?.textContent).toContain('block 1101');
    expect(wrapper.findAll('.items > li').at(-1)?.text()).toContain('block 1250');
    // A new result starts again at its first 100.
    await wrapper.setProps({ result: { content: blocks(101) } });
    expect(shown()).toBe(100);
    expect(wrapper.get('[data-testid="result-more-blocks"]').text()).toMatch(
      /^1 more content item not shown/,
    );
  });

  it('never renders server text as HTML', () => {
    const hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    const wrapper = view({
      content: [
        { type: 'text', text: hostile },
        { type: 'resource_link', uri: 'file:///x', name: hostile },
      ],
      structuredContent: { html: hostile },
    });
    expect(wrapper.findAll('script')).toHaveLength(0);
    expect(wrapper.findAll('img')).toHaveLength(0);
    expect(wrapper.get('[data-testid="content-text"]').text()).toBe(hostile);
    expect(wrapper.get('[data-testid="content-resource_link"]').text()).toContain(hostile);
  });

  it('shows an image from its base64 data and MIME type', () => {
    const wrapper = view({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] });
    const img = wrapper.get('[data-testid="content-image"] img');
    expect(img.attributes('src')).toBe(`data:image/png;base64,${PNG}`);
    expect(img.attributes('alt')).toContain('image/png');
  });

  it('gives audio its own player', () => {
    const wrapper = view({ content: [{ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' }] });
    const audio = wrapper.get('[data-testid="content-audio"] audio');
    expect(audio.attributes('src')).toBe('data:audio/wav;base64,UklGRg==');
    expect(audio.attributes()).toHaveProperty('controls');
  });

  it('lists the fields of a resource link', () => {
    const wrapper = view({
      content: [
        {
          type: 'resource_link',
          uri: 'test://static/resource/1',
          name: 'Resource 1',
          description: 'The first one',
          mimeType: 'text/plain',
        },
      ],
    });
    const text = wrapper.get('[data-testid="content-resource_link"]').text();
    for (const part of ['test://static/resource/1', 'Resource 1', 'The first one', 'text/plain']) {
      expect(text).toContain(part);
    }
  });

  it('shows an embedded text resource with its text and a blob resource with its size', () => {
    const wrapper = view({
      content: [
        { type: 'resource', resource: { uri: 'test://a', mimeType: 'text/plain', text: 'hello' } },
        { type: 'resource', resource: { uri: 'test://b', blob: 'AAECAw==' } },
      ],
    });
    const [textItem, blobItem] = wrapper.findAll('[data-testid="content-resource"]');
    expect(textItem?.text()).toContain('test://a');
    expect(textItem?.get('pre').text()).toBe('hello');
    expect(blobItem?.text()).toContain('test://b');
    expect(blobItem?.get('[data-testid="resource-blob-size"]').text()).toBe('4 bytes');
  });

  it('shows a content type it does not know as JSON', () => {
    const item = { type: 'hologram', frames: 3 };
    const wrapper = view({ content: [item, 'not an object'] });
    const hologram = wrapper.get('[data-testid="content-hologram"]');
    expect(hologram.get('[data-testid="content-unknown-note"]').text()).toContain('"hologram" is not one');
    expect(hologram.get('[data-testid="content-json"]').text()).toBe(JSON.stringify(item, null, 2));
    const unknown = wrapper.get('[data-testid="content-unknown"]');
    expect(unknown.get('[data-testid="content-unknown-note"]').text()).toContain('no type');
    expect(unknown.get('[data-testid="content-json"]').text()).toBe('"not an object"');
  });

  it('shows the error banner only for an error result', () => {
    expect(view({ content: [] }).find('[data-testid="result-error"]').exists()).toBe(false);
    const failed = view({ isError: true, content: [{ type: 'text', text: 'boom' }] });
    expect(failed.get('[data-testid="result-error"]').attributes('role')).toBe('alert');
    expect(failed.get('[data-testid="content-text"]').text()).toBe('boom');
  });

  it('confirms structuredContent that matches the outputSchema', () => {
    const schema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
    const wrapper = view({ content: [], structuredContent: { sum: 5 } }, schema);
    expect(wrapper.get('[data-testid="structured-content"]').text()).toBe(
      JSON.stringify({ sum: 5 }, null, 2),
    );
    expect(wrapper.get('[data-testid="validation-ok"]').text()).toBe('Valid against outputSchema');
    expect(wrapper.find('[data-testid="validation-problems"]').exists()).toBe(false);
  });

  it('lists each validation problem with its path', () => {
    const schema = {
      type: 'object',
      properties: { sum: { type: 'number' }, parts: { type: 'array', items: { type: 'string' } } },
      required: ['sum'],
    };
    const wrapper = view({ content: [], structuredContent: { sum: 'five', parts: ['a', 2] } }, schema);
    expect(wrapper.find('[data-testid="validation-ok"]').exists()).toBe(false);
    const problems = wrapper.findAll('[data-testid="validation-problem"]').map((li) => li.get('code').text());
    expect(problems).toEqual(['/sum', '/parts/1']);
  });

  it('says structuredContent is missing when the outputSchema requires it', () => {
    const schema = { type: 'object', properties: { sum: { type: 'number' } } };
    const wrapper = view({ content: [{ type: 'text', text: '5' }] }, schema);
    expect(wrapper.find('[data-testid="structured-content"]').exists()).toBe(false);
    const [problem] = wrapper.findAll('[data-testid="validation-problem"]');
    expect(problem?.text()).toMatch(/structuredContent is missing/);
  });

  it('shows structuredContent without a verdict when there is no outputSchema', () => {
    const wrapper = view({ content: [], structuredContent: { any: 'thing' } });
    expect(wrapper.find('[data-testid="structured-content"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="validation-ok"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="validation-problems"]').exists()).toBe(false);
  });

  it('keeps _meta in a collapsed section', () => {
    const wrapper = view({ content: [], _meta: { 'io.example/trace': 'abc' } });
    const meta = wrapper.get('[data-testid="result-meta"]');
    expect(meta.element.tagName).toBe('DETAILS');
    expect(meta.attributes()).not.toHaveProperty('open');
    expect(meta.text()).toContain('io.example/trace');
    expect(view({ content: [] }).find('[data-testid="result-meta"]').exists()).toBe(false);
  });

  it('shows the first 50,000 characters of a large structuredContent and _meta, and all on Show all', async () => {
    const big = { rows: Array.from({ length: 5_000 }, (_, i) => ({ id: i, text: '<b>row</b> '.repeat(4) })) };
    const json = JSON.stringify(big, null, 2);
    expect(json.length).toBeGreaterThan(TEXT_LIMIT * 2);
    const wrapper = view({ content: [], structuredContent: big, _meta: big });
    for (const testId of ['structured-content', 'result-meta-json']) {
      expect(wrapper.get(`[data-testid="${testId}"]`).element.textContent).toBe(json.slice(0, TEXT_LIMIT));
    }
    const notes = wrapper.findAll('[data-testid="json-clipped"]');
    expect(notes.map((note) => note.text().replace(/\s+/g, ' '))).toEqual([
      `Showing the first 50,000 of ${json.length.toLocaleString('en-US')} characters. Show all`,
      `Showing the first 50,000 of ${json.length.toLocaleString('en-US')} characters. Show all`,
    ]);
    expect(wrapper.find('b').exists()).toBe(false);
    await notes[0]!.get('[data-testid="show-all-json"]').trigger('click');
    expect(JSON.parse(wrapper.get('[data-testid="structured-content"]').text())).toEqual(big);
    expect(wrapper.get('[data-testid="result-meta-json"]').element.textContent).toHaveLength(TEXT_LIMIT);
  });

  it('writes structuredContent past a megabyte of JSON on one line, as it came', () => {
    const big = { text: 'y'.repeat(PRETTY_LIMIT) };
    const wrapper = view({ content: [], structuredContent: big });
    expect(wrapper.get('[data-testid="structured-content"]').text()).toBe(
      JSON.stringify(big).slice(0, TEXT_LIMIT),
    );
  });

  it('warns above the result when it breaks the 2026-07-28 schema, with the problem as text', () => {
    const result = { content: [{ type: 'hologram' }] };
    const resultProblem = 'content.0.type: expected one of "text", "image" <b>not bold</b>';
    const wrapper = mount(ResultView, { props: { result, resultProblem } });
    const warning = wrapper.get('[data-testid="result-problem"]');
    expect(warning.attributes('role')).toBe('alert');
    expect(warning.text()).toBe(`The server's result breaks the 2026-07-28 schema: ${resultProblem}`);
    expect(warning.find('b').exists()).toBe(false);
    // Above the result's content, which is still shown.
    const block = wrapper.get('[data-testid="content-unknown-note"]');
    expect(
      warning.element.compareDocumentPosition(block.element) & Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
    expect(view(result).find('[data-testid="result-problem"]').exists()).toBe(false);
  });

  it('copies the raw result as JSON', async () => {
    const result = { content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1 } };
    const wrapper = view(result);
    await wrapper.get('[data-testid="copy-result"]').trigger('click');
    await flushPromises();
    expect(JSON.parse(await navigator.clipboard.readText())).toEqual(result);
    expect(wrapper.text()).toContain('Copied');
  });
});

describe('an outputSchema pattern that backtracks catastrophically', { timeout: 10_000 }, () => {
  const schema = { type: 'object', properties: { x: { type: 'string', pattern: '^(a|a)*$' } } };

  it('shows the result, then the pattern as not checked past the time budget', async () => {
    setPatternWorkerFactory(() => fakePatternWorker(300));
    onTestFinished(() => setPatternWorkerFactory(undefined));
    const wrapper = view({ content: [], structuredContent: { x: 'a'.repeat(40) + '!' } }, schema);
    expect(wrapper.get('[data-testid="validation-patterns-not-checked"]').text()).toBe(
      'outputSchema patterns being checked…',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await flushPromises();
    expect(wrapper.get('[data-testid="validation-patterns-not-checked"]').text()).toBe(
      'outputSchema pattern not checked: it took longer than 1,000 ms',
    );
    expect(wrapper.find('[data-testid="validation-ok"]').exists()).toBe(false);
  });

  it('checks a pattern that answers in time', async () => {
    setPatternWorkerFactory(() => fakePatternWorker());
    onTestFinished(() => setPatternWorkerFactory(undefined));
    const wrapper = view({ content: [], structuredContent: { x: 'b' } }, schema);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await flushPromises();
    expect(wrapper.get('[data-testid="validation-problem"]').text()).toContain(
      'String does not match pattern.',
    );
  });
});
