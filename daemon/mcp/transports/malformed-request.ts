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
 * The id a request that cannot be served is answered with, or `undefined` when the message is no
 * request (it has no method, or no id). A request whose id is null, an object, a boolean or an array
 * is answered with id null, as JSON-RPC 2.0 answers an invalid request whose id cannot be told.
 */
export function answerableId(message: object): string | number | null | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const { id } = message as { id: unknown };
  return typeof id === 'string' || typeof id === 'number' ? id : null;
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
  return paramsProblem(method, params);
}

/**
 * What makes a request's params no params the SDK serves (`undefined` when nothing does): not an
 * object, a `_meta` that is no object or names a progress token or a related task wrongly, or (for what
 * is put to the person) a field the SDK's schema needs missing or of the wrong type. Also checks the
 * input requests of a modern task (modern-tasks.ts), which the SDK never sees.
 */
export function paramsProblem(method: string, params: unknown): RequestProblem | undefined {
  if (params !== undefined && !isObject(params))
    return { code: INVALID_PARAMS, problem: `its "params" is ${jsonType(params)}, not an object` };
  const meta = params?._meta;
  if (meta !== undefined && !isObject(meta)) {
    return { code: INVALID_PARAMS, problem: `its "params._meta" is ${jsonType(meta)}, not an object` };
  }
  if (meta?.progressToken !== undefined && !isRequestId(meta.progressToken)) {
    return {
      code: INVALID_PARAMS,
      problem: `its "params._meta.progressToken" is ${shown(meta.progressToken)}, not a string or an integer`,
    };
  }
  const task = meta?.[RELATED_TASK_META_KEY];
  if (task !== undefined && !(isObject(task) && typeof task.taskId === 'string')) {
    return {
      code: INVALID_PARAMS,
      problem: `its "params._meta" names a related task that is not an object with a string "taskId"`,
    };
  }
  const check = INPUT_CHECKS[method];
  const problem = check && check(params);
  return problem === undefined ? undefined : { code: INVALID_PARAMS, problem };
}

/** The JSON types a field of a request may need to be, as a problem names each. */
const KINDS = {
  string: { name: 'a string', is: (value: unknown) => typeof value === 'string' },
  integer: { name: 'an integer', is: (value: unknown) => Number.isSafeInteger(value) },
  object: { name: 'an object', is: isObject },
  array: { name: 'an array', is: Array.isArray },
} as const;

/** What is wrong with the field at `path` (from the request, dotted) if it is not of `kind`. */
function fieldProblem(path: string, value: unknown, kind: keyof typeof KINDS): string | undefined {
  if (KINDS[kind].is(value)) return undefined;
  return value === undefined
    ? `its "${path}" is missing`
    : `its "${path}" is ${shown(value)}, not ${KINDS[kind].name}`;
}

/** What is wrong with a field that must be one of a few strings. */
function choiceProblem(path: string, value: unknown, choices: string[]): string | undefined {
  if (typeof value === 'string' && choices.includes(value)) return undefined;
  const named = choices.map((choice) => JSON.stringify(choice)).join(' or ');
  return value === undefined ? `its "${path}" is missing` : `its "${path}" is ${shown(value)}, not ${named}`;
}

/**
 * The fields of what a server asks the person that the SDK's schemas (2025-11-25) need, checked in
 * their order so the first problem is named: the SDK would refuse the request, with a dump of its
 * schema's complaints for a message.
 */
const INPUT_CHECKS: Record<string, (params: Record<string, unknown> | undefined) => string | undefined> = {
  'elicitation/create': (params) => {
    if (params === undefined) return 'its "params" is missing';
    const { mode, message, requestedSchema: schema, elicitationId, url } = params;
    const modeProblem = mode === undefined ? undefined : choiceProblem('params.mode', mode, ['form', 'url']);
    if (modeProblem) return modeProblem;
    const messageProblem = fieldProblem('params.message', message, 'string');
    if (messageProblem) return messageProblem;
    if (mode === 'url') {
      return (
        fieldProblem('params.elicitationId', elicitationId, 'string') ??
        fieldProblem('params.url', url, 'string')
      );
    }
    if (!isObject(schema)) return fieldProblem('params.requestedSchema', schema, 'object');
    return (
      choiceProblem('params.requestedSchema.type', schema.type, ['object']) ??
      fieldProblem('params.requestedSchema.properties', schema.properties, 'object')
    );
  },
  'sampling/createMessage': (params) => {
    if (params === undefined) return 'its "params" is missing';
    const { messages, maxTokens } = params;
    const problem = fieldProblem('params.messages', messages, 'array');
    if (problem) return problem;
    for (const [index, item] of (messages as unknown[]).entries()) {
      const path = `params.messages.${index}`;
      const itemProblem =
        fieldProblem(path, item, 'object') ??
        choiceProblem(`${path}.role`, (item as Record<string, unknown>).role, ['user', 'assistant']);
      if (itemProblem) return itemProblem;
      const { content } = item as Record<string, unknown>;
      if (!isObject(content) && !Array.isArray(content)) {
        return content === undefined
          ? `its "${path}.content" is missing`
          : `its "${path}.content" is ${shown(content)}, not an object or an array`;
      }
    }
    return fieldProblem('params.maxTokens', maxTokens, 'integer');
  },
};
