import type { JSONRPCMessage, RequestOptions } from '@modelcontextprotocol/client';
import type { JsonObject, McpTask } from '../../shared/api.ts';
import { TASKS_EXTENSION_ID } from '../../shared/tasks.ts';
import { McpError, UpstreamError } from '../errors.ts';
import { paramsProblem } from './transports/malformed-request.ts';

export { TASKS_EXTENSION_ID };

/**
 * MCP tasks at the modern era (2026-07-28): the `io.modelcontextprotocol/tasks` extension (SEP-2663).
 * SDK v2 has no runtime for it, so this is the daemon's own.
 *
 * How it differs from the 2025-11-25 form: the server advertises the extension under
 * `capabilities.extensions`; the client declares it per request in `_meta` (its client capabilities),
 * and the server alone decides whether a `tools/call` becomes a task, answering a flat CreateTaskResult
 * (`resultType: "task"`). `tasks/get` inlines the result, the error or the input requests, which the
 * client answers with `tasks/update`; `tasks/cancel` answers an empty ack; there is no `tasks/result`
 * nor `tasks/list`, and `ttlMs`/`pollIntervalMs` replace `ttl`/`pollInterval`.
 *
 * The daemon declares the extension only on the requests that need it (a call run as a task, a tool
 * the server says must be one, and the tasks methods): declared on every request, it would make the
 * server turn any call of a task-supporting tool into a task the user did not ask for.
 */
/** The reserved `_meta` key of a modern request's client capabilities. */
const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

/**
 * Where the transport puts a CreateTaskResult for the SDK to pass on: the SDK knows only `complete` and
 * `input_required` results and would drop the task. The log keeps the message as the server sent it.
 */
const CREATED_TASK_KEY = 'io.github.inspector/createdTask';

/** The error a modern server answers a request that needs a client capability it did not declare. */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/** The longest task id the daemon accepts from a server. */
const MAX_TASK_ID_LENGTH = 512;

/** The most input requests one `tasks/get` may carry. */
const MAX_INPUT_REQUESTS = 32;

/** The wait between two `tasks/get` of a running task: the server's pollIntervalMs, within these. */
export const POLL_INTERVAL_MS = { min: 50, max: 5_000, default: 1_000 } as const;

const STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);
const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** What a task may ask the person (the input requests of SEP-2322). */
const INPUT_METHODS: ReadonlySet<string> = new Set([
  'elicitation/create',
  'sampling/createMessage',
  'roots/list',
]);

type Raw = JsonObject;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A received CreateTaskResult, as the SDK will pass it: a complete result holding the task. Any other
 * message is left as it is. Loaded before the SDK is (LoggingTransport), so it imports nothing at run time.
 */
export function passCreatedTask(message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message) || 'method' in message) return message;
  const result = message.result as unknown;
  if (!isObject(result) || result.resultType !== 'task') return message;
  return { ...message, result: { resultType: 'complete', content: [], [CREATED_TASK_KEY]: result } };
}

/** The CreateTaskResult a `tools/call` answered, if it answered one (see passCreatedTask). */
export function createdTaskOf(result: Raw): Raw | undefined {
  const created = result[CREATED_TASK_KEY];
  return isObject(created) ? created : undefined;
}

/** A request's `_meta` declaring the tasks extension besides what the client always declares. */
export function tasksExtensionMeta(capabilities: JsonObject): JsonObject {
  const extensions = isObject(capabilities.extensions) ? capabilities.extensions : {};
  return {
    [CLIENT_CAPABILITIES_META_KEY]: {
      ...capabilities,
      extensions: { ...extensions, [TASKS_EXTENSION_ID]: {} },
    },
  };
}

/** Whether a server refused a request for want of the tasks extension (-32021 naming it). */
export function needsTasksExtension(error: unknown): boolean {
  if (!(error instanceof McpError) || error.code !== MISSING_REQUIRED_CLIENT_CAPABILITY) return false;
  const required = isObject(error.data) ? error.data.requiredCapabilities : undefined;
  const extensions = isObject(required) ? required.extensions : undefined;
  return isObject(extensions) && TASKS_EXTENSION_ID in extensions;
}

/**
 * SDK v2 refuses to send `tasks/get` and `tasks/cancel` at the modern era, where the core protocol
 * deleted them; the tasks extension defines them again. The SDK's era gate lets extension methods
 * through, and these are extension methods there.
 */
export function allowTaskMethods(client: object): void {
  const gated = client as { _assertOutboundRequestInEra?: (codec: unknown, method: string) => void };
  const assert = gated._assertOutboundRequestInEra;
  if (typeof assert !== 'function') return;
  gated._assertOutboundRequestInEra = function (codec, method) {
    if (method === 'tasks/get' || method === 'tasks/cancel') return;
    assert.call(this, codec, method);
  };
}

function invalidTask(message: string, data?: unknown): UpstreamError {
  return new UpstreamError(`The server sent an invalid task: ${message}`, 'INVALID_TASK', data);
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * A modern task (CreateTaskResult or DetailedTask) checked and put in the API's task shape: `ttlMs` as
 * `ttl` and `pollIntervalMs` as `pollInterval`, so the tasks routes answer alike at both eras. The
 * inlined `result`, `error` or `inputRequests` of a DetailedTask stay as they came.
 */
export function modernTask(raw: Raw): McpTask {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = raw;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH) {
    throw invalidTask(`taskId must be a string of 1 to ${MAX_TASK_ID_LENGTH} characters`, { taskId });
  }
  if ([...taskId].some((char) => char < ' ' || char === '\u007f')) {
    throw invalidTask('taskId holds control characters');
  }
  if (typeof status !== 'string' || !STATUSES.has(status)) {
    throw invalidTask(`status must be one of ${[...STATUSES].join(', ')}`, { taskId, status });
  }
  if (ttlMs !== undefined && ttlMs !== null && !isCount(ttlMs)) {
    throw invalidTask('ttlMs must be null or a whole number of milliseconds', { taskId, ttlMs });
  }
  if (pollIntervalMs !== undefined && !(isCount(pollIntervalMs) && pollIntervalMs > 0)) {
    throw invalidTask('pollIntervalMs must be a positive whole number of milliseconds', {
      taskId,
      pollIntervalMs,
    });
  }
  const task: McpTask = {
    taskId,
    status: status as McpTask['status'],
    ttl: (ttlMs as number | null | undefined) ?? null,
    createdAt: typeof createdAt === 'string' ? createdAt : '',
    lastUpdatedAt: typeof lastUpdatedAt === 'string' ? lastUpdatedAt : '',
  };
  if (pollIntervalMs !== undefined) task.pollInterval = pollIntervalMs as number;
  if (typeof statusMessage === 'string') task.statusMessage = statusMessage;
  for (const key of ['result', 'error', 'inputRequests'] as const) {
    if (isObject(raw[key])) task[key] = raw[key];
  }
  return task;
}

/** How long to wait before asking after the task again. */
export function pollDelay(task: McpTask): number {
  const { min, max } = POLL_INTERVAL_MS;
  return Math.min(max, Math.max(min, task.pollInterval ?? POLL_INTERVAL_MS.default));
}

/** What an ended task answers: its result, or the error it failed with, or that it was cancelled. */
export function endOf(task: McpTask): Raw {
  if (task.status === 'completed') {
    if (!isObject(task.result))
      throw invalidTask('a completed task must inline its result', { taskId: task.taskId });
    return task.result;
  }
  if (task.status === 'failed') {
    const error = task.error;
    if (isObject(error) && Number.isSafeInteger(error.code) && typeof error.message === 'string') {
      throw new McpError(error.code as number, error.message, error.data);
    }
    throw new UpstreamError(`Task "${task.taskId}" failed without saying why`, 'TASK_FAILED', {
      taskId: task.taskId,
    });
  }
  throw new UpstreamError(`Task "${task.taskId}" was cancelled, so it has no result`, 'TASK_CANCELLED', {
    taskId: task.taskId,
    ...(task.statusMessage && { statusMessage: task.statusMessage }),
  });
}

export const isTerminal = (task: McpTask): boolean => TERMINAL.has(task.status);

/** One request a task waits on, checked: `elicitation/create`, `sampling/createMessage` or `roots/list`. */
export interface InputRequest {
  key: string;
  method: string;
  params: JsonObject;
}

/** The input requests of an `input_required` task, each checked. */
export function inputRequestsOf(task: McpTask): InputRequest[] {
  const entries = Object.entries(isObject(task.inputRequests) ? task.inputRequests : {});
  if (entries.length > MAX_INPUT_REQUESTS) {
    throw invalidTask(`a task may ask at most ${MAX_INPUT_REQUESTS} things at once`, { taskId: task.taskId });
  }
  return entries.map(([key, entry]) => {
    if (!isObject(entry) || typeof entry.method !== 'string' || !INPUT_METHODS.has(entry.method)) {
      throw invalidTask(`input request "${key}" must be ${[...INPUT_METHODS].join(', ')}`, {
        taskId: task.taskId,
        key,
      });
    }
    // Checked as the same request of the server's is (malformed-request.ts), before the person sees it.
    const malformed = paramsProblem(entry.method, entry.params);
    if (malformed) {
      throw invalidTask(`input request "${key}" (${entry.method}) is malformed: ${malformed.problem}`, {
        taskId: task.taskId,
        key,
        problem: malformed.problem,
      });
    }
    return { key, method: entry.method, params: (entry.params as JsonObject | undefined) ?? {} };
  });
}

/** What a connection lends the modern tasks: its requests, and whoever answers a server's requests. */
export interface ModernTaskHost {
  request(method: string, params: JsonObject, options?: RequestOptions): Promise<Raw>;
  /** What the daemon always declares as a client. */
  clientCapabilities: JsonObject;
  /** Answers a task's input request as the daemon answers the same request of the server's. */
  answer(request: InputRequest, signal: AbortSignal): Promise<JsonObject>;
}

/** How many tasks a connection remembers for the task list; the oldest go first. */
const MAX_REMEMBERED_TASKS = 200;

/**
 * The modern tasks of one connection: the extension's methods, and the tasks created through the
 * daemon, which stand in for the `tasks/list` the extension has not.
 */
export class ModernTasks {
  private readonly created = new Set<string>();

  constructor(private readonly host: ModernTaskHost) {}

  /** The `_meta` of a request that declares the extension. */
  get meta(): JsonObject {
    return tasksExtensionMeta(this.host.clientCapabilities);
  }

  /** A CreateTaskResult, checked, remembered for the list. */
  remember(raw: Raw): McpTask {
    const task = modernTask(raw);
    this.created.delete(task.taskId);
    this.created.add(task.taskId);
    if (this.created.size > MAX_REMEMBERED_TASKS) this.created.delete(this.created.values().next().value!);
    return task;
  }

  async get(taskId: string, options?: RequestOptions): Promise<McpTask> {
    const task = modernTask(await this.host.request('tasks/get', { taskId, _meta: this.meta }, options));
    if (task.taskId !== taskId) throw invalidTask(`asked for task "${taskId}", got "${task.taskId}"`);
    return task;
  }

  /** `tasks/cancel` answers an empty ack: the task as it is then comes from `tasks/get`. */
  async cancel(taskId: string, options?: RequestOptions): Promise<McpTask> {
    await this.host.request('tasks/cancel', { taskId, _meta: this.meta }, options);
    return this.get(taskId, options);
  }

  /**
   * The tasks created through the daemon on this connection, newest first, as `tasks/get` has them now.
   * A task the server no longer knows (its ttl ran out) leaves the list.
   */
  async list(): Promise<McpTask[]> {
    const tasks: McpTask[] = [];
    for (const taskId of [...this.created].reverse()) {
      try {
        tasks.push(await this.get(taskId));
      } catch (error) {
        if (!(error instanceof McpError && error.code === -32602)) throw error;
        this.created.delete(taskId);
      }
    }
    return tasks;
  }

  /**
   * Waits for a task to end, polling `tasks/get` at its pollIntervalMs (within POLL_INTERVAL_MS): the
   * input requests of an `input_required` task go to the person, their answers back with `tasks/update`.
   * `onChange` hears of each change of the task's status, message or update time.
   */
  async result(taskId: string, options: RequestOptions, onChange: () => void): Promise<Raw> {
    const signal = options.signal;
    let last = '';
    let answered = new Set<string>();
    for (;;) {
      const task = await this.get(taskId, options);
      const seen = `${task.status}\n${task.statusMessage ?? ''}\n${task.lastUpdatedAt}`;
      if (seen !== last) onChange();
      last = seen;
      if (isTerminal(task)) return endOf(task);
      if (task.status !== 'input_required') answered = new Set();
      const inputResponses: JsonObject = {};
      let fresh: InputRequest[];
      try {
        const asked = task.status === 'input_required' ? inputRequestsOf(task) : [];
        fresh = asked.filter((request) => !answered.has(request.key));
        for (const request of fresh) {
          inputResponses[request.key] = await this.host.answer(
            request,
            signal ?? new AbortController().signal,
          );
          answered.add(request.key);
        }
      } catch (error) {
        // Input requests the daemon cannot put to the person (malformed), or one the person rejected
        // (sampling), have no input response: the task cannot go on, and is not left waiting for one.
        void this.host.request('tasks/cancel', { taskId, _meta: this.meta }).catch(() => {});
        throw error;
      }
      if (fresh.length > 0) {
        await this.host.request('tasks/update', { taskId, inputResponses, _meta: this.meta }, options);
        continue;
      }
      await sleep(pollDelay(task), signal);
    }
  }
}

/** A wait that ends early, with the signal's reason, when the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
