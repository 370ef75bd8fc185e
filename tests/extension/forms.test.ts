import { describe, expect, it } from 'vitest';
import {
  fieldsFromSchema,
  initialValue,
  fromLocalDateTime,
  itemField,
  missingRequired,
  toLocalDateTime,
  validateValue as validateWith,
  variantIndex,
  parametersFromValue,
  schemaTooLargeNote,
  type JsonSchema,
} from '../../extension/forms/forms.ts';

/** These tests' own patterns are harmless: run them here, as the dialog's worker would. */
const validateValue = (schema: JsonSchema | undefined, value: Record<string, unknown>) =>
  validateWith(schema, value, (pattern, text) => new RegExp(pattern, 'u').test(text));

function onlyField(property: JsonSchema, required = false): ReturnType<typeof fieldsFromSchema>[number] {
  const fields = fieldsFromSchema({
    type: 'object',
    properties: { p: property },
    required: required ? ['p'] : [],
  });
  expect(fields).toHaveLength(1);
  return fields[0]!;
}

describe('form fields (SPEC part 2)', () => {
  it('makes one field per property, in schema order', () => {
    const fields = fieldsFromSchema({
      type: 'object',
      properties: { b: { type: 'string' }, a: { type: 'number' }, c: { type: 'boolean' } },
    });
    expect(fields.map((f) => f.name)).toEqual(['b', 'a', 'c']);
  });

  it('makes no fields without a schema or without properties', () => {
    expect(fieldsFromSchema(undefined)).toEqual([]);
    expect(fieldsFromSchema({ type: 'object' })).toEqual([]);
  });

  it('defaults the type to string', () => {
    expect(onlyField({ description: 'anything' }).type).toBe('string');
    expect(onlyField({ type: 'date-ish' }).type).toBe('string');
  });

  it('keeps the declared type', () => {
    const types = ['string', 'number', 'integer', 'boolean', 'array', 'object'];
    expect(types.map((type) => onlyField({ type }).type)).toEqual(types);
  });

  it('gives a property with enum the type enum', () => {
    const field = onlyField({ type: 'string', enum: ['celsius', 'fahrenheit'] });
    expect(field.type).toBe('enum');
    expect(field.enum).toEqual(['celsius', 'fahrenheit']);
  });

  it('marks a field required exactly when its name is in the required list', () => {
    const fields = fieldsFromSchema({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      required: ['b'],
    });
    expect(fields.map((f) => [f.name, f.required])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });

  it('copies description, minimum and maximum', () => {
    const field = onlyField({ type: 'integer', description: 'How many', minimum: 1, maximum: 10 });
    expect(field).toMatchObject({ description: 'How many', minimum: 1, maximum: 10 });
  });

  it('leaves out what the schema does not say', () => {
    expect(onlyField({ type: 'string' })).toEqual({ name: 'p', type: 'string', required: false, value: '' });
  });

  it('copies title and format', () => {
    expect(onlyField({ type: 'string', title: 'E-mail', format: 'email' })).toMatchObject({
      title: 'E-mail',
      format: 'email',
    });
  });
});

describe('default values', () => {
  it('gives each type its default', () => {
    expect(onlyField({ type: 'string' }).value).toBe('');
    expect(onlyField({ type: 'number' }).value).toBeUndefined();
    expect(onlyField({ type: 'integer' }).value).toBeUndefined();
    expect(onlyField({ type: 'boolean' }).value).toBe(false);
    expect(onlyField({ type: 'array' }).value).toEqual([]);
    expect(onlyField({ type: 'object' }).value).toEqual({});
    expect(onlyField({ enum: ['low', 'high'] }).value).toBe('low');
    expect(onlyField({ enum: [] }).value).toBe('');
  });

  it("uses the schema's own default when it has one", () => {
    expect(onlyField({ type: 'number', default: 2.5 }).value).toBe(2.5);
    expect(onlyField({ type: 'string', default: 'hi' }).value).toBe('hi');
    expect(onlyField({ type: 'boolean', default: true }).value).toBe(true);
    expect(onlyField({ enum: ['low', 'high'], default: 'high' }).value).toBe('high');
  });

  it('copies a default so editing the value cannot change the schema', () => {
    const schema = { type: 'object', properties: { tags: { type: 'array', default: ['a'] } } };
    (initialValue(schema).tags as string[]).push('b');
    expect(initialValue(schema).tags).toEqual(['a']);
  });

  it('builds the initial value from the defaults of every field, nested objects included', () => {
    expect(
      initialValue({
        type: 'object',
        properties: {
          message: { type: 'string' },
          count: { type: 'integer', default: 3 },
          loud: { type: 'boolean' },
          address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' } } },
        },
      }),
    ).toEqual({ message: '', count: 3, loud: false, address: { city: '', zip: '' } });
  });
});

describe('nested objects and arrays', () => {
  it('gives an object field the fields of its properties as children', () => {
    const field = onlyField({
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'integer' } },
      required: ['city'],
    });
    expect(field.children?.map((c) => [c.name, c.type, c.required])).toEqual([
      ['city', 'string', true],
      ['zip', 'integer', false],
    ]);
  });

  it('keeps the items schema of an array, with item fields for object items', () => {
    const items = { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] };
    const field = onlyField({ type: 'array', items });
    expect(field.items).toEqual(items);
    expect(field.children?.map((c) => [c.name, c.required])).toEqual([['sku', true]]);
    expect(onlyField({ type: 'array', items: { type: 'string' } }).children).toBeUndefined();
  });

  it('gives editable array items a field named by index, and none for items only JSON can edit', () => {
    expect(itemField({ type: 'number', minimum: 0 }, 2)).toMatchObject({
      name: '2',
      type: 'number',
      minimum: 0,
    });
    expect(itemField({ enum: ['a', 'b'] }, 0)).toMatchObject({ type: 'enum', value: 'a' });
    expect(itemField({ type: 'object', properties: { x: { type: 'string' } } }, 0)?.value).toEqual({ x: '' });
    expect(itemField({ type: 'array', items: { type: 'string' } }, 0)).toBeUndefined();
    expect(itemField({ anyOf: [{ type: 'string' }, { type: 'number' }] }, 0)).toBeUndefined();
    expect(itemField(undefined, 0)).toBeUndefined();
  });
});

describe('nullable and union properties', () => {
  it('reads anyOf with a null branch as the other branch, keeping the outer description', () => {
    const field = onlyField({
      anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }],
      description: 'Limit',
    });
    expect(field).toMatchObject({ type: 'integer', minimum: 0, description: 'Limit' });
  });

  it('reads oneOf with a null branch as the other branch', () => {
    expect(onlyField({ oneOf: [{ type: 'null' }, { type: 'string', format: 'uri' }] })).toMatchObject({
      type: 'string',
      format: 'uri',
    });
  });

  it("reads type ['string', 'null'] as string", () => {
    expect(onlyField({ type: ['string', 'null'] }).type).toBe('string');
    expect(onlyField({ type: ['null', 'boolean'] }).type).toBe('boolean');
  });

  it('keeps a null default of a nullable property', () => {
    expect(onlyField({ type: ['string', 'null'], default: null }).value).toBeNull();
  });

  it('makes a union field of several types, one variant per type, null included', () => {
    const field = onlyField({ type: ['boolean', 'string', 'null'], description: 'Flag or word' });
    expect(field.type).toBe('union');
    expect(field.variantLabels).toEqual(['boolean', 'string', 'null']);
    expect(field.variants?.map((v) => [v.type, v.description])).toEqual([
      ['boolean', 'Flag or word'],
      ['string', 'Flag or word'],
      ['null', 'Flag or word'],
    ]);
    expect(field.value).toBe(false);
    expect(onlyField({ type: ['boolean', 'string'], default: 'auto' }).value).toBe('auto');
  });

  it('makes a union field of anyOf branches of different types, named by title or type', () => {
    const field = onlyField({
      anyOf: [{ type: 'string', title: 'Name' }, { type: 'integer', minimum: 1 }, { type: 'null' }],
    });
    expect(field.variantLabels).toEqual(['Name', 'integer', 'null']);
    expect(field.variants?.[1]).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it('picks the variant a value fits', () => {
    const field = onlyField({ type: ['boolean', 'string', 'null'] });
    expect([true, 'x', null, 3].map((value) => variantIndex(field, value))).toEqual([0, 1, 2, -1]);
  });

  it('reads const as a one-member enum', () => {
    expect(onlyField({ const: 'fixed' })).toMatchObject({ type: 'enum', enum: ['fixed'], value: 'fixed' });
  });
});

describe('parametersFromValue', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      message: { type: 'string' },
      note: { type: 'string' },
      count: { type: 'integer' },
      ratio: { type: 'number' },
      loud: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'number' } },
      address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' } } },
    },
    required: ['message'],
  };

  it('drops optional fields left empty and keeps required ones', () => {
    expect(parametersFromValue(schema, initialValue(schema))).toEqual({ message: '', loud: false });
  });

  it('coerces numbers typed as text, in fields and in array items', () => {
    expect(
      parametersFromValue(schema, { message: 'hi', count: '3', ratio: ' 0.5 ', tags: ['1', 2] }),
    ).toEqual({
      message: 'hi',
      count: 3,
      ratio: 0.5,
      tags: [1, 2],
    });
  });

  it('leaves text that is not a number for the server to reject', () => {
    expect(parametersFromValue(schema, { message: 'hi', count: 'many' }).count).toBe('many');
  });

  it('cleans nested objects and keeps them once something is filled in', () => {
    expect(parametersFromValue(schema, { message: 'hi', address: { city: 'Oslo', zip: '' } })).toEqual({
      message: 'hi',
      address: { city: 'Oslo' },
    });
  });

  it('drops an optional object with nothing filled in, even one that requires fields', () => {
    const withBilling = {
      type: 'object',
      properties: {
        billing: { type: 'object', properties: { iban: { type: 'string' } }, required: ['iban'] },
      },
    };
    expect(parametersFromValue(withBilling, initialValue(withBilling))).toEqual({});
    expect(parametersFromValue(withBilling, { billing: { iban: 'NO93' } })).toEqual({
      billing: { iban: 'NO93' },
    });
  });

  it('passes through keys the schema does not name', () => {
    expect(parametersFromValue(schema, { message: 'hi', extra: { a: 1 } })).toEqual({
      message: 'hi',
      extra: { a: 1 },
    });
  });

  it('keeps null, a deliberate value of a nullable field', () => {
    expect(parametersFromValue(schema, { message: 'hi', note: null }).note).toBeNull();
  });
});

describe('missingRequired', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      message: { type: 'string' },
      count: { type: 'integer' },
      loud: { type: 'boolean' },
      address: {
        type: 'object',
        properties: { city: { type: 'string' }, zip: { type: 'string' } },
        required: ['city'],
      },
      billing: { type: 'object', properties: { iban: { type: 'string' } }, required: ['iban'] },
      lines: {
        type: 'array',
        items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
      },
    },
    required: ['message', 'count', 'loud', 'address'],
  };

  it('names required fields left empty, nested ones by dotted path', () => {
    expect(missingRequired(schema, initialValue(schema))).toEqual(['message', 'count', 'address.city']);
  });

  it('names nothing once they are filled in; false is a value', () => {
    expect(
      missingRequired(schema, { message: 'hi', count: 0, loud: false, address: { city: 'Oslo' } }),
    ).toEqual([]);
  });

  it('checks an optional object only once something in it is filled in', () => {
    const value = { message: 'hi', count: 1, loud: false, address: { city: 'Oslo' } };
    expect(missingRequired(schema, { ...value, billing: { iban: '' } })).toEqual([]);
    expect(missingRequired(schema, { ...value, billing: { iban: '', bic: 'X' } })).toEqual(['billing.iban']);
  });

  it('checks each object item of an array', () => {
    const value = { message: 'hi', count: 1, loud: false, address: { city: 'Oslo' } };
    expect(missingRequired(schema, { ...value, lines: [{ sku: 'a' }, { sku: '' }] })).toEqual([
      'lines.1.sku',
    ]);
  });

  it('names nothing for a schema without properties', () => {
    expect(missingRequired(undefined, {})).toEqual([]);
  });
});

describe('pick lists', () => {
  it('shows enumNames as the labels of enum members', () => {
    const field = onlyField({ type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] });
    expect(field).toMatchObject({ type: 'enum', enum: ['s', 'm'], enumLabels: ['Small', 'Medium'] });
  });

  it('ignores enumNames that do not match the members one to one', () => {
    expect(onlyField({ enum: ['s', 'm'], enumNames: ['Small'] }).enumLabels).toBeUndefined();
  });

  it('reads oneOf and anyOf of const/title branches as a pick list of consts with titles', () => {
    const oneOf = onlyField({
      type: 'string',
      oneOf: [
        { const: '#f00', title: 'Red' },
        { const: '#0f0', title: 'Green' },
      ],
    });
    expect(oneOf).toMatchObject({ type: 'enum', enum: ['#f00', '#0f0'], enumLabels: ['Red', 'Green'] });
    expect(oneOf.value).toBe('#f00');
    const anyOf = onlyField({ anyOf: [{ const: 1, title: 'One' }, { const: 2 }, { type: 'null' }] });
    expect(anyOf).toMatchObject({ type: 'enum', enum: [1, 2], enumLabels: ['One', '2'] });
  });

  it('reads an array of pick-list items as a multi-select (MCP elicitation enums)', () => {
    const titled = onlyField({
      type: 'array',
      minItems: 1,
      maxItems: 2,
      items: {
        anyOf: [
          { const: 'a', title: 'Apple' },
          { const: 'b', title: 'Banana' },
        ],
      },
      default: ['b'],
    });
    expect(titled).toMatchObject({
      type: 'multiselect',
      enum: ['a', 'b'],
      enumLabels: ['Apple', 'Banana'],
      minItems: 1,
      maxItems: 2,
      value: ['b'],
    });
    const untitled = onlyField({ type: 'array', items: { type: 'string', enum: ['x', 'y'] } });
    expect(untitled).toMatchObject({ type: 'multiselect', enum: ['x', 'y'], value: [] });
    expect(untitled.enumLabels).toBeUndefined();
  });
});

describe('$ref and $defs', () => {
  it('resolves $ref into $defs and definitions, sibling keywords winning', () => {
    const fields = fieldsFromSchema({
      type: 'object',
      $defs: {
        Address: {
          type: 'object',
          properties: { city: { type: 'string' }, country: { $ref: '#/definitions/Country' } },
          required: ['city'],
        },
      },
      definitions: { Country: { enum: ['NO', 'SE'] } },
      properties: { ship: { $ref: '#/$defs/Address', description: 'Where to ship' } },
    });
    expect(fields[0]).toMatchObject({ name: 'ship', type: 'object', description: 'Where to ship' });
    expect(fields[0]!.children?.map((c) => [c.name, c.type, c.required])).toEqual([
      ['city', 'string', true],
      ['country', 'enum', false],
    ]);
    expect(
      initialValue({ properties: { s: { $ref: '#/$defs/S' } }, $defs: { S: { default: 'x' } } }),
    ).toEqual({
      s: 'x',
    });
  });

  it('resolves the nullable $ref of pydantic models, and allOf wrappers', () => {
    const schema = {
      $defs: { Point: { type: 'object', properties: { x: { type: 'number' } } } },
      properties: {
        a: { anyOf: [{ $ref: '#/$defs/Point' }, { type: 'null' }], default: null },
        b: { allOf: [{ $ref: '#/$defs/Point' }], title: 'B' },
      },
    };
    const [a, b] = fieldsFromSchema(schema);
    expect(a).toMatchObject({ type: 'object', value: null });
    expect(b).toMatchObject({ type: 'object', title: 'B' });
    expect(b!.children?.map((c) => c.name)).toEqual(['x']);
  });

  it('stops at a depth limit in recursive schemas, leaving the deepest level to JSON', () => {
    const schema = {
      $defs: {
        Node: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
        },
        Loop: { $ref: '#/$defs/Loop' },
      },
      properties: { tree: { $ref: '#/$defs/Node' }, loop: { $ref: '#/$defs/Loop' }, self: { $ref: '#' } },
    };
    const fields = fieldsFromSchema(schema);
    expect(fields.map((f) => f.name)).toEqual(['tree', 'loop', 'self']);
    let depth = 0;
    let node: JsonSchema | undefined = fields[0]!.children?.find((c) => c.name === 'children')?.items;
    while (
      node &&
      Array.isArray((node as { properties?: unknown }).properties) === false &&
      node.properties
    ) {
      depth += 1;
      node = (node.properties as Record<string, JsonSchema>).children?.items as JsonSchema | undefined;
    }
    expect(depth).toBeGreaterThan(0);
    expect(depth).toBeLessThan(5);
    expect(node?.type).toBe('object');
    expect(node?.properties).toBeUndefined();
  });

  it('treats a reference it cannot resolve as a schema without keywords', () => {
    expect(onlyField({ $ref: 'https://example.com/schema.json', description: 'Remote' })).toMatchObject({
      type: 'string',
      description: 'Remote',
    });
  });
});

describe('multi-line strings', () => {
  it('suggests a textarea for long or free text, not for short or formatted strings', () => {
    expect(onlyField({ type: 'string', maxLength: 1000 }).multiline).toBe(true);
    expect(onlyField({ type: 'string', maxLength: 40 }).multiline).toBeUndefined();
    expect(onlyField({ type: 'string', description: 'The body, in Markdown' }).multiline).toBe(true);
    expect(onlyField({ type: 'string', description: 'Multi-line notes' }).multiline).toBe(true);
    expect(fieldsFromSchema({ properties: { content: { type: 'string' } } })[0]!.multiline).toBe(true);
    expect(onlyField({ type: 'string', format: 'uri', maxLength: 2000 }).multiline).toBeUndefined();
    expect(onlyField({ type: 'string', description: 'A name' }).multiline).toBeUndefined();
  });
});

describe('date-time values', () => {
  it('converts between RFC 3339 and what a datetime-local input holds, both ways', () => {
    const sent = fromLocalDateTime('2026-03-01T14:30');
    expect(sent).toMatch(/^2026-03-01T14:30:00(Z|[+-]\d{2}:\d{2})$/);
    expect(new Date(sent).getTime()).toBe(new Date(2026, 2, 1, 14, 30).getTime());
    expect(toLocalDateTime(sent)).toBe('2026-03-01T14:30:00');
    expect(toLocalDateTime(new Date(2026, 0, 2, 3, 4, 5).toISOString())).toBe('2026-01-02T03:04:05');
    expect(fromLocalDateTime('')).toBe('');
    expect(toLocalDateTime('yesterday')).toBe('');
    expect(toLocalDateTime('2026-03-01')).toBe('');
  });
});

describe('validateValue', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 5 },
      age: { type: 'integer', minimum: 0, maximum: 120 },
      email: { type: 'string', format: 'email' },
      site: { type: 'string', format: 'uri' },
      day: { type: 'string', format: 'date' },
      at: { type: 'string', format: 'date-time' },
      size: {
        type: 'string',
        oneOf: [
          { const: 's', title: 'Small' },
          { const: 'l', title: 'Large' },
        ],
      },
      fruits: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] } },
      code: { type: 'string', pattern: '^[A-Z]+$' },
      flag: { type: ['boolean', 'string'] },
    },
    required: ['name', 'size'],
  };

  const problems = (value: Record<string, unknown>) =>
    Object.fromEntries(validateValue(schema, value).map((p) => [p.path, p.message]));

  it('accepts a valid answer and leaves optional empty fields alone', () => {
    expect(validateValue(schema, { name: 'Ada', size: 's', email: '', fruits: [], flag: true })).toEqual([]);
    expect(
      validateValue(schema, {
        name: 'Ada',
        size: 'l',
        age: 36,
        email: 'ada@example.com',
        site: 'https://example.com/a',
        day: '2026-02-28',
        at: '2026-02-28T10:00:00+01:00',
        fruits: ['a', 'c'],
        code: 'ABC',
        flag: 'auto',
      }),
    ).toEqual([]);
  });

  it('names required fields left empty as missing', () => {
    expect(validateValue(schema, { name: '', size: '' })).toEqual([
      { path: 'name', message: 'Required', missing: true },
      { path: 'size', message: 'Required', missing: true },
    ]);
  });

  it('checks lengths, limits, formats, pick lists, item counts, patterns and types', () => {
    expect(
      problems({
        name: 'A',
        size: 'm',
        age: 121,
        email: 'ada',
        site: 'example.com',
        day: '2026-02-30',
        at: '2026-02-28T10:00',
        fruits: ['a', 'b', 'c'],
        code: 'abc',
        flag: 3,
      }),
    ).toEqual({
      name: 'At least 2 characters',
      size: 'Pick one of the options',
      age: 'Must be at most 120',
      email: 'Not an e-mail address',
      site: 'Not a URI',
      day: 'Not a date (YYYY-MM-DD)',
      at: 'Not a date and time (RFC 3339, e.g. 2026-03-01T14:30:00Z)',
      fruits: 'Pick at most 2',
      code: 'Must match ^[A-Z]+$',
      flag: 'Must be of type boolean or string',
    });
    expect(problems({ name: 'Abcdef', size: 's', age: 1.5, fruits: ['z'] })).toEqual({
      name: 'At most 5 characters',
      age: 'Must be a whole number',
      fruits: 'Not an option: z',
    });
    expect(problems({ name: 'Ab', size: 's', age: -1 })).toEqual({ age: 'Must be at least 0' });
  });

  it('counts a required multi-select below minItems', () => {
    const pick = {
      type: 'object',
      properties: { f: schema.properties && (schema.properties as JsonSchema).fruits },
    };
    expect(validateValue(pick as JsonSchema, { f: [] })).toEqual([]);
    expect(validateValue({ ...pick, required: ['f'] } as JsonSchema, { f: [] })).toEqual([
      { path: 'f', message: 'Pick at least 1' },
    ]);
  });

  it('checks nested objects by dotted path', () => {
    const nested = {
      type: 'object',
      properties: {
        address: { type: 'object', properties: { zip: { type: 'string', pattern: '^\\d{4}$' } } },
      },
    };
    expect(validateValue(nested, { address: { zip: '12' } })).toEqual([
      { path: 'address.zip', message: 'Must match ^\\d{4}$' },
    ]);
  });
});

describe('unions in what is sent', () => {
  it('sends the value of the variant it fits, cleaned as that variant', () => {
    const schema = {
      type: 'object',
      properties: { n: { anyOf: [{ type: 'integer' }, { type: 'boolean' }] } },
    };
    expect(parametersFromValue(schema, { n: true })).toEqual({ n: true });
    expect(parametersFromValue(schema, { n: 4 })).toEqual({ n: 4 });
    expect(parametersFromValue(schema, { n: undefined })).toEqual({});
  });
});

/**
 * Twelve `$defs`, each with six properties all referring to the next: 1.6 KB that expands to 6^12 nodes.
 * Without a budget on the whole expansion, selecting such a tool freezes the page for good.
 */
function exponentialSchema(): JsonSchema {
  const $defs: Record<string, JsonSchema> = {};
  for (let i = 0; i < 12; i++) {
    const next = i < 11 ? { $ref: `#/$defs/D${i + 1}` } : { type: 'string' };
    $defs[`D${i}`] = {
      type: 'object',
      properties: Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((name) => [name, next])),
    };
  }
  return { type: 'object', properties: { root: { $ref: '#/$defs/D0' } }, $defs };
}

describe('schemas too large for a form', { timeout: 10_000 }, () => {
  it('gives up on a schema whose references expand past the budget, and says why', () => {
    const schema = exponentialSchema();
    expect(JSON.stringify(schema).length).toBeLessThan(3_000);
    expect(schemaTooLargeNote(schema)).toBe(
      'The schema expands to more than 5,000 fields; edit the arguments as JSON.',
    );
    expect(fieldsFromSchema(schema)).toEqual([]);
    expect(initialValue(schema)).toEqual({});
    expect(validateValue(schema, { root: 1 })).toEqual([]);
    expect(missingRequired(schema, {})).toEqual([]);
    // What the JSON editor holds is sent as it is.
    expect(parametersFromValue(schema, { root: { a: 'x' }, extra: 1 })).toEqual({
      root: { a: 'x' },
      extra: 1,
    });
    expect(itemField(schema, 0)).toBeUndefined();
  });

  it('counts fields too: a large literal schema without references', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 6_000 }, (_, i) => [`p${i}`, { type: 'string' }]),
    );
    expect(schemaTooLargeNote({ type: 'object', properties })).toMatch(/more than 5,000 fields/);
    expect(fieldsFromSchema({ type: 'object', properties })).toEqual([]);
  });

  it('leaves ordinary schemas, recursive ones included, to the form', () => {
    const tree: JsonSchema = {
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      $defs: {
        Node: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
        },
      },
    };
    expect(schemaTooLargeNote(tree)).toBeUndefined();
    expect(fieldsFromSchema(tree).map((field) => field.name)).toEqual(['node']);
  });
});

describe('server patterns in validateValue', { timeout: 10_000 }, () => {
  it('never runs a pattern itself: without a tester it is reported as not checked', () => {
    const schema = { type: 'object', properties: { x: { type: 'string', pattern: '^(a|a)*$' } } };
    expect(validateWith(schema, { x: 'a'.repeat(40) + '!' })).toEqual([
      { path: 'x', message: 'pattern not checked', unchecked: true },
    ]);
  });
});
