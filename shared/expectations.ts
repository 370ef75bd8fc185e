/**
 * Expectations on a saved request: what its tool result must look like for the request to pass. The
 * panel checks them after each run of a saved request, and `inspector-daemon test` checks them for
 * every request of an exported collection. Everything here is pure: no DOM, no Node.
 */
import { exceedsDepth, MAX_MESSAGE_DEPTH } from './json-depth.ts';
import { hasPatterns, PATTERNS_PENDING, validateStructuredContent } from './output-validation.ts';
import { PATTERN_BUDGET_MS, patternTimeoutNote, type TimeGuard } from './time-guard.ts';

/** A JSON path in a small JSONPath subset: `$`, `.name`, `["name"]`, `[0]`, `[*]` and `.*`. */
export type JsonPath = string;

export type Expectation =
  /** The result is not an error (`isError` is not true). */
  | { kind: 'noError' }
  /** The result is an error (`isError: true`): for requests that check a tool refuses bad input. */
  | { kind: 'isError' }
  /** `structuredContent` is valid against the tool's `outputSchema`. */
  | { kind: 'outputSchema' }
  /**
   * A JSON path into the result. `exists`: it matches at least one value. `equals` / `notEquals`: the
   * value equals (does not equal) `value`, key order aside; with a wildcard, the list of matched values
   * is compared. `lt`, `lte`, `gt`, `gte`: every matched value is a number (or every one a string) that
   * compares so with `value`. `matches`: a matched value (a string, or else its JSON) matches the
   * regular expression `pattern` (`/source/flags` or a bare source).
   */
  | { kind: 'jsonPath'; path: JsonPath; op: 'exists' }
  | { kind: 'jsonPath'; path: JsonPath; op: 'equals' | 'notEquals'; value: unknown }
  | { kind: 'jsonPath'; path: JsonPath; op: ComparisonOp; value: number | string }
  | { kind: 'jsonPath'; path: JsonPath; op: 'matches'; pattern: string }
  /** The result's text content contains `text`, or matches it when it is written `/source/flags`. */
  | { kind: 'text'; text: string }
  /** The call took at most `maxMs` milliseconds. */
  | { kind: 'latency'; maxMs: number }
  /** The result equals `value` once the values at the `ignore` paths are left out of both. */
  | { kind: 'snapshot'; value: unknown; ignore: JsonPath[] };

export type ExpectationKind = Expectation['kind'];

/** The ordering comparisons of a JSON path expectation. */
export type ComparisonOp = 'lt' | 'lte' | 'gt' | 'gte';

const COMPARISONS: Record<ComparisonOp, { sign: string; holds: (order: number) => boolean }> = {
  lt: { sign: '<', holds: (order) => order < 0 },
  lte: { sign: '<=', holds: (order) => order <= 0 },
  gt: { sign: '>', holds: (order) => order > 0 },
  gte: { sign: '>=', holds: (order) => order >= 0 },
};

function isComparison(op: unknown): op is ComparisonOp {
  return typeof op === 'string' && Object.hasOwn(COMPARISONS, op);
}

export interface ExpectationContext {
  /** The tool result (`CallToolResult`): `content`, `structuredContent`, `isError`, `_meta`. */
  result: unknown;
  /** How long the call took; a latency expectation fails without it. */
  latencyMs?: number;
  /** The tool's `outputSchema`, for the `outputSchema` expectation. */
  outputSchema?: Record<string, unknown>;
}

export interface ExpectationOutcome {
  expectation: Expectation;
  pass: boolean;
  /** One sentence: what was found, and on failure what was expected instead. */
  message: string;
  /** A regular expression was not run to its end (see time-guard.ts): not passed, and not failed either. */
  notChecked?: true;
}

export interface CheckOptions {
  /**
   * Runs each regular expression (a `matches` or `/text/` pattern, the outputSchema's patterns) within a
   * time budget: on text a server sent, a pattern can backtrack for hours. Without one such expectations
   * are not checked (`needsGuard` tells which; the panel checks them in a worker).
   */
  guard?: TimeGuard;
  budgetMs?: number;
}

/** Said of a regular expression left unrun for want of a guard. */
const NO_GUARD_NOTE = 'pattern not checked here: it needs a time limit';

class NotChecked extends Error {}

/** Whether checking this expectation runs a regular expression on the result. */
export function needsGuard(expectation: Expectation, context: ExpectationContext): boolean {
  if (expectation.kind === 'jsonPath') return expectation.op === 'matches';
  if (expectation.kind === 'text') return /^\/[\s\S]+\/[a-z]*$/.test(expectation.text);
  if (expectation.kind === 'outputSchema') {
    return context.outputSchema !== undefined && hasPatterns(context.outputSchema);
  }
  return false;
}

/** `work` within the guard's budget; throws NotChecked when cut short or when there is no guard. */
function guarded<T>(work: () => T, options: CheckOptions): T {
  if (!options.guard) throw new NotChecked(NO_GUARD_NOTE);
  const budgetMs = options.budgetMs ?? PATTERN_BUDGET_MS;
  const done = options.guard(work, budgetMs);
  if (!done) throw new NotChecked(patternTimeoutNote(budgetMs));
  return done.value;
}

/** Values quoted in messages are cut to this many characters: a result may be megabytes. */
const QUOTE_LIMIT = 120;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks each expectation against one result. Never throws: a broken expectation fails with a reason. */
export function checkExpectations(
  expectations: readonly Expectation[],
  context: ExpectationContext,
  options: CheckOptions = {},
): ExpectationOutcome[] {
  return expectations.map((expectation) => {
    try {
      return { expectation, ...checkOne(expectation, context, options) };
    } catch (error) {
      if (error instanceof NotChecked) {
        return { expectation, pass: false, notChecked: true, message: `Not checked: ${error.message}` };
      }
      const reason = error instanceof Error ? error.message : String(error);
      return { expectation, pass: false, message: `Could not be checked: ${reason}` };
    }
  });
}

function checkOne(
  expectation: Expectation,
  context: ExpectationContext,
  options: CheckOptions,
): { pass: boolean; message: string } {
  const { result } = context;
  const isError = isObject(result) && result.isError === true;
  switch (expectation.kind) {
    case 'noError':
      return isError
        ? { pass: false, message: `Expected no error, but the tool reported one: ${quote(allText(result))}` }
        : { pass: true, message: 'No error' };
    case 'isError':
      return isError
        ? { pass: true, message: 'The tool reported an error, as expected' }
        : { pass: false, message: 'Expected an error (isError: true), but the call succeeded' };
    case 'outputSchema':
      return checkOutputSchema(context, options);
    case 'jsonPath':
      return checkJsonPath(expectation, result, options);
    case 'text':
      return checkText(expectation.text, result, options);
    case 'latency':
      return checkLatency(expectation.maxMs, context.latencyMs);
    case 'snapshot':
      return checkSnapshot(expectation, result);
    default:
      return {
        pass: false,
        message: `Unknown expectation kind ${quote((expectation as { kind?: unknown }).kind)}`,
      };
  }
}

function checkOutputSchema(
  context: ExpectationContext,
  options: CheckOptions,
): { pass: boolean; message: string } {
  if (context.outputSchema === undefined) {
    return { pass: false, message: 'The tool declares no outputSchema to validate against' };
  }
  if (!isObject(context.result)) return { pass: false, message: 'The result is not an object' };
  const validation = validateStructuredContent(context.outputSchema, context.result, {
    guard: options.guard,
    budgetMs: options.budgetMs,
  });
  if (!validation.checked) {
    return { pass: false, message: 'The result is an error without structuredContent; nothing to validate' };
  }
  const unchecked = validation.patternsNotChecked;
  if (validation.problems.length === 0) {
    if (unchecked !== undefined) {
      throw new NotChecked(
        `${unchecked === PATTERNS_PENDING ? NO_GUARD_NOTE : unchecked}; the rest of the outputSchema holds`,
      );
    }
    return { pass: true, message: 'Valid against outputSchema' };
  }
  const first = validation.problems.slice(0, 3).map((p) => `${p.path || '(result)'} ${p.message}`);
  const more = validation.problems.length > 3 ? ` (and ${validation.problems.length - 3} more)` : '';
  return { pass: false, message: `Does not match outputSchema: ${first.join('; ')}${more}` };
}

function checkJsonPath(
  expectation: Extract<Expectation, { kind: 'jsonPath' }>,
  result: unknown,
  options: CheckOptions,
): { pass: boolean; message: string } {
  const parsed = parseJsonPath(expectation.path);
  if (typeof parsed === 'string') return { pass: false, message: parsed };
  const found = evaluateJsonPath(parsed, result);
  const path = expectation.path;
  switch (expectation.op) {
    case 'exists':
      return found.length > 0
        ? { pass: true, message: `${path} exists` }
        : { pass: false, message: `${path} matches nothing in the result` };
    case 'equals':
    case 'notEquals': {
      const compared = comparedValue(parsed, found);
      if (!compared) return { pass: false, message: `${path} matches nothing in the result` };
      const actual = compared.value;
      const difference = firstDifference(expectation.value, actual, path);
      if (expectation.op === 'notEquals') {
        return difference === null
          ? { pass: false, message: `${path}: expected anything but ${quote(expectation.value)}, got it` }
          : { pass: true, message: `${path} is not ${quote(expectation.value)}` };
      }
      return difference === null
        ? { pass: true, message: `${path} equals ${quote(expectation.value)}` }
        : { pass: false, message: difference };
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return checkComparison(path, expectation.op, expectation.value, found);
    case 'matches': {
      const regex = toRegExp(expectation.pattern, true);
      if (typeof regex === 'string') return { pass: false, message: regex };
      if (found.length === 0) return { pass: false, message: `${path} matches nothing in the result` };
      const hit = guarded(
        () => found.find((value) => regex.test(typeof value === 'string' ? value : safeJson(value))),
        options,
      );
      return hit !== undefined
        ? { pass: true, message: `${path} matches ${regex}` }
        : {
            pass: false,
            message: `${path} does not match ${regex}: ${found.length === 1 ? 'got' : `none of ${found.length} values, first`} ${quote(found[0])}`,
          };
    }
    default:
      return {
        pass: false,
        message: `Unknown JSON path operation ${quote((expectation as { op?: unknown }).op)}`,
      };
  }
}

function checkComparison(
  path: string,
  op: ComparisonOp,
  bound: number | string,
  found: unknown[],
): { pass: boolean; message: string } {
  const { sign, holds } = COMPARISONS[op];
  if (typeof bound !== 'number' && typeof bound !== 'string') {
    return { pass: false, message: `The bound ${quote(bound)} of ${sign} is neither a number nor a string` };
  }
  if (found.length === 0) return { pass: false, message: `${path} matches nothing in the result` };
  const several = found.length > 1;
  for (const [index, value] of found.entries()) {
    const where = several ? `${path} (value ${index + 1} of ${found.length})` : path;
    if (typeof value !== typeof bound) {
      return {
        pass: false,
        message: `${where}: expected a ${typeof bound} ${sign} ${quote(bound)}, got ${quote(value)}`,
      };
    }
    const order =
      typeof bound === 'number' ? (value as number) - bound : (value as string).localeCompare(bound);
    if (!holds(order))
      return { pass: false, message: `${where}: expected ${sign} ${quote(bound)}, got ${quote(value)}` };
  }
  return {
    pass: true,
    message: several
      ? `All ${found.length} values of ${path} are ${sign} ${quote(bound)}`
      : `${path} ${sign} ${quote(bound)}`,
  };
}

function checkText(text: string, result: unknown, options: CheckOptions): { pass: boolean; message: string } {
  const all = allText(result);
  const regex = toRegExp(text, false);
  if (typeof regex === 'string') return { pass: false, message: regex };
  if (regex === null) {
    return all.includes(text)
      ? { pass: true, message: `The text contains ${quote(text)}` }
      : { pass: false, message: `Expected the text to contain ${quote(text)}, got ${quote(all)}` };
  }
  return guarded(() => regex.test(all), options)
    ? { pass: true, message: `The text matches ${regex}` }
    : { pass: false, message: `Expected the text to match ${regex}, got ${quote(all)}` };
}

function checkLatency(maxMs: number, latencyMs: number | undefined): { pass: boolean; message: string } {
  if (typeof maxMs !== 'number' || !Number.isFinite(maxMs) || maxMs < 0) {
    return { pass: false, message: `The latency budget ${quote(maxMs)} is not a number of milliseconds` };
  }
  if (latencyMs === undefined || !Number.isFinite(latencyMs)) {
    return { pass: false, message: 'The call has no measured latency' };
  }
  const took = Math.round(latencyMs);
  return latencyMs <= maxMs
    ? { pass: true, message: `Took ${took} ms (budget ${maxMs} ms)` }
    : { pass: false, message: `Took ${took} ms, over the budget of ${maxMs} ms` };
}

function checkSnapshot(
  expectation: Extract<Expectation, { kind: 'snapshot' }>,
  result: unknown,
): { pass: boolean; message: string } {
  const ignore: Segment[][] = [];
  for (const path of expectation.ignore ?? []) {
    const parsed = parseJsonPath(path);
    if (typeof parsed === 'string') return { pass: false, message: `Ignored path: ${parsed}` };
    ignore.push(parsed);
  }
  if (exceedsDepth(result, MAX_MESSAGE_DEPTH)) {
    return { pass: false, message: `The result nests deeper than ${MAX_MESSAGE_DEPTH} levels` };
  }
  const actual = withoutPaths(result, ignore);
  const expected = withoutPaths(expectation.value, ignore);
  const difference = firstDifference(expected, actual, '$');
  return difference === null
    ? {
        pass: true,
        message:
          ignore.length > 0
            ? `Matches the snapshot (ignoring ${expectation.ignore.join(', ')})`
            : 'Matches the snapshot',
      }
    : { pass: false, message: `Differs from the snapshot: ${difference}` };
}

/** A snapshot of a result to store in an expectation: a copy without the values at the ignored paths. */
export function snapshotOf(result: unknown, ignore: readonly JsonPath[] = []): unknown {
  const parsed = ignore.map(parseJsonPath).filter((p): p is Segment[] => typeof p !== 'string');
  return withoutPaths(result, parsed);
}

// ——— Text ———

/**
 * All the text of a result: its text content items and the text of embedded resources, one per line
 * (empty when it has none). A value that is not a result object is its own text: a string as it is,
 * anything else as JSON.
 */
export function allText(result: unknown): string {
  if (!isObject(result)) return typeof result === 'string' ? result : safeJson(result);
  const content = Array.isArray(result.content) ? result.content : [];
  const texts: string[] = [];
  for (const item of content) {
    if (!isObject(item)) continue;
    if (item.type === 'text' && typeof item.text === 'string') texts.push(item.text);
    else if (item.type === 'resource' && isObject(item.resource) && typeof item.resource.text === 'string') {
      texts.push(item.resource.text);
    }
  }
  return texts.join('\n');
}

/**
 * `/source/flags` as a regular expression; anything else is `null` when `bare` is false (a plain
 * substring) or a source without flags when it is true. An invalid expression gives a sentence saying so.
 */
function toRegExp(text: string, bare: true): RegExp | string;
function toRegExp(text: string, bare: false): RegExp | null | string;
function toRegExp(text: string, bare: boolean): RegExp | null | string {
  if (typeof text !== 'string') return `The pattern ${quote(text)} is not a string`;
  const literal = /^\/([\s\S]+)\/([a-z]*)$/.exec(text);
  if (!literal && !bare) return null;
  const source = literal ? literal[1]! : text;
  const flags = literal ? literal[2]! : '';
  try {
    // `g` and `y` would make `test` depend on where the previous match ended.
    return new RegExp(source, flags.replace(/[gy]/g, ''));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `The regular expression ${quote(text)} is invalid: ${reason}`;
  }
}

// ——— JSON paths ———

type Segment = { key: string } | { index: number } | { wildcard: true };

/** Parses a JSON path of the supported subset, or says what is wrong with it. */
export function parseJsonPath(path: string): Segment[] | string {
  if (typeof path !== 'string') return `The JSON path ${quote(path)} is not a string`;
  if (!path.startsWith('$')) return `The JSON path ${quote(path)} must start with $`;
  const segments: Segment[] = [];
  let at = 1;
  while (at < path.length) {
    const rest = path.slice(at);
    const dotted = /^\.([A-Za-z_$][\w$-]*|\*)/.exec(rest);
    const indexed = /^\[(\d+|\*)\]/.exec(rest);
    const quoted = /^\[(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\]/.exec(rest);
    if (dotted) {
      segments.push(dotted[1] === '*' ? { wildcard: true } : { key: dotted[1]! });
      at += dotted[0].length;
    } else if (indexed) {
      segments.push(indexed[1] === '*' ? { wildcard: true } : { index: Number(indexed[1]) });
      at += indexed[0].length;
    } else if (quoted) {
      const raw = quoted[1] ?? quoted[2] ?? '';
      segments.push({ key: raw.replace(/\\(.)/g, '$1') });
      at += quoted[0].length;
    } else {
      return `The JSON path ${quote(path)} is not understood at ${quote(rest)} (supported: $.a.b, $["a"], $.a[0], $.a[*], $.*)`;
    }
  }
  return segments;
}

function hasWildcard(segments: readonly Segment[]): boolean {
  return segments.some((s) => 'wildcard' in s);
}

/** The values `path` matches in `value`, in document order, or what is wrong with the path. */
export function queryJsonPath(path: JsonPath, value: unknown): unknown[] | string {
  const parsed = parseJsonPath(path);
  return typeof parsed === 'string' ? parsed : evaluateJsonPath(parsed, value);
}

/**
 * What `equals` compares at a path: the value it matches, or with a wildcard the list of every value
 * it matches; none when a path without a wildcard matches nothing.
 */
function comparedValue(segments: readonly Segment[], found: unknown[]): { value: unknown } | null {
  if (hasWildcard(segments)) return { value: found };
  return found.length > 0 ? { value: found[0] } : null;
}

/**
 * The value an `equals` expectation at `path` would need to pass on `result` (the panel's "Expect
 * this value"): none when the path matches nothing; a sentence when the path is not understood.
 */
export function valueForEquals(path: JsonPath, result: unknown): { value: unknown } | null | string {
  const parsed = parseJsonPath(path);
  if (typeof parsed === 'string') return parsed;
  const found = evaluateJsonPath(parsed, result);
  return found.length === 0 ? null : comparedValue(parsed, found);
}

/**
 * The paths of a value's leaves (strings, numbers, booleans, null, empty objects and arrays), in
 * document order, at most `limit` of them: what the panel offers to pick an "Expect this value" from.
 */
export function leafPaths(value: unknown, limit: number): JsonPath[] {
  const paths: JsonPath[] = [];
  // One frame a container being walked, its children taken one at a time: a list of 200,000 items costs
  // no more than the leaves it gives before the limit.
  // An array's frame has no keys: its children are taken by index.
  const frames: Array<{
    path: string;
    value: unknown[] | Record<string, unknown>;
    keys?: string[];
    next: number;
  }> = [];
  const visit = (current: unknown, path: string): void => {
    const keys = isObject(current) ? Object.keys(current) : undefined;
    const size = Array.isArray(current) ? current.length : (keys?.length ?? 0);
    if (size === 0) paths.push(path);
    else frames.push({ path, value: current as unknown[] | Record<string, unknown>, keys, next: 0 });
  };
  visit(value, '$');
  while (frames.length > 0 && paths.length < limit) {
    const { path, value: container, keys, next } = frames[frames.length - 1]!;
    if (next >= (keys ?? (container as unknown[])).length) {
      frames.pop();
      continue;
    }
    frames[frames.length - 1]!.next++;
    if (keys) visit((container as Record<string, unknown>)[keys[next]!], childPath(path, keys[next]!));
    else visit((container as unknown[])[next], `${path}[${next}]`);
  }
  return paths;
}

/** The values a parsed path matches, in document order. */
function evaluateJsonPath(segments: readonly Segment[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const value of current) {
      if ('wildcard' in segment) {
        if (Array.isArray(value)) next.push(...value);
        else if (isObject(value)) next.push(...Object.values(value));
      } else if ('index' in segment) {
        if (Array.isArray(value) && segment.index < value.length) next.push(value[segment.index]);
      } else if (isObject(value) && Object.hasOwn(value, segment.key)) {
        next.push(value[segment.key]);
      }
    }
    current = next;
  }
  return current;
}

/** A copy of `value` without what the paths match (a matched array item is removed, not nulled). */
function withoutPaths(value: unknown, paths: readonly Segment[][]): unknown {
  if (value === undefined) return undefined;
  let copy: unknown = JSON.parse(safeJson(value));
  for (const path of paths) {
    if (path.length === 0) return undefined;
    copy = removeAt(copy, path);
  }
  return copy;
}

function removeAt(value: unknown, path: readonly Segment[]): unknown {
  const [segment, ...rest] = path;
  if (!segment) return value;
  if (Array.isArray(value)) {
    if ('key' in segment) return value;
    const hit = (i: number): boolean => 'wildcard' in segment || i === segment.index;
    if (rest.length === 0) return value.filter((_, i) => !hit(i));
    return value.map((item, i) => (hit(i) ? removeAt(item, rest) : item));
  }
  if (isObject(value)) {
    if ('index' in segment) return value;
    const keys = 'wildcard' in segment ? Object.keys(value) : [segment.key];
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (!keys.includes(key)) out[key] = item;
      else if (rest.length > 0) out[key] = removeAt(item, rest);
    }
    return out;
  }
  return value;
}

// ——— Comparison ———

/**
 * Where `actual` first differs from `expected` (a sentence naming the JSON path), or null when they are
 * equal. Object key order does not matter. Iterative, so deep values cannot overflow the stack.
 */
function firstDifference(expected: unknown, actual: unknown, root: string): string | null {
  const stack: Array<[unknown, unknown, string]> = [[expected, actual, root]];
  while (stack.length > 0) {
    const [want, got, path] = stack.pop()!;
    if (Object.is(want, got) || (want === 0 && got === 0)) continue;
    if (Array.isArray(want) || Array.isArray(got)) {
      if (!Array.isArray(want) || !Array.isArray(got)) return mismatch(path, want, got);
      if (want.length !== got.length) {
        return `${path}: expected ${want.length} item${want.length === 1 ? '' : 's'}, got ${got.length}`;
      }
      for (let i = want.length - 1; i >= 0; i--) stack.push([want[i], got[i], `${path}[${i}]`]);
      continue;
    }
    if (isObject(want) && isObject(got)) {
      const missing = Object.keys(want).find((key) => !Object.hasOwn(got, key));
      if (missing !== undefined)
        return `${childPath(path, missing)}: expected ${quote(want[missing])}, missing`;
      const extra = Object.keys(got).find((key) => !Object.hasOwn(want, key));
      if (extra !== undefined) return `${childPath(path, extra)}: not expected, got ${quote(got[extra])}`;
      const keys = Object.keys(want);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push([want[key], got[key], childPath(path, key)]);
      }
      continue;
    }
    return mismatch(path, want, got);
  }
  return null;
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function mismatch(path: string, want: unknown, got: unknown): string {
  return `${path}: expected ${quote(want)}, got ${quote(got)}`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/** A value as JSON for a message, cut short when long. */
function quote(value: unknown): string {
  const json = value === undefined ? 'undefined' : safeJson(value);
  return json.length > QUOTE_LIMIT ? `${json.slice(0, QUOTE_LIMIT)}… (${json.length} characters)` : json;
}

// ——— Labels and parsing ———

/** A short label for an expectation, as the panel lists it and the command line prints it. */
export function describeExpectation(expectation: Expectation): string {
  switch (expectation.kind) {
    case 'noError':
      return 'No error';
    case 'isError':
      return 'Is an error';
    case 'outputSchema':
      return 'structuredContent valid against outputSchema';
    case 'jsonPath':
      if (expectation.op === 'exists') return `${expectation.path} exists`;
      if (expectation.op === 'equals') return `${expectation.path} equals ${quote(expectation.value)}`;
      if (expectation.op === 'notEquals') return `${expectation.path} is not ${quote(expectation.value)}`;
      if (expectation.op === 'matches') return `${expectation.path} matches ${expectation.pattern}`;
      return `${expectation.path} ${COMPARISONS[expectation.op]?.sign ?? expectation.op} ${quote(expectation.value)}`;
    case 'text':
      return /^\/[\s\S]+\/[a-z]*$/.test(expectation.text)
        ? `Text matches ${expectation.text}`
        : `Text contains ${quote(expectation.text)}`;
    case 'latency':
      return `Takes at most ${expectation.maxMs} ms`;
    case 'snapshot':
      return expectation.ignore.length > 0
        ? `Matches snapshot (ignoring ${expectation.ignore.join(', ')})`
        : 'Matches snapshot';
    default:
      return `Unknown expectation ${quote((expectation as { kind?: unknown }).kind)}`;
  }
}

/**
 * Whether two expectations hold the same place on a request, so that adding one replaces the other:
 * no error and is an error contradict each other; there is one outputSchema check, one latency budget
 * and one snapshot; a JSON path has one expectation per operation; a text one per text.
 */
export function sameExpectationSlot(a: Expectation, b: Expectation): boolean {
  const errorKinds: ExpectationKind[] = ['noError', 'isError'];
  if (errorKinds.includes(a.kind) && errorKinds.includes(b.kind)) return true;
  if (a.kind !== b.kind) return false;
  if (a.kind === 'jsonPath' && b.kind === 'jsonPath') return a.path === b.path && a.op === b.op;
  if (a.kind === 'text' && b.kind === 'text') return a.text === b.text;
  return true;
}

/**
 * Reads the `expectations` of a saved request from a file: a list of expectations, each checked for
 * its shape (not its regular expressions or paths, which fail when checked, with a reason). `path`
 * names the list in problems.
 */
export function parseExpectations(
  value: unknown,
  path: string,
): { expectations: Expectation[]; problems: string[] } {
  if (!Array.isArray(value)) return { expectations: [], problems: [`${path}: must be an array`] };
  const expectations: Expectation[] = [];
  const problems: string[] = [];
  value.forEach((entry, index) => {
    const parsed = parseExpectation(entry);
    if (typeof parsed === 'string') problems.push(`${path}[${index}]: ${parsed}`);
    else expectations.push(parsed);
  });
  return { expectations, problems };
}

const JSON_PATH_OPS = ['exists', 'equals', 'notEquals', 'lt', 'lte', 'gt', 'gte', 'matches'];

const KINDS = ['noError', 'isError', 'outputSchema', 'jsonPath', 'text', 'latency', 'snapshot'];

function parseExpectation(entry: unknown): Expectation | string {
  if (!isObject(entry)) return 'must be an object';
  switch (entry.kind) {
    case 'noError':
    case 'isError':
    case 'outputSchema':
      return { kind: entry.kind };
    case 'jsonPath': {
      if (typeof entry.path !== 'string') return 'path must be a string';
      if (entry.op === 'exists') return { kind: 'jsonPath', path: entry.path, op: 'exists' };
      if (entry.op === 'equals' || entry.op === 'notEquals') {
        if (!Object.hasOwn(entry, 'value')) return `value is required with op "${entry.op}"`;
        return { kind: 'jsonPath', path: entry.path, op: entry.op, value: entry.value };
      }
      if (isComparison(entry.op)) {
        if (typeof entry.value !== 'number' && typeof entry.value !== 'string') {
          return `value must be a number or a string with op "${entry.op}"`;
        }
        return { kind: 'jsonPath', path: entry.path, op: entry.op, value: entry.value };
      }
      if (entry.op === 'matches') {
        if (typeof entry.pattern !== 'string') return 'pattern must be a string with op "matches"';
        return { kind: 'jsonPath', path: entry.path, op: 'matches', pattern: entry.pattern };
      }
      return `op must be one of ${JSON_PATH_OPS.join(', ')}`;
    }
    case 'text':
      if (typeof entry.text !== 'string' || entry.text === '') return 'text must be a non-empty string';
      return { kind: 'text', text: entry.text };
    case 'latency':
      if (typeof entry.maxMs !== 'number' || !Number.isFinite(entry.maxMs) || entry.maxMs < 0) {
        return 'maxMs must be a number of milliseconds';
      }
      return { kind: 'latency', maxMs: entry.maxMs };
    case 'snapshot': {
      if (!Object.hasOwn(entry, 'value')) return 'value is required';
      const ignore = entry.ignore ?? [];
      if (!Array.isArray(ignore) || !ignore.every((p) => typeof p === 'string')) {
        return 'ignore must be an array of JSON paths';
      }
      return { kind: 'snapshot', value: entry.value, ignore: ignore as string[] };
    }
    default:
      return `kind must be one of ${KINDS.join(', ')}`;
  }
}
