/**
 * Checks a tool result's `structuredContent` against the tool's `outputSchema`, as the MCP client SDK does.
 * Uses @cfworker/json-schema, not ajv: extension pages forbid `eval`, which ajv's compiled validators need.
 */
import { Validator } from '@cfworker/json-schema';
import type { OutputUnit, Schema, SchemaDraft } from '@cfworker/json-schema';
import { PATTERN_BUDGET_MS, patternTimeoutNote, type TimeGuard } from './time-guard.ts';

export interface OutputProblem {
  /** JSON Pointer into `structuredContent` (`/` is its root); empty when the problem is the result itself. */
  path: string;
  message: string;
}

export interface OutputValidation {
  /** False when there was nothing to check: no outputSchema, or an error result without structuredContent. */
  checked: boolean;
  problems: OutputProblem[];
  /**
   * Set when the schema's regular expressions (`pattern`, `patternProperties`) were not run: what was
   * checked is everything else, and this says why the patterns were not (see time-guard.ts).
   */
  patternsNotChecked?: string;
}

export interface ValidationOptions {
  /**
   * Runs the validation within a time budget when the schema has patterns. Without one, patterns are not
   * run at all (`patternsNotChecked` says so): a server's pattern must never run unbounded.
   */
  guard?: TimeGuard;
  budgetMs?: number;
}

/** Said when no guard was given: the caller checks the patterns elsewhere (the panel: in a worker). */
export const PATTERNS_PENDING = 'patterns not checked yet';

/** Keywords whose error only summarises errors found in their subschemas. */
const APPLICATORS = new Set([
  '$ref',
  '$recursiveRef',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'allOf',
  'anyOf',
  'oneOf',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependencies',
]);

/** Applicators whose subschemas apply to one property or item each. */
const MEMBER_APPLICATORS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
]);

export function validateStructuredContent(
  outputSchema: Record<string, unknown> | undefined,
  result: Record<string, unknown>,
  options: ValidationOptions = {},
): OutputValidation {
  if (outputSchema === undefined || !hasPatterns(outputSchema)) return validateNow(outputSchema, result);
  const budgetMs = options.budgetMs ?? PATTERN_BUDGET_MS;
  const guarded = options.guard?.(() => validateNow(outputSchema, result), budgetMs);
  if (guarded) return guarded.value;
  const rest = validateNow(withoutPatterns(outputSchema) as Record<string, unknown>, result);
  return { ...rest, patternsNotChecked: options.guard ? patternTimeoutNote(budgetMs) : PATTERNS_PENDING };
}

/** Keywords whose value maps names to subschemas (not keywords themselves). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose values are data, not schemas. */
const DATA = new Set(['const', 'enum', 'default', 'examples']);

/** Whether a schema anywhere holds a `pattern` or `patternProperties` (iterative: schemas can be deep). */
export function hasPatterns(schema: unknown): boolean {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'pattern' && typeof value === 'string') return true;
        if (key === 'patternProperties' && typeof value === 'object' && value !== null) return true;
        if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
          stack.push(...Object.values(value));
        } else if (!DATA.has(key)) stack.push(value);
      }
    }
  }
  return false;
}

/**
 * The schema without its patterns: `pattern` dropped, and `patternProperties` with the
 * `additionalProperties` and `unevaluatedProperties` beside it (which keys those cover depends on the
 * patterns), so that what remains is checked without running a server's regular expression.
 */
export function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = schema as Record<string, unknown>;
  const dropsMembers = typeof node.patternProperties === 'object' && node.patternProperties !== null;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && typeof value === 'string') continue;
    if (
      dropsMembers &&
      ['patternProperties', 'additionalProperties', 'unevaluatedProperties'].includes(key)
    ) {
      continue;
    }
    if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      copy[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, withoutPatterns(sub)]),
      );
    } else copy[key] = DATA.has(key) ? value : withoutPatterns(value);
  }
  return copy;
}

function validateNow(
  outputSchema: Record<string, unknown> | undefined,
  result: Record<string, unknown>,
): OutputValidation {
  if (outputSchema === undefined) return { checked: false, problems: [] };
  const structured = result.structuredContent;
  if (structured === undefined) {
    // MCP: a tool with an outputSchema must return structuredContent, unless the result is an error.
    if (result.isError === true) return { checked: false, problems: [] };
    return {
      checked: true,
      problems: [{ path: '', message: 'structuredContent is missing but required by the outputSchema.' }],
    };
  }
  let errors: OutputUnit[];
  try {
    const validator = new Validator(outputSchema as Schema, draftOf(outputSchema), false);
    errors = validator.validate(structured).errors;
  } catch (error) {
    // An unresolvable $ref, for example: the schema, not the content, is at fault.
    const reason = error instanceof Error ? error.message : String(error);
    return {
      checked: true,
      problems: [{ path: '', message: `The outputSchema cannot be applied: ${reason}` }],
    };
  }
  return { checked: true, problems: specificProblems(errors, structured) };
}

function draftOf(schema: Record<string, unknown>): SchemaDraft {
  const uri = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (uri.includes('draft-04')) return '4';
  if (uri.includes('draft-06') || uri.includes('draft-07')) return '7';
  if (uri.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/** Drops the summary errors cfworker reports above each real one, and duplicates. */
function specificProblems(errors: OutputUnit[], instance: unknown): OutputProblem[] {
  const problems: OutputProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (isSummary(error, errors)) continue;
    const problem = {
      path: readablePath(error.instanceLocation),
      message: error.keyword === 'false' ? notAllowedMessage(error.instanceLocation, instance) : error.error,
    };
    const key = `${problem.path}\n${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function isSummary(error: OutputUnit, errors: OutputUnit[]): boolean {
  if (!APPLICATORS.has(error.keyword)) return false;
  // A failed `then` or `else` is reported on `if`, its errors under the sibling keyword.
  const scopes =
    error.keyword === 'if'
      ? [error.keywordLocation.replace(/if$/, 'then'), error.keywordLocation.replace(/if$/, 'else')]
      : [error.keywordLocation];
  return errors.some(
    (other) =>
      other !== error &&
      isWithin(other.instanceLocation, error.instanceLocation) &&
      (scopes.some((scope) => isBelow(other.keywordLocation, scope)) || rejectsMember(other, error)),
  );
}

/** cfworker gives a `false` schema's error its instance location as keyword location. */
function rejectsMember(falseError: OutputUnit, summary: OutputUnit): boolean {
  return (
    falseError.keyword === 'false' &&
    MEMBER_APPLICATORS.has(summary.keyword) &&
    falseError.instanceLocation.replace(/\/[^/]*$/, '') === summary.instanceLocation
  );
}

function isWithin(location: string, ancestor: string): boolean {
  return location === ancestor || isBelow(location, ancestor);
}

function isBelow(location: string, ancestor: string): boolean {
  return location.startsWith(`${ancestor}/`);
}

/** `#/items/0/name` → `/items/0/name`, `#` → `/`; cfworker URI-encodes each token, which is undone here. */
function readablePath(instanceLocation: string): string {
  const tokens = pointerTokens(instanceLocation);
  return tokens.length === 0 ? '/' : `/${tokens.join('/')}`;
}

function pointerTokens(instanceLocation: string): string[] {
  const pointer = instanceLocation.replace(/^#/, '');
  return pointer === '' ? [] : pointer.slice(1).split('/').map(decodeToken);
}

function decodeToken(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

/** cfworker's "False boolean schema." names neither the property nor the item it rejects. */
function notAllowedMessage(instanceLocation: string, instance: unknown): string {
  const tokens = pointerTokens(instanceLocation);
  const last = tokens.pop();
  if (last === undefined) return 'No value is allowed here: the schema is false.';
  const name = unescapeToken(last);
  const parent = tokens.reduce<unknown>(
    (value, token) =>
      value !== null && typeof value === 'object'
        ? (value as Record<string, unknown>)[unescapeToken(token)]
        : undefined,
    instance,
  );
  return Array.isArray(parent)
    ? `Item ${name} is not allowed by the schema.`
    : `Property "${name}" is not allowed by the schema.`;
}

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
