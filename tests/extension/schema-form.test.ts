import { mount, type VueWrapper } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import SchemaForm from '../../extension/forms/SchemaForm.vue';
import { initialValue, type JsonSchema } from '../../extension/forms/forms.ts';

/** Mounts the form bound like `v-model`: each emitted value becomes the next modelValue. */
function mountForm(
  schema: JsonSchema | undefined,
  modelValue: Record<string, unknown> = initialValue(schema),
) {
  const wrapper: VueWrapper = mount(SchemaForm, {
    props: {
      schema,
      modelValue,
      idPrefix: 'f',
      'onUpdate:modelValue': (value: Record<string, unknown>) => wrapper.setProps({ modelValue: value }),
    },
  });
  return wrapper;
}

function lastValue(wrapper: VueWrapper): unknown {
  const events = wrapper.emitted('update:modelValue') ?? [];
  return events.at(-1)?.[0];
}

function labelOf(wrapper: VueWrapper, testid: string): string {
  const input = wrapper.get(`[data-testid="${testid}"]`);
  return wrapper.get(`label[for="${input.attributes('id')}"]`).text();
}

const everyType: JsonSchema = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'Text to echo' },
    email: { type: 'string', format: 'email' },
    site: { type: 'string', format: 'uri' },
    day: { type: 'string', format: 'date' },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    count: { type: 'integer' },
    loud: { type: 'boolean' },
    unit: { enum: ['celsius', 'fahrenheit'] },
  },
  required: ['message'],
};

describe('SchemaForm fields', () => {
  it('renders an input of the right kind for each type', () => {
    const wrapper = mountForm(everyType);
    const field = (name: string) => wrapper.get(`[data-testid="field-${name}"]`);
    expect(field('message').attributes('type')).toBe('text');
    expect(field('email').attributes('type')).toBe('email');
    expect(field('site').attributes('type')).toBe('url');
    expect(field('day').attributes('type')).toBe('date');
    expect(field('ratio').attributes()).toMatchObject({ type: 'number', min: '0', max: '1', step: 'any' });
    expect(field('count').attributes()).toMatchObject({ type: 'number', step: '1' });
    expect(field('loud').attributes('type')).toBe('checkbox');
    expect(field('unit').element.tagName).toBe('SELECT');
    expect(
      field('unit')
        .findAll('option')
        .map((o) => o.text()),
    ).toEqual(['—', 'celsius', 'fahrenheit']);
  });

  it('ties a label to every input', () => {
    const wrapper = mountForm(everyType);
    expect(labelOf(wrapper, 'field-message')).toContain('message');
    expect(labelOf(wrapper, 'field-unit')).toContain('unit');
  });

  it('labels a field by its title, with its name beside it', () => {
    const wrapper = mountForm({
      type: 'object',
      properties: { q: { type: 'string', title: 'Search query' } },
    });
    expect(labelOf(wrapper, 'field-q')).toMatch(/^Search query\s*q$/);
  });

  it('shows the initial value in the inputs', () => {
    const wrapper = mountForm(everyType, { message: 'hi', count: 3, loud: true, unit: 'fahrenheit' });
    expect((wrapper.get('[data-testid="field-message"]').element as HTMLInputElement).value).toBe('hi');
    expect((wrapper.get('[data-testid="field-count"]').element as HTMLInputElement).value).toBe('3');
    expect((wrapper.get('[data-testid="field-loud"]').element as HTMLInputElement).checked).toBe(true);
    expect((wrapper.get('[data-testid="field-unit"]').element as HTMLSelectElement).value).toBe('fahrenheit');
  });

  it('marks required fields with * and aria-required, and only them', () => {
    const wrapper = mountForm(everyType);
    expect(labelOf(wrapper, 'field-message')).toContain('*');
    expect(wrapper.get('[data-testid="field-message"]').attributes('aria-required')).toBe('true');
    expect(labelOf(wrapper, 'field-email')).not.toContain('*');
    expect(wrapper.get('[data-testid="field-email"]').attributes('aria-required')).toBeUndefined();
  });

  it('shows the description as help text the input is described by', () => {
    const wrapper = mountForm(everyType);
    const helpId = wrapper.get('[data-testid="field-message"]').attributes('aria-describedby');
    expect(wrapper.get(`#${helpId}`).text()).toBe('Text to echo');
  });

  it('says so when the tool takes no parameters', () => {
    expect(mountForm({ type: 'object', properties: {} }).get('[data-testid="no-parameters"]').text()).toBe(
      'No parameters',
    );
    expect(mountForm(undefined).text()).toContain('No parameters');
  });
});

describe('SchemaForm editing', () => {
  it('emits the whole updated value as the user types', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="field-message"]').setValue('hello');
    expect(lastValue(wrapper)).toEqual({ ...initialValue(everyType), message: 'hello' });
  });

  it('emits numbers from number inputs, and undefined once cleared', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="field-count"]').setValue('42');
    expect(lastValue(wrapper)).toMatchObject({ count: 42 });
    await wrapper.get('[data-testid="field-count"]').setValue('');
    expect((lastValue(wrapper) as Record<string, unknown>).count).toBeUndefined();
  });

  it('emits booleans from checkboxes and enum members from selects', async () => {
    const wrapper = mountForm({
      type: 'object',
      properties: { loud: { type: 'boolean' }, level: { enum: [1, 2, 3] } },
      required: ['level'],
    });
    await wrapper.get('[data-testid="field-loud"]').setValue(true);
    expect(lastValue(wrapper)).toEqual({ loud: true, level: 1 });
    await wrapper.get('[data-testid="field-level"]').setValue('3');
    expect(lastValue(wrapper)).toEqual({ loud: true, level: 3 });
  });

  it('lets an optional enum be unset', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="field-unit"]').setValue('');
    expect(lastValue(wrapper)).toMatchObject({ unit: '' });
  });
});

describe('SchemaForm raw JSON mode', () => {
  it('shows the value the form holds', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="field-message"]').setValue('from the form');
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    const raw = wrapper.get('[data-testid="raw-json"]').element as HTMLTextAreaElement;
    expect(JSON.parse(raw.value)).toMatchObject({ message: 'from the form', loud: false });
    expect(wrapper.find('[data-testid="field-message"]').exists()).toBe(false);
  });

  it('edits the same value the form shows', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    await wrapper.get('[data-testid="raw-json"]').setValue('{"message": "from JSON", "count": 7}');
    expect(lastValue(wrapper)).toEqual({ message: 'from JSON', count: 7 });
    await wrapper.get('[data-testid="mode-form"]').trigger('click');
    expect((wrapper.get('[data-testid="field-message"]').element as HTMLInputElement).value).toBe(
      'from JSON',
    );
    expect((wrapper.get('[data-testid="field-count"]').element as HTMLInputElement).value).toBe('7');
  });

  it('shows an error for invalid JSON and emits nothing', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    await wrapper.get('[data-testid="raw-json"]').setValue('{"message": ');
    expect(wrapper.get('[data-testid="raw-json-error"]').text()).toContain('Invalid JSON');
    expect(wrapper.get('[data-testid="raw-json"]').attributes('aria-invalid')).toBe('true');
    expect(wrapper.emitted('update:modelValue')).toBeUndefined();
    await wrapper.get('[data-testid="raw-json"]').setValue('{"message": "fixed"}');
    expect(wrapper.find('[data-testid="raw-json-error"]').exists()).toBe(false);
    expect(lastValue(wrapper)).toEqual({ message: 'fixed' });
  });

  it('accepts only a JSON object', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    await wrapper.get('[data-testid="raw-json"]').setValue('[1, 2]');
    expect(wrapper.get('[data-testid="raw-json-error"]').text()).toContain('JSON object');
    expect(wrapper.emitted('update:modelValue')).toBeUndefined();
  });

  it('follows a value changed from outside while open', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    await wrapper.setProps({ modelValue: { message: 'restored' } });
    const raw = wrapper.get('[data-testid="raw-json"]').element as HTMLTextAreaElement;
    expect(JSON.parse(raw.value)).toEqual({ message: 'restored' });
  });
});

describe('SchemaForm nested objects and arrays', () => {
  const nested: JsonSchema = {
    type: 'object',
    properties: {
      address: {
        type: 'object',
        description: 'Where to ship',
        properties: { city: { type: 'string' }, zip: { type: 'string' } },
        required: ['city'],
      },
      tags: { type: 'array', items: { type: 'string' } },
      scores: { type: 'array', items: { type: 'number' } },
      lines: {
        type: 'array',
        items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } },
      },
      blobs: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'object' }] } },
      extra: { type: 'object' },
    },
  };

  it('renders an object as a fieldset of its own fields', async () => {
    const wrapper = mountForm(nested);
    const city = wrapper.get('[data-testid="field-address.city"]');
    expect(city.element.closest('fieldset')?.querySelector('legend')?.textContent).toContain('address');
    expect(labelOf(wrapper, 'field-address.city')).toContain('*');
    await city.setValue('Oslo');
    expect(lastValue(wrapper)).toMatchObject({ address: { city: 'Oslo', zip: '' } });
  });

  it('adds, edits and removes string items inline', async () => {
    const wrapper = mountForm(nested);
    await wrapper.get('[data-testid="add-tags"]').trigger('click');
    await wrapper.get('[data-testid="add-tags"]').trigger('click');
    expect(lastValue(wrapper)).toMatchObject({ tags: ['', ''] });
    await wrapper.get('[data-testid="field-tags.0"]').setValue('a');
    await wrapper.get('[data-testid="field-tags.1"]').setValue('b');
    expect(lastValue(wrapper)).toMatchObject({ tags: ['a', 'b'] });
    await wrapper.get('[data-testid="remove-tags.0"]').trigger('click');
    expect(lastValue(wrapper)).toMatchObject({ tags: ['b'] });
    expect((wrapper.get('[data-testid="field-tags.0"]').element as HTMLInputElement).value).toBe('b');
    expect(wrapper.find('[data-testid="field-tags.1"]').exists()).toBe(false);
  });

  it('edits number items with number inputs', async () => {
    const wrapper = mountForm(nested);
    await wrapper.get('[data-testid="add-scores"]').trigger('click');
    const score = wrapper.get('[data-testid="field-scores.0"]');
    expect(score.attributes('type')).toBe('number');
    await score.setValue('2.5');
    expect(lastValue(wrapper)).toMatchObject({ scores: [2.5] });
  });

  it('edits object items as nested fieldsets', async () => {
    const wrapper = mountForm(nested);
    await wrapper.get('[data-testid="add-lines"]').trigger('click');
    expect(lastValue(wrapper)).toMatchObject({ lines: [{ sku: '', qty: undefined }] });
    await wrapper.get('[data-testid="field-lines.0.sku"]').setValue('A-1');
    await wrapper.get('[data-testid="field-lines.0.qty"]').setValue('2');
    expect(lastValue(wrapper)).toMatchObject({ lines: [{ sku: 'A-1', qty: 2 }] });
  });

  it('edits items no input fits as JSON, one textarea each', async () => {
    const wrapper = mountForm(nested);
    await wrapper.get('[data-testid="add-blobs"]').trigger('click');
    const blob = wrapper.get('[data-testid="field-blobs.0"]');
    expect(blob.element.tagName).toBe('TEXTAREA');
    await blob.setValue('{"k": [1]}');
    expect(lastValue(wrapper)).toMatchObject({ blobs: [{ k: [1] }] });
    await blob.setValue('{oops');
    expect(wrapper.get('[data-testid="field-blobs.0-error"]').text()).toContain('Invalid JSON');
  });

  it('edits an object without properties as JSON', async () => {
    const wrapper = mountForm(nested);
    await wrapper.get('[data-testid="field-extra"]').setValue('{"any": true}');
    expect(lastValue(wrapper)).toMatchObject({ extra: { any: true } });
  });
});
