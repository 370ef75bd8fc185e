import type {
  JSONRPCMessage,
  JSONRPCNotification,
  MessageExtraInfo,
  RequestId,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/client';
import { exceedsDepth, MAX_MESSAGE_DEPTH } from '../../../shared/json-depth.ts';
import type { RpcMessageEntry } from '../../../shared/logs.ts';
import { type LogicalCall, nextRound, withinCall } from '../../logs/logical-call.ts';
import { passCreatedTask } from '../modern-tasks.ts';
import { answerableId, malformedRequest } from './malformed-request.ts';
import { isRecording, sendRecording } from './sent-headers.ts';

/** What the log knows of a message besides the message: the headers it went with, its call's round. */
export type MessageContext = Pick<RpcMessageEntry, 'headers' | 'call'>;

export type MessageLogger = (
  direction: 'send' | 'receive',
  message: JSONRPCMessage,
  context?: MessageContext,
) => void;

/** A request the daemon sent as a round of a logical call, until its response comes. */
interface Round {
  call: LogicalCall;
  tag: NonNullable<RpcMessageEntry['call']>;
}

/** The members of a JSON-RPC response; the SDK refuses a response with any other. */
const RESPONSE_MEMBERS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'result', 'error']);

/** Rounds waiting for their response, at most: one that never gets any (timed out) is forgotten in time. */
const MAX_OPEN_ROUNDS = 1024;

/** Takes a notification from the server before the SDK client sees it; `true` means it goes no further. */
export type NotificationDivert = (notification: JSONRPCNotification) => boolean;

/** The `data` of the error that stands in for a server's message nested too deep to pass on. */
export const TOO_DEEP_DATA = { reason: 'message-too-deep', limit: MAX_MESSAGE_DEPTH } as const;

/** The first protocol version of the modern era: versions compare as dates. */
const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** JSON-RPC's error codes, as numbers: this module is loaded before the SDK is. */
const INTERNAL_ERROR = -32603;
/** The one protocol version with JSON-RPC batches: 2025-06-18 dropped them. */
const BATCH_PROTOCOL_VERSION = '2025-03-26';
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;

const TOO_DEEP_TEXT = `nests objects and arrays more than ${MAX_MESSAGE_DEPTH} levels deep, more than the daemon passes on`;

/**
 * The JSON type of a response's `result` that is not an object. The SDK would not take such a response
 * for one at all, and the request would wait for its time-out: it is answered with an error instead.
 */
function nonObjectResult(message: JSONRPCMessage): string | undefined {
  if (!('result' in message) || 'method' in message) return undefined;
  const type = jsonType(message.result);
  return type === 'object' ? undefined : type;
}

/**
 * What makes a message with an id and no method no JSON-RPC response, or `undefined` when it is one. The
 * SDK drops such a message as of an unknown type, and its request would wait for its time-out (the
 * execution lock held for minutes): the request is answered with an error saying what is wrong instead.
 */
export function malformedResponse(message: JSONRPCMessage): string | undefined {
  if ('method' in message || !('id' in message)) return undefined;
  const hasResult = 'result' in message;
  const hasError = 'error' in message;
  if (hasResult && hasError) return 'it has both "result" and "error"';
  if (!hasResult && !hasError) return 'it has neither "result" nor "error"';
  const extra = Object.keys(message).find((key) => !RESPONSE_MEMBERS.has(key));
  if (extra !== undefined) return `it has a member ${JSON.stringify(extra)}, which a response has not`;
  if (hasResult) return metaProblem((message as { result: unknown }).result);
  const error: unknown = (message as { error: unknown }).error;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) {
    return `its "error" is ${error === null ? 'null' : `a JSON ${jsonType(error)}`}, not an object`;
  }
  const { code, message: text } = error as { code?: unknown; message?: unknown };
  if (!Number.isInteger(code))
    return `its error "code" is ${JSON.stringify(code) ?? 'missing'}, not an integer`;
  // The SDK's schema takes safe integers only: a larger one, refused there, left the call waiting.
  if (!Number.isSafeInteger(code))
    return `its error "code" is ${BigInt(code as number).toString()}, not an integer JSON-RPC can carry exactly`;
  if (typeof text !== 'string')
    return `its error "message" is ${text === undefined ? 'missing' : `a JSON ${jsonType(text)}`}, not a string`;
  return undefined;
}

/** What is wrong with an object result's `_meta` (the SDK needs an object); nonObjectResult sees to the rest. */
function metaProblem(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null || !('_meta' in result)) return undefined;
  const type = jsonType(result._meta);
  if (type === 'object') return undefined;
  return `its "result._meta" is ${type === 'null' ? 'null' : `a JSON ${type}`}, not an object`;
}

/** A request of the server's as an answer names it: by its method, unless that is no short string. */
function requestNamed(message: JSONRPCMessage): string {
  const { method } = message as { method: unknown };
  // A method name of a megabyte is not repeated in the answer.
  return typeof method === 'string' && method.length <= 100 ? `The ${method} request` : 'The request';
}

/** The JSON type of a value, as an error names it. */
function jsonType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** What the log shows instead of a message too deep to serialise: its envelope and why the rest is gone. */
export function tooDeepPlaceholder(message: JSONRPCMessage): JSONRPCMessage {
  const envelope: Record<string, unknown> = { jsonrpc: '2.0' };
  if ('id' in message) envelope.id = message.id;
  if ('method' in message) envelope.method = message.method;
  envelope._inspector = { truncated: true, reason: `This message ${TOO_DEEP_TEXT}; it is not shown.` };
  return envelope as JSONRPCMessage;
}

/**
 * Wraps any transport so every JSON-RPC message, both ways, reaches the log bus exactly as it travelled,
 * and so that no message nested deeper than MAX_MESSAGE_DEPTH reaches the daemon's code: every later
 * step (the log stream, the live channel, the HTTP answer) serialises it again, recursively.
 */
export class LoggingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** The protocol version the client negotiated (initialize, or server/discover on a modern server). */
  protocolVersion?: string;
  /** The daemon's requests that are rounds of a logical call, by JSON-RPC id, until answered. */
  private readonly openRounds = new Map<RequestId, Round>();

  constructor(
    readonly inner: Transport,
    private readonly log: MessageLogger,
    private readonly divert?: NotificationDivert,
  ) {
    inner.onmessage = (message: JSONRPCMessage | JSONRPCMessage[], extra) => {
      if (Array.isArray(message)) this.receiveBatch(message, extra);
      else this.receive(message, extra);
    };
    // SDK v2 knows a STDIO transport by these two: a STDIO server that does not answer the era probe is
    // then taken for a legacy one, where an HTTP server's silence is an outage.
    if ('pid' in inner && 'stderr' in inner) {
      Object.defineProperties(this, {
        pid: { get: () => (inner as { pid?: number }).pid },
        stderr: { value: null },
      });
    }
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** Whether each request has a stream of its own (Streamable HTTP at the modern era). */
  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const logged = exceedsDepth(message, MAX_MESSAGE_DEPTH) ? tooDeepPlaceholder(message) : message;
    const round = this.openRound(message);
    const call = round && { call: round.tag };
    if (!isRecording(this.inner)) {
      // Written first, logged right after: the server starts on the request while the entry is made.
      try {
        return this.inner.send(message, options);
      } finally {
        this.log('send', logged, call);
      }
    }
    // Logged as its POST goes out, with the MCP headers it carries; or once sent, if no POST was made.
    let published = false;
    const publish = (headers?: Record<string, string>): void => {
      if (published) return;
      published = true;
      const withHeaders = headers && Object.keys(headers).length > 0 ? { headers } : undefined;
      this.log('send', logged, call || withHeaders ? { ...withHeaders, ...call } : undefined);
    };
    return sendRecording(() => this.inner.send(message, options), publish).finally(() => publish());
  }

  /** Counts a request of the daemon's as the next round of the logical call it is sent for, if any. */
  private openRound(message: JSONRPCMessage): Round | undefined {
    if (!('method' in message) || !('id' in message)) return undefined;
    const round = nextRound(message.method);
    if (!round) return undefined;
    if (this.openRounds.size >= MAX_OPEN_ROUNDS) {
      this.openRounds.delete(this.openRounds.keys().next().value as RequestId);
    }
    this.openRounds.set(message.id, round);
    return round;
  }

  /** The round a response answers, which is then closed. */
  private closeRound(message: JSONRPCMessage): Round | undefined {
    if ('method' in message || !('id' in message) || message.id === undefined) return undefined;
    const round = this.openRounds.get(message.id);
    if (round) this.openRounds.delete(message.id);
    return round;
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  /**
   * On the modern era (2026-07-28) a result without `resultType` is taken as complete, as clients
   * should take it, where the SDK refuses it: the log keeps what the server sent, and the result still
   * reaches the caller as it was (the SDK strips the `resultType` again). A task's CreateTaskResult
   * reaches it held in a complete result (modern-tasks.ts).
   */
  private completeResult(message: JSONRPCMessage): JSONRPCMessage {
    if (!('result' in message) || 'method' in message) return message;
    const result = message.result as unknown;
    if (typeof result !== 'object' || result === null || Array.isArray(result)) return message;
    // A CreateTaskResult of the tasks extension, which the SDK would refuse, passes as a complete result.
    if ('resultType' in result) return passCreatedTask(message);
    return { ...message, result: { ...result, resultType: 'complete' } } as JSONRPCMessage;
  }

  private receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const round = this.closeRound(message);
    const context = round && { call: round.tag };
    if (exceedsDepth(message, MAX_MESSAGE_DEPTH)) {
      this.log('receive', tooDeepPlaceholder(message), context);
      this.refuseTooDeep(message, round);
      return;
    }
    this.log('receive', message, context);
    const malformed = malformedResponse(message);
    if (malformed) {
      const { id } = message as { id?: RequestId };
      const text = `The server's response is not a JSON-RPC response: ${malformed}; the log shows what it sent`;
      this.answerInstead(id, round, text, { reason: 'malformed-response', problem: malformed });
      return;
    }
    if (this.refuseMalformedRequest(message) || this.refuseModernRequest(message)) return;
    const nonObject = nonObjectResult(message);
    if (nonObject) {
      const text = `The server's result is ${nonObject === 'null' ? 'null' : `a JSON ${nonObject}`}, not an object as every MCP result is; the log shows what it sent`;
      const { id } = message as { id?: RequestId };
      this.answerInstead(id, round, text, { reason: 'result-not-an-object', type: nonObject });
      return;
    }
    this.deliver(message, extra, round);
  }

  /**
   * A JSON-RPC batch (an array of messages, from a STDIO server). At 2025-03-26 each message goes on as
   * if sent alone. At any other version (or before one is agreed) there are no batches: each message is
   * logged, a response fails the call it answers at once, saying so, and a request is answered -32600;
   * the calls do not wait for their time-out.
   */
  private receiveBatch(batch: JSONRPCMessage[], extra?: MessageExtraInfo): void {
    if (this.protocolVersion === BATCH_PROTOCOL_VERSION) {
      for (const message of batch) this.receive(message, extra);
      return;
    }
    const version = this.protocolVersion ?? 'the handshake';
    const problem = `came in a JSON-RPC batch (an array of ${batch.length} messages), which MCP has not had since 2025-06-18 (this connection: ${version})`;
    const data = { reason: 'batch', messages: batch.length, protocolVersion: this.protocolVersion };
    for (const message of batch) {
      const round = this.closeRound(message);
      const tooDeep = exceedsDepth(message, MAX_MESSAGE_DEPTH);
      this.log('receive', tooDeep ? tooDeepPlaceholder(message) : message, round && { call: round.tag });
      const id = answerableId(message);
      if (id !== undefined) {
        this.answerServer(id, INVALID_REQUEST, `${requestNamed(message)} ${problem}`, data);
      } else if (!('method' in message) && 'id' in message) {
        this.answerInstead(
          message.id,
          round,
          `The server's response ${problem}; the log shows what it sent`,
          data,
        );
      }
    }
  }

  /** An error response in place of the server's response to a request: the call fails, saying why. */
  private answerInstead(
    id: RequestId | undefined,
    round: Round | undefined,
    text: string,
    data: unknown,
  ): void {
    this.deliver(
      { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: text, data } },
      undefined,
      round,
    );
  }

  /**
   * A response too deep becomes an error response to the same request, so the call still answers
   * (502, saying why); a request from the server is answered with an error; a notification is dropped.
   */
  private refuseTooDeep(message: JSONRPCMessage, round?: Round): void {
    const isRequest = 'method' in message && 'id' in message;
    const isResponse = 'id' in message && !('method' in message);
    if (isResponse) {
      this.answerInstead(message.id, round, `The server's response ${TOO_DEEP_TEXT}`, TOO_DEEP_DATA);
    } else if (isRequest) {
      const answer: JSONRPCMessage = {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: INVALID_REQUEST, message: `The request ${TOO_DEEP_TEXT}` },
      };
      this.log('send', answer);
      this.inner.send(answer).catch((error: unknown) => this.onerror?.(error as Error));
    }
  }

  /**
   * Answers a request of the server's that the SDK would drop unanswered (malformed-request.ts) with an
   * error saying what is wrong; `true` when it did, and the request goes no further. One whose id is
   * null, an object, a boolean or an array is answered with id null, as JSON-RPC 2.0 has it.
   */
  private refuseMalformedRequest(message: JSONRPCMessage): boolean {
    const id = answerableId(message);
    const malformed = id === undefined ? undefined : malformedRequest(message);
    if (id === undefined || !malformed) return false;
    const text = `${requestNamed(message)} is malformed: ${malformed.problem}`;
    this.answerServer(id, malformed.code, text, { reason: 'malformed-request', problem: malformed.problem });
    return true;
  }

  /**
   * At 2026-07-28 a server sends no requests: it asks for input with an `input_required` result
   * (multi round-trip requests, SEP-2322), and the request methods of earlier revisions are gone. The
   * SDK drops such a request without an answer (and the server waits for ever); the daemon answers it
   * "method not found", as a server answers a method it does not have, saying why. `true` when it did.
   */
  private refuseModernRequest(message: JSONRPCMessage): boolean {
    if (!this.isModern || !('method' in message) || !('id' in message)) return false;
    const version = this.protocolVersion ?? MODERN_PROTOCOL_VERSION;
    const text =
      `${requestNamed(message)} is not served: at protocol version ${version} a server sends the client ` +
      'no requests, it asks for input with an input_required result';
    this.answerServer(message.id, METHOD_NOT_FOUND, text, {
      reason: 'server-request-not-in-protocol',
      protocolVersion: version,
    });
    return true;
  }

  /** Sends the daemon's error answer to a request of the server's, logged as sent. */
  private answerServer(id: RequestId | null, code: number, text: string, data: unknown): void {
    const answer = { jsonrpc: '2.0', id, error: { code, message: text, data } } as JSONRPCMessage;
    this.log('send', answer);
    this.inner.send(answer).catch((error: unknown) => this.onerror?.(error as Error));
  }

  /** Whether the connection speaks the modern era: protocol versions compare as dates. */
  private get isModern(): boolean {
    return this.protocolVersion !== undefined && this.protocolVersion >= MODERN_PROTOCOL_VERSION;
  }

  private deliver(message: JSONRPCMessage, extra?: MessageExtraInfo, round?: Round): void {
    if (round && 'error' in message) round.call.sentErrorCode = (message.error as { code?: unknown }).code;
    if (this.isModern) {
      // What the server sent, kept before the SDK checks it against the 2026-07-28 schema (logical-call.ts).
      if (round) round.call.sentResult = 'result' in message ? message.result : undefined;
      message = this.completeResult(message);
    }
    // The SDK handles notifications a microtask later but responses at once, and a response drops its
    // request's progress handler: a final progress read in the same chunk as the result would be lost
    // (typescript-sdk#2580). Handing responses over a microtask later keeps the server's order. A
    // round's answer is handed over in its call's context: the SDK sends the next round from there.
    if ('id' in message && !('method' in message)) {
      queueMicrotask(() => withinCall(round?.call, () => this.onmessage?.(message, extra)));
    } else if ('id' in message || !this.divert?.(message as JSONRPCNotification))
      this.onmessage?.(message, extra);
  }
}
