import type { JsonObject } from '../../shared/api.ts';
import { exceedsDepth, MAX_BODY_DEPTH } from '../../shared/json-depth.ts';
import { usageError } from './failure.ts';

/**
 * The arguments of a call: `--args '{"json":…}'`, then each `--arg key=value` over it, its value
 * parsed as JSON when it parses (`--arg count=3`, `--arg tags='["a"]'`) and a string otherwise.
 */
export function callArguments(json: string | undefined, pairs: readonly string[]): JsonObject {
  let args: JsonObject = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      throw usageError(
        `--args is not JSON (${(error as Error).message}): give an object, such as '{"message":"hi"}'`,
      );
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw usageError(`--args must be a JSON object, such as '{"message":"hi"}'`);
    }
    args = parsed as JsonObject;
  }
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw usageError(`--arg needs key=value, not "${pair}"`);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // not JSON: the text itself
    }
    args[pair.slice(0, at)] = value;
  }
  // As deep as a daemon takes them in a request (its body holds them one level down), here too: the same
  // arguments go or are refused, whether the call goes through a daemon or not.
  if (exceedsDepth(args, MAX_BODY_DEPTH - 1)) {
    throw usageError(`--args nests objects and arrays more than ${MAX_BODY_DEPTH - 1} levels deep`);
  }
  return args;
}

/** Prompt arguments are strings: each value as text (JSON for what is not a string). */
export function promptArguments(json: string | undefined, pairs: readonly string[]): Record<string, string> {
  const strings: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw usageError(`--arg needs key=value, not "${pair}"`);
    strings[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const fromJson = Object.entries(callArguments(json, []));
  return {
    ...Object.fromEntries(fromJson.map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])),
    ...strings,
  };
}
