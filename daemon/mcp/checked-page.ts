import type { JsonObject } from '../../shared/api.ts';
import { resultProblemOf } from './result-problem.ts';

/**
 * One page of a list (`tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`) as far
 * as it can be shown. What the server got wrong in it is said (`problem`, for the answer's
 * `resultProblem`) rather than hidden: a list that is no array, items that are no objects or lack the
 * name they are called by, a `nextCursor` that is no string. At 2025-11-25 nobody else checks a list
 * result; at 2026-07-28 the SDK's complaint (result-problem.ts) comes first.
 */
export interface CheckedPage {
  /** The items that can be shown: objects with the string that names them. */
  items: JsonObject[];
  /** The cursor of the next page, when the server gave one that is a string. */
  nextCursor?: string;
  /** The rest of the result, without the items and `nextCursor`. */
  rest: JsonObject;
  problem?: string;
}

/** The member each kind of item is called by: a tool or prompt by its name, a resource by its URI. */
const NAMED_BY: Record<string, string> = {
  tools: 'name',
  prompts: 'name',
  resources: 'uri',
  resourceTemplates: 'uriTemplate',
};

/** How many positions of left-out items a problem names before it says how many more there are. */
const MAX_NAMED = 5;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON type of a value, as a problem names it. */
function jsonType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a JSON array' : `a JSON ${typeof value}`;
}

/** `tools.1, tools.4 and 3 more`: the positions of the items left out for one reason. */
function positions(key: string, indexes: number[]): string {
  const named = indexes.slice(0, MAX_NAMED).map((index) => `${key}.${index}`);
  const more = indexes.length - named.length;
  return more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
}

export function checkedPage(page: JsonObject, key: string): CheckedPage {
  const { [key]: listed, nextCursor, ...rest } = page;
  const problems: string[] = [];
  const sdkProblem = resultProblemOf(page)?.resultProblem;
  if (sdkProblem) problems.push(sdkProblem);
  const items: JsonObject[] = [];
  if (listed === undefined) {
    problems.push(`the result has no "${key}" array: no ${key} shown`);
  } else if (!Array.isArray(listed)) {
    problems.push(`"${key}" is ${jsonType(listed)}, not an array: no ${key} shown`);
  } else {
    const nameKey = NAMED_BY[key] ?? 'name';
    const notObjects: number[] = [];
    const unnamed: number[] = [];
    listed.forEach((item: unknown, index) => {
      if (!isObject(item)) notObjects.push(index);
      else if (typeof item[nameKey] !== 'string') unnamed.push(index);
      else items.push(item);
    });
    if (notObjects.length) {
      problems.push(
        `${positions(key, notObjects)} ${notObjects.length > 1 ? 'are not objects' : 'is not an object'}: left out`,
      );
    }
    if (unnamed.length) {
      problems.push(
        `${positions(key, unnamed)} ${unnamed.length > 1 ? 'have' : 'has'} no string "${nameKey}": left out`,
      );
    }
  }
  const cursor = typeof nextCursor === 'string' ? nextCursor : undefined;
  if (nextCursor !== undefined && cursor === undefined) {
    problems.push(`"nextCursor" is ${jsonType(nextCursor)}, not a string: taken for the last page`);
  }
  return {
    items,
    ...(cursor !== undefined && { nextCursor: cursor }),
    rest,
    ...(problems.length && { problem: problems.join('; ') }),
  };
}
