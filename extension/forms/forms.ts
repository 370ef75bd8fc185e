/**
 * Form fields from a tool's `inputSchema` (SPEC part 2, "Form field generation"): one field per property;
 * `type` defaults to `string`; a property with `enum` is of type `enum`; `required` is true when the name
 * is in the schema's `required` list; `enum`, `minimum`, `maximum` and `description` are copied; `value`
 * is a default for the type.
 *
 * Beyond the SPEC: `title` and `format` are copied, nested objects carry `children`, arrays keep their
 * `items` schema (and `children` for object items), `const` is a one-member enum, and a nullable
 * property (`anyOf`/`oneOf` with a `null` branch, `type: [T, 'null']`) becomes a field of type T.
 * `$ref` is not resolved: such a property has no type and so, per the SPEC, is a string.
 */

export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'enum';

export interface FormField {
  name: string;
  type: FieldType;
  description?: string;
  title?: string;
  required: boolean;
  value: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  format?: string;
  children?: FormField[];
  items?: JsonSchema;
}

export type JsonSchema = Record<string, unknown>;

const FIELD_TYPES: readonly string[] = ['string', 'number', 'integer', 'boolean', 'array', 'object'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Folds a nullable union into its one non-null branch; the outer keywords (description, default…) win. */
function simplify(schema: JsonSchema): JsonSchema {
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const nonNull = branches.filter((branch) => !(isObject(branch) && branch.type === 'null'));
    const [only] = nonNull;
    if (nonNull.length !== 1 || !isObject(only)) continue;
    const { [keyword]: _union, ...outer } = schema;
    return simplify({ ...only, ...outer });
  }
  return schema;
}

/** The declared type, if it is one a field can have; `type: [T, 'null']` counts as T. */
function declaredType(schema: JsonSchema): FieldType | undefined {
  if (Array.isArray(schema.enum)) return 'enum';
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t) => t !== 'null');
  const [only] = types;
  // Several non-null types cannot be one input: the SPEC's default (string) takes any text.
  return types.length === 1 && typeof only === 'string' && FIELD_TYPES.includes(only)
    ? (only as FieldType)
    : undefined;
}

function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/**
 * "A default for the type": the schema's own `default` when it has one; otherwise '' for a string (an
 * empty text box), `undefined` for a number or integer (an empty number box — 0 would be a value the user
 * never chose, and would be sent for optional fields), false for a boolean, the first member for an
 * enum, [] for an array, and for an object the defaults of its own properties.
 */
function defaultValue(type: FieldType, schema: JsonSchema, enumValues: unknown[] | undefined): unknown {
  if ('default' in schema) return clone(schema.default);
  switch (type) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return undefined;
    case 'boolean':
      return false;
    case 'enum':
      return enumValues && enumValues.length > 0 ? clone(enumValues[0]) : '';
    case 'array':
      return [];
    case 'object':
      return initialValue(schema);
  }
}

function fieldFromSchema(name: string, property: unknown, required: boolean): FormField {
  const schema = simplify(isObject(property) ? property : {});
  const enumValues = Array.isArray(schema.enum)
    ? schema.enum
    : 'const' in schema
      ? [schema.const]
      : undefined;
  const type: FieldType = enumValues ? 'enum' : (declaredType(schema) ?? 'string');
  const field: FormField = { name, type, required, value: defaultValue(type, schema, enumValues) };
  if (typeof schema.description === 'string') field.description = schema.description;
  if (typeof schema.title === 'string') field.title = schema.title;
  if (typeof schema.format === 'string') field.format = schema.format;
  if (enumValues) field.enum = enumValues;
  if (typeof schema.minimum === 'number') field.minimum = schema.minimum;
  if (typeof schema.maximum === 'number') field.maximum = schema.maximum;
  if (type === 'object') field.children = fieldsFromSchema(schema);
  if (type === 'array' && isObject(schema.items)) {
    field.items = schema.items;
    const items = simplify(schema.items);
    if (declaredType(items) === 'object') field.children = fieldsFromSchema(items);
  }
  return field;
}

export function fieldsFromSchema(schema: JsonSchema | undefined): FormField[] {
  if (!schema) return [];
  const simplified = simplify(schema);
  const properties = isObject(simplified.properties) ? simplified.properties : {};
  const required = Array.isArray(simplified.required) ? simplified.required : [];
  return Object.entries(properties).map(([name, property]) =>
    fieldFromSchema(name, property, required.includes(name)),
  );
}

export function initialValue(schema: JsonSchema | undefined): Record<string, unknown> {
  return Object.fromEntries(fieldsFromSchema(schema).map((field) => [field.name, field.value]));
}

/**
 * The field for one array item, named by its index, or undefined when the item schema is not one an
 * input can edit (no type, a union, a nested array): such items are edited as raw JSON.
 */
export function itemField(items: JsonSchema | undefined, index: number): FormField | undefined {
  if (!items) return undefined;
  const schema = simplify(items);
  const type = 'const' in schema ? 'enum' : declaredType(schema);
  if (type === undefined || type === 'array') return undefined;
  // Not `required`: whether an item is there at all is up to the array.
  return fieldFromSchema(String(index), items, false);
}

/** Nothing filled in: '' or undefined, or an object or array holding only such values. */
function isBlank(value: unknown): boolean {
  if (value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.values(value).every(isBlank);
}

function cleanValue(field: FormField, value: unknown): unknown {
  if ((field.type === 'number' || field.type === 'integer') && typeof value === 'string') {
    // A number typed as text (raw JSON, a pasted value) is sent as a number when it is one.
    const number = value.trim() === '' ? NaN : Number(value);
    return Number.isFinite(number) ? number : value;
  }
  if (field.type === 'object' && field.children && isObject(value)) return cleanObject(field.children, value);
  if (field.type === 'array' && Array.isArray(value)) {
    return value.map((item, index) => {
      const itemSchema = itemField(field.items, index);
      return itemSchema ? cleanValue(itemSchema, item) : item;
    });
  }
  return value;
}

function cleanObject(fields: FormField[], value: Record<string, unknown>): Record<string, unknown> {
  // Keys the schema does not name (typed in raw JSON) pass through untouched.
  const result: Record<string, unknown> = { ...value };
  for (const field of fields) {
    const cleaned = cleanValue(field, value[field.name]);
    if (cleaned === undefined || (!field.required && isBlank(cleaned))) delete result[field.name];
    else result[field.name] = cleaned;
  }
  return result;
}

/**
 * The `parameters` to send: optional fields left empty ('' or undefined; an empty array; an object with
 * nothing filled in) are dropped, numbers typed as text become numbers, nested objects and array items
 * likewise. An optional object is thus sent only once something in it is filled in.
 */
export function parametersFromValue(
  schema: JsonSchema | undefined,
  value: Record<string, unknown>,
): Record<string, unknown> {
  return cleanObject(fieldsFromSchema(schema), value);
}

function missingIn(fields: FormField[], value: unknown, prefix: string): string[] {
  const object = isObject(value) ? value : {};
  return fields.flatMap((field) => {
    const path = prefix + field.name;
    const fieldValue = object[field.name];
    if (field.required && (fieldValue === undefined || fieldValue === '')) return [path];
    // An optional object left empty is not sent, so what it requires does not matter.
    if (!field.required && isBlank(fieldValue)) return [];
    if (field.type === 'object' && field.children) return missingIn(field.children, fieldValue, `${path}.`);
    if (field.type === 'array' && field.children && Array.isArray(fieldValue)) {
      const children = field.children;
      return fieldValue.flatMap((item, index) => missingIn(children, item, `${path}.${index}.`));
    }
    return [];
  });
}

/** Dotted paths (`message`, `address.city`, `items.0.sku`) of required fields left empty. */
export function missingRequired(schema: JsonSchema | undefined, value: Record<string, unknown>): string[] {
  return missingIn(fieldsFromSchema(schema), value, '');
}
