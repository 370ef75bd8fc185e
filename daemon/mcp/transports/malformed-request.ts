/**
 * Requests from a server that the SDK cannot take for requests. Its JSONRPCRequestSchema refuses an
 * `elicitation/create` whose `params` is null (or a string, an array, a `_meta` that is no object…), and
 * the SDK then drops the message as of an unknown type without answering it: the server waits for an
 * answer for ever. The daemon answers such a request itself, with an error saying what is wrong. The
 * checks follow that schema, so what they let pass the SDK takes and answers.
 */

/** JSON-RPC's error codes, as numbers: the transports are loaded before the SDK is. */
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

/** The members of a JSON-RPC request; the SDK refuses a request with any other. */
const REQUEST_MEMBERS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

/** The `_meta` key of the task a request belongs to (2025-11-25). */
const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

export interface RequestProblem {
  /** -32600 for the envelope, -32602 for the params. */
  code: number;
  /** What is wrong, as the error's message ends: `its "params" is null, not an object`. */
  problem: string;
}

/** The JSON type of a value, as a problem names it. */
function jsonType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a JSON array' : `a JSON ${typeof value}`;
}

/** A value as a problem shows it: a short primitive as JSON, anything else by its type. */
function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'object' && value !== null) return jsonType(value);
  const json = JSON.stringify(value);
  return json.length <= 40 ? json : `${jsonType(value)} of ${json.length} characters`;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON-RPC id MCP allows: a string or an integer. */
const isRequestId = (value: unknown): boolean => typeof value === 'string' || Number.isSafeInteger(value);

/**
 * The id a request that cannot be served is answered with, or `undefined` when there is none to answer
 * with: a message with a method is a request when it has an id, and the answer must carry that id.
 */
export function answerableId(message: object): string | number | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const { id } = message as { id: unknown };
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** What makes a message with a method and an id no request the SDK serves, or `undefined` when it is one. */
export function malformedRequest(message: object): RequestProblem | undefined {
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  if (jsonrpc !== '2.0') {
    return { code: INVALID_REQUEST, problem: `its "jsonrpc" is ${shown(jsonrpc)}, not "2.0"` };
  }
  if (!isRequestId(id)) {
    return { code: INVALID_REQUEST, problem: `its "id" is ${shown(id)}, not a string or an integer` };
  }
  if (typeof method !== 'string') {
    return { code: INVALID_REQUEST, problem: `its "method" is ${jsonType(method)}, not a string` };
  }
  const extra = Object.keys(message).find((key) => !REQUEST_MEMBERS.has(key));
  if (extra !== undefined) {
    return {
      code: INVALID_REQUEST,
      problem: `it has a member ${JSON.stringify(extra)}, which a request has not`,
    };
  }
  if (params === undefined) return undefined;
  if (!isObject(params))
    return { code: INVALID_PARAMS, problem: `its "params" is ${jsonType(params)}, not an object` };
  const meta = params._meta;
  if (meta === undefined) return undefined;
  if (!isObject(meta)) {
    return { code: INVALID_PARAMS, problem: `its "params._meta" is ${jsonType(meta)}, not an object` };
  }
  if (meta.progressToken !== undefined && !isRequestId(meta.progressToken)) {
    return {
      code: INVALID_PARAMS,
      problem: `its "params._meta.progressToken" is ${shown(meta.progressToken)}, not a string or an integer`,
    };
  }
  const task = meta[RELATED_TASK_META_KEY];
  if (task !== undefined && !(isObject(task) && typeof task.taskId === 'string')) {
    return {
      code: INVALID_PARAMS,
      problem: `its "params._meta" names a related task that is not an object with a string "taskId"`,
    };
  }
  return undefined;
}
