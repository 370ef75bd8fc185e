/**
 * Form fields from a tool's `inputSchema` (SPEC part 2, "Form field generation"): one field per property;
 * `type` defaults to `string`; a property with `enum` is of type `enum`; `required` is true when the name
 * is in the schema's `required` list; `enum`, `minimum`, `maximum` and `description` are copied; `value`
 * is a default for the type.
 *
 * Beyond the SPEC, for the schemas real servers send:
 * - `$ref` into `$defs`/`definitions` (any local JSON pointer) is resolved, recursive references up to a
 *   depth limit, past which the property is edited as JSON; `allOf` branches are merged.
 * - `title`, `format`, `minLength`, `maxLength`, `pattern`, `minItems`, `maxItems` are copied; nested
 *   objects carry `children`, arrays keep their `items` schema (and `children` for object items).
 * - Pick lists: `enum` (with `enumNames` as labels), `const` (a one-member enum), and `oneOf`/`anyOf` of
 *   `{ const, title }` branches (titles shown, `const` values sent). An array whose items are such a
 *   pick list is a `multiselect` (MCP elicitation's multi-select enums).
 * - A nullable property (`anyOf`/`oneOf` with a `null` branch, `type: [T, 'null']`) is a field of type T;
 *   a union of several types (`type: ['boolean', 'string']`, `anyOf` of typed branches) is a `union`
 *   field whose `variants` the user picks from.
 * - A string is suggested `multiline` when it looks like long free text.
 */

import type { InjectionKey, Ref } from 'vue';

export type FieldType =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'array'
  | 'object'
  | 'enum'
  | 'multiselect'
  | 'union'
  | 'null';

export interface FormField {
  name: string;
  type: FieldType;
  description?: string;
  title?: string;
  required: boolean;
  value: unknown;
  enum?: unknown[];
  /** What the pick list shows for each `enum` member (titles, `enumNames`). */
  enumLabels?: string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  format?: string;
  /** A string that looks like long free text: offered as a textarea first. */
  multiline?: boolean;
  /** The schema gives the field a `default` (its `value` is that, not the one of its type). */
  hasDefault?: boolean;
  children?: FormField[];
  items?: JsonSchema;
  /** The types a union field can take, each a field of the same name; `variantLabels` names them. */
  variants?: FormField[];
  variantLabels?: string[];
}

export type JsonSchema = Record<string, unknown>;

const FIELD_TYPES: readonly string[] = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];
/** How many times one `$ref` may be expanded inside itself, and how deep references may nest in all. */
const MAX_SAME_REF = 3;
const MAX_REF_DEPTH = 12;
/**
 * How many schema nodes (after `$ref`s are expanded) and form fields one schema may make. The depth limits
 * above do not bound the total: twelve `$defs` of six properties each referring to the next are 1.6 KB and
 * expand to 6^12 nodes, which would freeze the page. Past this budget the whole argument object is edited
 * as JSON, and the form says why (`schemaTooLargeNote`).
 */
export const MAX_SCHEMA_NODES = 5_000;

/** Thrown when a schema outgrows MAX_SCHEMA_NODES; caught where the schema is read. */
class SchemaTooLarge extends Error {
  constructor() {
    super(
      `The schema expands to more than ${MAX_SCHEMA_NODES.toLocaleString('en')} fields; edit the arguments as JSON.`,
    );
  }
}

/** Counts the nodes and fields made from one schema; throws SchemaTooLarge past MAX_SCHEMA_NODES. */
interface Budget {
  used: number;
}

function spend(budget: Budget): void {
  budget.used += 1;
  if (budget.used > MAX_SCHEMA_NODES) throw new SchemaTooLarge();
}
/** Longer strings than this are offered as a textarea. */
const MULTILINE_MAX_LENGTH = 200;
const MULTILINE_NAMES =
  /^(body|content|contents|text|prompt|code|script|markdown|html|sql|notes?|instructions|template|source)$/i;
const MULTILINE_HINTS = /multi-?line|several lines|paragraphs?|markdown|source code|full text/i;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// $ref resolution

function lookup(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return node;
}

/** Keywords whose values are data, not schemas: never walked for `$ref`. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'enumNames', 'examples', '$defs', 'definitions']);

/**
 * The schema with every local `$ref` replaced by what it points at (its sibling keywords win). A reference
 * met again inside itself more than MAX_SAME_REF times, or nested deeper than MAX_REF_DEPTH, is cut: the
 * property keeps its type but no inner schema, so it is edited as JSON.
 */
function dereference(node: unknown, root: unknown, seen: readonly string[], budget: Budget): unknown {
  if (Array.isArray(node)) return node.map((item) => dereference(item, root, seen, budget));
  if (!isObject(node)) return node;
  spend(budget);
  if (typeof node.$ref === 'string') {
    const { $ref: ref, ...siblings } = node as { $ref: string } & JsonSchema;
    const repeats = seen.filter((r) => r === ref).length;
    const target = lookup(root, ref);
    if (!isObject(target)) return dereference(siblings, root, seen, budget);
    if (repeats >= MAX_SAME_REF || seen.length >= MAX_REF_DEPTH) {
      const type = typeof target.type === 'string' ? target.type : 'object';
      return {
        type,
        ...(typeof target.title === 'string' ? { title: target.title } : {}),
        description: 'Nested too deep for the form: edit it as JSON.',
        ...siblings,
      };
    }
    return dereference({ ...target, ...siblings }, root, [...seen, ref], budget);
  }
  const result: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$defs' || key === 'definitions') continue;
    if ((key === 'properties' || key === 'patternProperties') && isObject(value)) {
      // Property names are not keywords: a property called `default` is a schema too.
      result[key] = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, dereference(property, root, seen, budget)]),
      );
    } else result[key] = DATA_KEYWORDS.has(key) ? value : dereference(value, root, seen, budget);
  }
  return result;
}

/**
 * The schema with its references resolved; what every other function here reads. Throws SchemaTooLarge
 * when it expands past MAX_SCHEMA_NODES (the exported readers below catch it).
 */
function resolveWithin(schema: JsonSchema | undefined, budget: Budget): JsonSchema | undefined {
  return schema ? (dereference(schema, schema, [], budget) as JsonSchema) : undefined;
}

/** The schema with its references resolved, or undefined when it expands past MAX_SCHEMA_NODES. */
export function resolveSchema(schema: JsonSchema | undefined): JsonSchema | undefined {
  return withinBudget(() => resolveWithin(schema, { used: 0 }), undefined);
}

function withinBudget<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SchemaTooLarge) return fallback;
    throw error;
  }
}

/**
 * Why the form cannot show this schema (it expands past MAX_SCHEMA_NODES nodes or fields), or undefined
 * when it can. The form then offers the JSON editor only, with this note; `fieldsFromSchema` is empty, and
 * `parametersFromValue` sends what the JSON editor holds.
 */
export function schemaTooLargeNote(schema: JsonSchema | undefined): string | undefined {
  try {
    const budget: Budget = { used: 0 };
    const resolved = resolveWithin(schema, budget);
    if (resolved) fieldsOf(resolved, budget);
    return undefined;
  } catch (error) {
    if (error instanceof SchemaTooLarge) return error.message;
    throw error;
  }
}

// Reading one schema

/** Merges `allOf` branches into one schema: properties and required lists joined, the outer keywords win. */
function mergeAllOf(schema: JsonSchema): JsonSchema {
  const branches = schema.allOf;
  if (!Array.isArray(branches) || !branches.every(isObject)) return schema;
  const { allOf: _allOf, ...outer } = schema;
  let merged: JsonSchema = {};
  for (const branch of [...(branches as JsonSchema[]).map(mergeAllOf), outer]) {
    const properties = { ...(merged.properties as JsonSchema), ...(branch.properties as JsonSchema) };
    const required = [
      ...(Array.isArray(merged.required) ? merged.required : []),
      ...(Array.isArray(branch.required) ? branch.required : []),
    ];
    merged = { ...merged, ...branch };
    if (Object.keys(properties).length) merged.properties = properties;
    if (required.length) merged.required = [...new Set(required)];
  }
  return merged;
}

const isNullBranch = (branch: unknown): boolean => isObject(branch) && branch.type === 'null';

/** Folds a nullable union into its one non-null branch; the outer keywords (description, default…) win. */
function simplify(schema: JsonSchema): JsonSchema {
  const merged = mergeAllOf(schema);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = merged[keyword];
    if (!Array.isArray(branches)) continue;
    const nonNull = branches.filter((branch) => !isNullBranch(branch));
    const [only] = nonNull;
    if (nonNull.length !== 1 || !isObject(only)) continue;
    const { [keyword]: _union, ...outer } = merged;
    return simplify({ ...only, ...outer });
  }
  return merged;
}

/** The non-null types `type` lists. */
function listedTypes(schema: JsonSchema): string[] {
  return (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (t): t is string => typeof t === 'string' && t !== 'null',
  );
}

/** The declared type, if it is one a field can have; `type: [T, 'null']` counts as T. */
function declaredType(schema: JsonSchema): FieldType | undefined {
  if (Array.isArray(schema.enum)) return 'enum';
  if (schema.type === 'null') return 'null';
  const [only, ...more] = listedTypes(schema);
  return only !== undefined && more.length === 0 && FIELD_TYPES.includes(only)
    ? (only as FieldType)
    : undefined;
}

interface Choices {
  values: unknown[];
  labels?: string[];
}

/** The pick list a schema describes: `enum` (+ `enumNames`), `const`, or `oneOf`/`anyOf` of consts. */
function choicesOf(schema: JsonSchema): Choices | undefined {
  if (Array.isArray(schema.enum)) {
    const names = schema.enumNames;
    const labels =
      Array.isArray(names) && names.length === schema.enum.length && names.every((n) => typeof n === 'string')
        ? (names as string[])
        : undefined;
    return labels ? { values: schema.enum, labels } : { values: schema.enum };
  }
  if ('const' in schema) return { values: [schema.const] };
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const options = branches.filter((branch) => !isNullBranch(branch));
    if (options.length === 0 || !options.every((branch) => isObject(branch) && 'const' in branch)) continue;
    const consts = options as JsonSchema[];
    return {
      values: consts.map((branch) => branch.const),
      labels: consts.map((branch) =>
        typeof branch.title === 'string' ? branch.title : String(branch.const),
      ),
    };
  }
  return undefined;
}

/** The branches of a union of several types, each with the outer keywords, or undefined. */
function unionBranches(schema: JsonSchema): { schemas: JsonSchema[]; labels: string[] } | undefined {
  const types = Array.isArray(schema.type)
    ? schema.type.filter((t): t is string => typeof t === 'string')
    : [];
  if (types.filter((t) => t !== 'null').length > 1) {
    const { default: _default, ...outer } = schema;
    return { schemas: types.map((type) => ({ ...outer, type })), labels: types };
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches) || !branches.every(isObject)) continue;
    if (branches.filter((branch) => !isNullBranch(branch)).length < 2) continue;
    const { [keyword]: _union, default: _default, ...outer } = schema;
    const schemas = (branches as JsonSchema[]).map((branch) => ({ ...outer, ...simplify(branch) }));
    const labels = schemas.map((branch, index) => {
      if (typeof branch.title === 'string' && branch.title !== outer.title) return branch.title;
      const type = declaredType(branch) ?? (Array.isArray(branch.enum) ? 'enum' : undefined);
      return type ?? `Option ${index + 1}`;
    });
    return { schemas, labels };
  }
  return undefined;
}

function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/**
 * "A default for the type": the schema's own `default` when it has one; otherwise '' for a string (an
 * empty text box), `undefined` for a number or integer (an empty number box — 0 would be a value the user
 * never chose, and would be sent for optional fields), false for a boolean, the first member for an
 * enum, [] for an array or multi-select, for an object the defaults of its own properties, null for null,
 * and for a union the default of its first type.
 */
function defaultValue(field: FormField, schema: JsonSchema): unknown {
  if ('default' in schema) return clone(schema.default);
  switch (field.type) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return undefined;
    case 'boolean':
      return false;
    case 'enum':
      return field.enum && field.enum.length > 0 ? clone(field.enum[0]) : '';
    case 'array':
    case 'multiselect':
      return [];
    case 'object':
      return valueOf(field.children ?? []);
    case 'null':
      return null;
    case 'union':
      return field.variants?.[0]?.value;
  }
}

function looksMultiline(name: string, schema: JsonSchema): boolean {
  if (typeof schema.format === 'string') return false;
  if (typeof schema.maxLength === 'number') return schema.maxLength > MULTILINE_MAX_LENGTH;
  if (typeof schema.contentMediaType === 'string') return true;
  if (typeof schema.default === 'string' && schema.default.includes('\n')) return true;
  const hint = [schema.title, schema.description].filter((t) => typeof t === 'string').join(' ');
  return MULTILINE_NAMES.test(name) || MULTILINE_HINTS.test(hint);
}

const NUMBER_KEYWORDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
] as const;

function fieldFromSchema(name: string, property: unknown, required: boolean, budget: Budget): FormField {
  spend(budget);
  const schema = simplify(isObject(property) ? property : {});
  const choices = choicesOf(schema);
  const union = choices ? undefined : unionBranches(schema);
  const itemSchema = isObject(schema.items) ? simplify(schema.items) : undefined;
  const itemChoices =
    !choices && itemSchema && declaredType(schema) === 'array' ? choicesOf(itemSchema) : undefined;
  const type: FieldType = union
    ? 'union'
    : choices
      ? 'enum'
      : itemChoices
        ? 'multiselect'
        : (declaredType(schema) ?? 'string');

  const field: FormField = { name, type, required, value: undefined };
  if (typeof schema.description === 'string') field.description = schema.description;
  if (typeof schema.title === 'string') field.title = schema.title;
  if (typeof schema.format === 'string') field.format = schema.format;
  const pick = choices ?? itemChoices;
  if (pick) {
    field.enum = pick.values;
    if (pick.labels) field.enumLabels = pick.labels;
  }
  for (const keyword of NUMBER_KEYWORDS) {
    if (typeof schema[keyword] === 'number') field[keyword] = schema[keyword];
  }
  if (typeof schema.pattern === 'string') field.pattern = schema.pattern;
  if (type === 'string' && looksMultiline(name, schema)) field.multiline = true;
  if (type === 'object') field.children = fieldsOf(schema, budget);
  if (type === 'array' && isObject(schema.items)) {
    field.items = schema.items;
    if (itemSchema && declaredType(itemSchema) === 'object' && !choicesOf(itemSchema)) {
      field.children = fieldsOf(itemSchema, budget);
    }
  }
  if (union) {
    field.variants = union.schemas.map((branch) => fieldFromSchema(name, branch, required, budget));
    field.variantLabels = union.labels;
  }
  field.value = defaultValue(field, schema);
  if ('default' in schema) field.hasDefault = true;
  return field;
}

function fieldsOf(schema: JsonSchema, budget: Budget): FormField[] {
  const simplified = simplify(schema);
  const properties = isObject(simplified.properties) ? simplified.properties : {};
  const required = Array.isArray(simplified.required) ? simplified.required : [];
  return Object.entries(properties).map(([name, property]) =>
    fieldFromSchema(name, property, required.includes(name), budget),
  );
}

function valueOf(fields: FormField[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field.name, field.value]));
}

/** The form's fields; none when the schema is too large for a form (see `schemaTooLargeNote`). */
export function fieldsFromSchema(schema: JsonSchema | undefined): FormField[] {
  return withinBudget(() => {
    const budget: Budget = { used: 0 };
    const resolved = resolveWithin(schema, budget);
    return resolved ? fieldsOf(resolved, budget) : [];
  }, []);
}

export function initialValue(schema: JsonSchema | undefined): Record<string, unknown> {
  return valueOf(fieldsFromSchema(schema));
}

/**
 * The form's first value for an elicitation: as `initialValue`, but a pick list or an optional checkbox
 * that the schema gives no default starts unset ("—", unchecked and not sent; a required pick list must
 * then be picked). An answer goes to the server as the user's, and the first member or `false` would be
 * one they never gave. (A tool's form follows SPEC part 2: "value is a default for the type".)
 */
export function elicitationInitialValue(schema: JsonSchema | undefined): Record<string, unknown> {
  return unsetPicks(fieldsFromSchema(schema));
}

/**
 * The value of `fields` with each pick list the schema gives no default unset (a required one too: it must
 * be picked), and each optional checkbox without one; inside objects as well.
 */
function unsetPicks(fields: FormField[]): Record<string, unknown> {
  const value = valueOf(fields);
  for (const field of fields) {
    if (field.type === 'object' && field.children) value[field.name] = unsetPicks(field.children);
    else if (field.hasDefault) continue;
    else if (field.type === 'enum' || (field.type === 'boolean' && !field.required))
      value[field.name] = undefined;
  }
  return value;
}

/**
 * The field for one array item, named by its index, or undefined when the item schema is not one an
 * input can edit (no type, a union, a nested array): such items are edited as raw JSON.
 */
export function itemField(items: JsonSchema | undefined, index: number): FormField | undefined {
  if (!items) return undefined;
  return withinBudget(() => {
    const budget: Budget = { used: 0 };
    const schema = simplify(resolveWithin(items, budget) ?? {});
    const type = choicesOf(schema) ? 'enum' : declaredType(schema);
    if (type === undefined || type === 'array' || type === 'null' || unionBranches(schema)) return undefined;
    // Not `required`: whether an item is there at all is up to the array.
    return fieldFromSchema(String(index), schema, false, budget);
  }, undefined);
}

// Unions

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b));
}

/** Whether `value` is of the field's type (an empty number box counts for none). */
export function fitsType(field: FormField, value: unknown): boolean {
  switch (field.type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'enum':
      return (field.enum ?? []).some((option) => sameValue(option, value));
    case 'array':
    case 'multiselect':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    case 'union':
      return variantIndex(field, value) >= 0;
  }
}

/** The index of the first variant of a union field that `value` fits, or -1. */
export function variantIndex(field: FormField, value: unknown): number {
  return (field.variants ?? []).findIndex((variant) => fitsType(variant, value));
}

// What is sent

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
  if (field.type === 'union') {
    const variant = field.variants?.[variantIndex(field, value)];
    return variant ? cleanValue(variant, value) : value;
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

// Dates and times

const pad = (n: number, width = 2): string => String(Math.abs(n)).padStart(width, '0');

/**
 * An RFC 3339 date-time as a `datetime-local` input shows it, in the browser's time zone
 * (`2026-03-01T14:30:00`); '' when the text is not a date-time.
 */
export function toLocalDateTime(value: unknown): string {
  if (typeof value !== 'string' || !RFC3339.test(value)) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/**
 * What a `datetime-local` input holds (`2026-03-01T14:30`, local time) as RFC 3339 with the browser's
 * offset (`2026-03-01T14:30:00+01:00`, or `Z` in UTC); '' for ''.
 */
export function fromLocalDateTime(local: string): string {
  if (!local) return '';
  const date = new Date(local);
  if (Number.isNaN(date.getTime())) return local;
  const offset = -date.getTimezoneOffset();
  const zone =
    offset === 0
      ? 'Z'
      : `${offset > 0 ? '+' : '-'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${zone}`
  );
}

// Checking an answer against its schema

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function formatProblem(format: string | undefined, text: string): string | undefined {
  switch (format) {
    case 'email':
      return EMAIL.test(text) ? undefined : 'Not an e-mail address';
    case 'uri':
      try {
        return /^[a-z][a-z0-9+.-]*:/i.test(text) && new URL(text) ? undefined : 'Not a URI';
      } catch {
        return 'Not a URI';
      }
    case 'date':
      return validDate(text) ? undefined : 'Not a date (YYYY-MM-DD)';
    case 'date-time':
      return RFC3339.test(text) && validDate(text.slice(0, 10))
        ? undefined
        : 'Not a date and time (RFC 3339, e.g. 2026-03-01T14:30:00Z)';
    default:
      return undefined;
  }
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export interface FieldProblem {
  /** Dotted path of the field, as `missingRequired` names it. */
  path: string;
  message: string;
  /** A required field left empty (the form marks those already). */
  missing?: boolean;
  /** Not a problem but a check not made (a pattern not run, and why): shown, but no reason to refuse. */
  unchecked?: true;
}

/**
 * Whether `text` matches a server's `pattern`: true or false, or a note saying why it is not known (yet).
 * The form never runs a server's pattern itself: `^(a|a)*$` on forty `a`s and a `!` takes hours.
 */
export type PatternTester = (pattern: string, text: string) => boolean | string;

const notTested: PatternTester = () => 'pattern not checked';

/** Set for the duration of one `validateValue`. */
let testPattern: PatternTester = notTested;

function problemsOf(field: FormField, value: unknown, path: string): FieldProblem[] {
  const problem = (message: string): FieldProblem[] => [{ path, message }];
  const label = (option: unknown): string => {
    const index = (field.enum ?? []).findIndex((member) => sameValue(member, option));
    return field.enumLabels?.[index] ?? String(option);
  };
  switch (field.type) {
    case 'union': {
      const variant = field.variants?.[variantIndex(field, value)];
      if (!variant) return problem(`Must be of type ${(field.variantLabels ?? []).join(' or ')}`);
      return problemsOf(variant, value, path);
    }
    case 'enum':
      return fitsType(field, value) ? [] : problem('Pick one of the options');
    case 'multiselect': {
      if (!Array.isArray(value)) return problem('Must be a list');
      const strays = value.filter((item) => !(field.enum ?? []).some((option) => sameValue(option, item)));
      if (strays.length) return problem(`Not an option: ${strays.map(String).join(', ')}`);
      if (field.minItems !== undefined && value.length < field.minItems) {
        return problem(`Pick at least ${field.minItems}`);
      }
      if (field.maxItems !== undefined && value.length > field.maxItems) {
        return problem(`Pick at most ${field.maxItems}`);
      }
      return value.length === new Set(value.map(label)).size ? [] : problem('Each option only once');
    }
    case 'string': {
      if (typeof value !== 'string') return problem('Must be text');
      const length = [...value].length;
      if (field.minLength !== undefined && length < field.minLength) {
        return problem(`At least ${plural(field.minLength, 'character')}`);
      }
      if (field.maxLength !== undefined && length > field.maxLength) {
        return problem(`At most ${plural(field.maxLength, 'character')}`);
      }
      if (field.pattern !== undefined) {
        // A server's pattern is never run here, on the page's thread (see shared/time-guard.ts): the
        // caller's tester answers from what a worker found, or says why it cannot yet.
        const verdict = testPattern(field.pattern, value);
        if (verdict === false) return problem(`Must match ${field.pattern}`);
        if (typeof verdict === 'string') return [{ path, message: verdict, unchecked: true }];
      }
      const formatted = formatProblem(field.format, value);
      return formatted ? problem(formatted) : [];
    }
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return problem('Must be a number');
      if (field.type === 'integer' && !Number.isInteger(value)) return problem('Must be a whole number');
      if (field.minimum !== undefined && value < field.minimum)
        return problem(`Must be at least ${field.minimum}`);
      if (field.maximum !== undefined && value > field.maximum)
        return problem(`Must be at most ${field.maximum}`);
      if (field.exclusiveMinimum !== undefined && value <= field.exclusiveMinimum) {
        return problem(`Must be more than ${field.exclusiveMinimum}`);
      }
      if (field.exclusiveMaximum !== undefined && value >= field.exclusiveMaximum) {
        return problem(`Must be less than ${field.exclusiveMaximum}`);
      }
      return [];
    }
    case 'boolean':
      return typeof value === 'boolean' ? [] : problem('Must be true or false');
    case 'null':
      return value === null ? [] : problem('Must be null');
    case 'array': {
      if (!Array.isArray(value)) return problem('Must be a list');
      if (field.minItems !== undefined && value.length < field.minItems) {
        return problem(`At least ${plural(field.minItems, 'item')}`);
      }
      if (field.maxItems !== undefined && value.length > field.maxItems) {
        return problem(`At most ${plural(field.maxItems, 'item')}`);
      }
      return value.flatMap((item, index) => {
        const itemSchema = itemField(field.items, index);
        return itemSchema ? problemsOf(itemSchema, item, `${path}.${index}`) : [];
      });
    }
    case 'object':
      if (!isObject(value)) return problem('Must be an object');
      return field.children ? problemsIn(field.children, value, `${path}.`) : [];
  }
}

function problemsIn(fields: FormField[], object: Record<string, unknown>, prefix: string): FieldProblem[] {
  return fields.flatMap((field) => {
    const path = prefix + field.name;
    const value = object[field.name];
    if (value === undefined || (field.required && value === '')) {
      return field.required ? [{ path, message: 'Required', missing: true }] : [];
    }
    return problemsOf(field, value, path);
  });
}

/**
 * What keeps `value` from matching the schema, checked on what would be sent (`parametersFromValue`):
 * required fields, types, pick lists, formats (email, uri, date, date-time), minimum/maximum,
 * minLength/maxLength, pattern and minItems/maxItems. One problem per field, nested ones by dotted path.
 * Patterns are answered by `tester`; one it cannot answer is an `unchecked` entry with its note.
 */
export function validateValue(
  schema: JsonSchema | undefined,
  value: Record<string, unknown>,
  tester: PatternTester = notTested,
): FieldProblem[] {
  testPattern = tester;
  try {
    return problemsIn(fieldsFromSchema(schema), parametersFromValue(schema, value), '');
  } finally {
    testPattern = notTested;
  }
}

/** What SchemaForm provides to its fields: the problem to show at each dotted path. */
export const FORM_ERRORS: InjectionKey<Ref<Record<string, string>>> = Symbol('form-errors');
