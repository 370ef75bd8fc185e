import { mount, type VueWrapper } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import SchemaForm from '../../extension/forms/SchemaForm.vue';
import { initialValue, parametersFromValue, type JsonSchema } from '../../extension/forms/forms.ts';

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

  it('marks under a text box the hidden characters its value holds, which the box cannot show', async () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        path: { type: 'string', default: 'invoice\u202Efdp.exe', description: 'Where' },
        note: { type: 'string', default: `${'a'.repeat(500)}\u200Bb` },
        plain: { type: 'string', default: 'nothing hidden' },
        tags: { type: 'array', items: { type: 'string' }, default: ['x\u200By'] },
      },
    };
    const wrapper = mountForm(schema);
    const line = wrapper.get('[data-testid="hidden-path"]');
    expect(line.text()).toBe('Holds characters the box does not show: invoice[RLO]fdp.exe');
    expect(line.get('mark').attributes('title')).toMatch(/^U\+202E RIGHT-TO-LEFT OVERRIDE/);
    // The box is described by it, before its help text.
    const box = wrapper.get('[data-testid="field-path"]');
    expect(box.attributes('aria-describedby')).toBe(`${line.attributes('id')} f-path-help`);
    // A long value: the plain text around the mark is cut to its ends.
    expect(wrapper.get('[data-testid="hidden-note"]').text()).toBe(
      `Holds characters the box does not show: ${'a'.repeat(20)}…${'a'.repeat(20)}[ZWSP]b`,
    );
    expect(wrapper.find('[data-testid="hidden-plain"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="hidden-tags.0"]').text()).toContain('x[ZWSP]y');
    // It follows what is typed: gone once the value holds none.
    await box.setValue('invoice.pdf');
    expect(wrapper.find('[data-testid="hidden-path"]').exists()).toBe(false);
    expect(box.attributes('aria-describedby')).toBe('f-path-help');
  });

  it('gives a field whose name holds spaces ids that its label and descriptions name whole', async () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        'first name': { type: 'string', description: 'Given name', default: 'A\u200BB' },
        'first%20name': { type: 'string' },
      },
    };
    const wrapper = mountForm(schema);
    const box = wrapper.get('[data-testid="field-first name"]');
    const ids = box.attributes('aria-describedby')!.split(' ');
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(wrapper.find(`#${CSS.escape(id)}`).exists()).toBe(true);
    expect(wrapper.get(`label[for="${box.attributes('id')}"]`).text()).toContain('first name');
    expect(box.attributes('id')).not.toBe(wrapper.get('[data-testid="field-first%20name"]').attributes('id'));
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

  it('writes hidden characters as \\u escapes, which read back as the same value and run as it', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="field-message"]').setValue('read\u202Etxt.exe');
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    const raw = wrapper.get('[data-testid="raw-json"]');
    const text = (raw.element as HTMLTextAreaElement).value;
    expect(text).toContain('"message": "read\\u202Etxt.exe"');
    expect(text).not.toContain('\u202E');
    // Edited elsewhere and back: the value the form holds is the one with the character.
    await raw.setValue(text.replace('"loud": false', '"loud": true'));
    expect(lastValue(wrapper)).toMatchObject({ message: 'read\u202Etxt.exe', loud: true });
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

  it('says which JSON box cannot be read, keeps the JSON view, and says when it can again', async () => {
    const wrapper = mountForm(everyType, { message: 'from the form' });
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    await wrapper.get('[data-testid="raw-json"]').setValue('{"message": "typed" ,,');
    // The value is still the one read last: whoever runs the form must know it is not what is shown.
    expect(wrapper.emitted('unreadable')?.at(-1)?.[0]).toMatchObject({
      id: 'f-raw-json',
      name: 'the parameters',
      problem: expect.stringContaining('Invalid JSON'),
    });
    expect(wrapper.get('[data-testid="mode-form"]').attributes('disabled')).toBeDefined();
    await wrapper.get('[data-testid="raw-json"]').setValue('null');
    expect(wrapper.emitted('unreadable')?.at(-1)?.[0]).toMatchObject({
      problem: expect.stringContaining('object'),
    });
    await wrapper.get('[data-testid="raw-json"]').setValue('{"message": "typed"}');
    expect(wrapper.emitted('unreadable')?.at(-1)?.[0]).toBeUndefined();
    expect(wrapper.get('[data-testid="mode-form"]').attributes('disabled')).toBeUndefined();
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
    expect(wrapper.emitted('unreadable')?.at(-1)?.[0]).toMatchObject({ name: 'field “blobs.0”' });
    // The item goes, and with it the text that could not be read.
    await wrapper.get('[data-testid="remove-blobs.0"]').trigger('click');
    expect(wrapper.emitted('unreadable')?.at(-1)?.[0]).toBeUndefined();
  });

  it('edits an object without properties as JSON', async () => {
    const wrapper = mountForm(nested);
    await wrapper.get('[data-testid="field-extra"]').setValue('{"any": true}');
    expect(lastValue(wrapper)).toMatchObject({ extra: { any: true } });
  });
});

describe('SchemaForm pick lists', () => {
  const picks: JsonSchema = {
    type: 'object',
    properties: {
      color: {
        type: 'string',
        oneOf: [
          { const: '#f00', title: 'Red' },
          { const: '#0f0', title: 'Green' },
        ],
      },
      size: { type: 'string', enum: ['s', 'l'], enumNames: ['Small', 'Large'] },
      fruits: {
        type: 'array',
        items: {
          anyOf: [
            { const: 'a', title: 'Apple' },
            { const: 'b', title: 'Banana' },
            { const: 'c', title: 'Cherry' },
          ],
        },
      },
    },
    required: ['color'],
  };

  it('shows titles and enumNames in the select and emits the const values', async () => {
    const wrapper = mountForm(picks);
    const color = wrapper.get('[data-testid="field-color"]');
    expect(color.findAll('option').map((o) => o.text())).toEqual(['Red', 'Green']);
    expect(
      wrapper
        .get('[data-testid="field-size"]')
        .findAll('option')
        .map((o) => o.text()),
    ).toEqual(['—', 'Small', 'Large']);
    await color.setValue('#0f0');
    expect(lastValue(wrapper)).toMatchObject({ color: '#0f0' });
    await wrapper.get('[data-testid="field-size"]').setValue('l');
    expect(lastValue(wrapper)).toMatchObject({ size: 'l' });
  });

  it('offers a multi-select as labelled checkboxes and emits the picked values in option order', async () => {
    const wrapper = mountForm(picks);
    const group = wrapper.get('[data-testid="field-fruits"]');
    expect(group.element.tagName).toBe('FIELDSET');
    expect(group.findAll('label').map((l) => l.text())).toEqual(['Apple', 'Banana', 'Cherry']);
    await wrapper.get('[data-testid="option-fruits-2"]').setValue(true);
    await wrapper.get('[data-testid="option-fruits-0"]').setValue(true);
    expect(lastValue(wrapper)).toMatchObject({ fruits: ['a', 'c'] });
    await wrapper.get('[data-testid="option-fruits-2"]').setValue(false);
    expect(lastValue(wrapper)).toMatchObject({ fruits: ['a'] });
  });
});

describe('SchemaForm unions', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: { mode: { type: ['boolean', 'string', 'null'], description: 'On, off or a word' } },
  };

  it('lets the user pick the type, then shows the control of that type', async () => {
    const wrapper = mountForm(schema);
    const type = wrapper.get('[data-testid="type-mode"]');
    expect(type.findAll('option').map((o) => o.text())).toEqual(['boolean', 'string', 'null']);
    expect(wrapper.get('[data-testid="field-mode"]').attributes('type')).toBe('checkbox');
    expect(wrapper.get(`label[for="${type.attributes('id')}"]`).text()).toBe('Type');

    await type.setValue('1');
    expect(lastValue(wrapper)).toEqual({ mode: '' });
    expect(wrapper.get('[data-testid="field-mode"]').attributes('type')).toBe('text');
    await wrapper.get('[data-testid="field-mode"]').setValue('auto');
    expect(lastValue(wrapper)).toEqual({ mode: 'auto' });

    await type.setValue('2');
    expect(lastValue(wrapper)).toEqual({ mode: null });
    expect(wrapper.get('[data-testid="field-mode"]').text()).toBe('Sent as null');
  });

  it('keeps an empty number box on the number type', async () => {
    const wrapper = mountForm({
      type: 'object',
      properties: { limit: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
    });
    await wrapper.get('[data-testid="type-limit"]').setValue('1');
    expect(lastValue(wrapper)).toEqual({ limit: undefined });
    expect(wrapper.get('[data-testid="field-limit"]').attributes('type')).toBe('number');
    expect((wrapper.get('[data-testid="type-limit"]').element as HTMLSelectElement).value).toBe('1');
    await wrapper.get('[data-testid="field-limit"]').setValue('7');
    expect(lastValue(wrapper)).toEqual({ limit: 7 });
  });

  it('follows the type of a value set from JSON', async () => {
    const wrapper = mountForm(schema);
    await wrapper.setProps({ modelValue: { mode: 'from json' } });
    expect((wrapper.get('[data-testid="type-mode"]').element as HTMLSelectElement).value).toBe('1');
    expect((wrapper.get('[data-testid="field-mode"]').element as HTMLInputElement).value).toBe('from json');
  });
});

describe('SchemaForm text, dates and formats', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      title: { type: 'string', maxLength: 80 },
      body: { type: 'string', maxLength: 5000 },
      at: { type: 'string', format: 'date-time' },
      day: { type: 'string', format: 'date' },
    },
  };

  it('gives long text a textarea, with a toggle between one line and several', async () => {
    const wrapper = mountForm(schema);
    expect(wrapper.get('[data-testid="field-body"]').element.tagName).toBe('TEXTAREA');
    expect(wrapper.get('[data-testid="field-title"]').element.tagName).toBe('INPUT');
    expect(wrapper.get('[data-testid="multiline-body"]').attributes('aria-pressed')).toBe('true');
    expect(wrapper.find('[data-testid="multiline-at"]').exists()).toBe(false);

    await wrapper.get('[data-testid="multiline-title"]').trigger('click');
    const title = wrapper.get('[data-testid="field-title"]');
    expect(title.element.tagName).toBe('TEXTAREA');
    expect(title.attributes('maxlength')).toBe('80');
    expect(labelOf(wrapper, 'field-title')).toContain('title');
    await title.setValue('line one\nline two');
    expect(lastValue(wrapper)).toMatchObject({ title: 'line one\nline two' });

    await wrapper.get('[data-testid="multiline-body"]').trigger('click');
    expect(wrapper.get('[data-testid="field-body"]').element.tagName).toBe('INPUT');
  });

  it('edits a date-time in a local input and emits RFC 3339', async () => {
    const wrapper = mountForm(schema);
    const at = wrapper.get('[data-testid="field-at"]');
    expect(at.attributes('type')).toBe('datetime-local');
    await at.setValue('2026-03-01T14:30');
    const sent = (lastValue(wrapper) as { at: string }).at;
    expect(sent).toMatch(/^2026-03-01T14:30:00(Z|[+-]\d{2}:\d{2})$/);
    expect(new Date(sent).getTime()).toBe(new Date(2026, 2, 1, 14, 30).getTime());
    expect(wrapper.get('[data-testid="sent-at"]').text()).toBe(`Sent as ${sent}`);
    expect((wrapper.get('[data-testid="field-at"]').element as HTMLInputElement).value).toMatch(
      /^2026-03-01T14:30(:00)?$/,
    );
  });

  it('shows a date-time set as JSON in the local input', async () => {
    const wrapper = mountForm(schema, { at: new Date(2026, 0, 2, 3, 4, 5).toISOString() });
    expect((wrapper.get('[data-testid="field-at"]').element as HTMLInputElement).value).toBe(
      '2026-01-02T03:04:05',
    );
    await wrapper.setProps({ modelValue: { at: 'next tuesday' } });
    expect(wrapper.get('[data-testid="sent-at"]').text()).toBe('Not a date-time: next tuesday');
  });

  it('sends a date as the input gives it, YYYY-MM-DD', async () => {
    const wrapper = mountForm(schema);
    await wrapper.get('[data-testid="field-day"]').setValue('2026-02-28');
    expect(lastValue(wrapper)).toMatchObject({ day: '2026-02-28' });
  });
});

describe('SchemaForm $ref and defaults', () => {
  it('renders a $ref to $defs as its object, prefilled from defaults', () => {
    const wrapper = mountForm({
      type: 'object',
      $defs: {
        Address: {
          type: 'object',
          properties: { city: { type: 'string', default: 'Oslo' }, zip: { type: 'string' } },
        },
      },
      properties: { ship: { $ref: '#/$defs/Address' }, copies: { type: 'integer', default: 2 } },
    });
    expect((wrapper.get('[data-testid="field-ship.city"]').element as HTMLInputElement).value).toBe('Oslo');
    expect((wrapper.get('[data-testid="field-copies"]').element as HTMLInputElement).value).toBe('2');
  });

  it('renders a recursive schema to a depth and edits the rest as JSON', () => {
    const wrapper = mountForm({
      type: 'object',
      $defs: {
        Node: {
          type: 'object',
          properties: { name: { type: 'string' }, child: { $ref: '#/$defs/Node' } },
        },
      },
      properties: { tree: { $ref: '#/$defs/Node' } },
    });
    expect(wrapper.find('[data-testid="field-tree.name"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="field-tree.child.name"]').exists()).toBe(true);
    const textareas = wrapper.findAll('textarea').map((t) => t.attributes('data-testid'));
    expect(textareas).toHaveLength(1);
    expect(textareas[0]).toMatch(/^field-tree(\.child)+$/);
  });
});

describe('SchemaForm errors', () => {
  it('shows a problem at its field, marks the input invalid and describes it', () => {
    const wrapper = mount(SchemaForm, {
      props: {
        schema: everyType,
        modelValue: { message: 'x', email: 'nope' },
        idPrefix: 'f',
        errors: { email: 'Not an e-mail address' },
      },
    });
    const email = wrapper.get('[data-testid="field-email"]');
    expect(email.attributes('aria-invalid')).toBe('true');
    const error = wrapper.get('[data-testid="error-email"]');
    expect(error.text()).toBe('Not an e-mail address');
    expect(email.attributes('aria-describedby')).toContain(error.attributes('id'));
    expect(wrapper.get('[data-testid="field-message"]').attributes('aria-invalid')).toBeUndefined();
  });
});

describe('SchemaForm JSON view shows what is sent', () => {
  it('leaves out optional fields left empty, as they are sent, and keeps the values across switches', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="field-message"]').setValue('hi');
    await wrapper.get('[data-testid="field-count"]').setValue('4');
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    const raw = () =>
      JSON.parse((wrapper.get('[data-testid="raw-json"]').element as HTMLTextAreaElement).value);
    expect(raw()).toEqual(parametersFromValue(everyType, lastValue(wrapper) as Record<string, unknown>));
    expect(raw()).toEqual({ message: 'hi', count: 4, loud: false, unit: 'celsius' });

    await wrapper.get('[data-testid="mode-form"]').trigger('click');
    expect((wrapper.get('[data-testid="field-count"]').element as HTMLInputElement).value).toBe('4');
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    expect(raw()).toEqual({ message: 'hi', count: 4, loud: false, unit: 'celsius' });
  });

  it('keeps JSON as typed while it is the value, even where sending would drop a key', async () => {
    const wrapper = mountForm(everyType);
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    const text = '{"message": "m", "email": ""}';
    await wrapper.get('[data-testid="raw-json"]').setValue(text);
    expect((wrapper.get('[data-testid="raw-json"]').element as HTMLTextAreaElement).value).toBe(text);
    expect(lastValue(wrapper)).toEqual({ message: 'm', email: '' });
  });
});

describe('a schema too large for the form', { timeout: 10_000 }, () => {
  it('offers only the JSON editor and says why', async () => {
    const $defs: Record<string, JsonSchema> = {};
    for (let i = 0; i < 12; i++) {
      const next = i < 11 ? { $ref: `#/$defs/D${i + 1}` } : { type: 'string' };
      $defs[`D${i}`] = {
        type: 'object',
        properties: Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((name) => [name, next])),
      };
    }
    const wrapper = mountForm({ type: 'object', properties: { root: { $ref: '#/$defs/D0' } }, $defs });
    expect(wrapper.get('[data-testid="schema-too-large"]').text()).toBe(
      'The schema expands to more than 5,000 fields; edit the arguments as JSON.',
    );
    expect(wrapper.find('[data-testid="raw-json"]').exists()).toBe(true);
    expect(wrapper.get('[data-testid="mode-form"]').attributes('disabled')).toBeDefined();
    await wrapper.get('[data-testid="raw-json"]').setValue('{"root": {"a": "x"}}');
    expect(lastValue(wrapper)).toEqual({ root: { a: 'x' } });
  });
});
