import { describe, expect, it } from 'vitest';
import {
  fieldsFromSchema,
  initialValue,
  itemField,
  missingRequired,
  parametersFromValue,
  type JsonSchema,
} from '../../extension/forms/forms.ts';

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

  it('falls back to string for a union of several types', () => {
    expect(onlyField({ anyOf: [{ type: 'string' }, { type: 'number' }] }).type).toBe('string');
    expect(onlyField({ type: ['string', 'number'] }).type).toBe('string');
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
