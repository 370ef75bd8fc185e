import { STATUS_CODES } from 'node:http';
import {
  type FetchLike,
  type JSONRPCMessage,
  parseJSONRPCMessage,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import { redact } from '../redact.ts';
import type { HeldMessages } from './held-messages.ts';
import { type PostedRequests, postedRequests, postOf, unanswered } from './posted-requests.ts';

/** How much of a server's body an error quotes: enough to recognise a stack trace or a proxy's page. */
const MAX_EXCERPT = 300;

/**
 * What an HTTP or SSE server answered to a message instead of JSON-RPC: an HTTP error status, or a body
 * that is not JSON, or JSON of another kind. The server is there and answered, so the connection is not
 * lost: the call fails with these words, and the next call goes to the same connection.
 */
export interface RemoteAnswer {
  message: string;
  code: 'HTTP_STATUS' | 'NOT_JSON' | 'NOT_JSON_RPC' | 'NO_RESPONSE';
  data: Record<string, unknown>;
  /** The start of the body the server sent, secrets masked, when it sent one. */
  body?: string;
  /**
   * The server no longer knows the connection's session (HTTP 404, which the MCP Streamable HTTP
   * transport defines as an ended session): every later message would get the same, so it is opened again.
   */
  sessionGone?: boolean;
}

/**
 * A JSON answer to a POST whose body does not parse (`problem` says why), or parses to no JSON-RPC
 * message (`instead` says what it is, when more than no "jsonrpc": "2.0"). Its message leaves the body
 * out: an error quotes it only once the secrets are masked.
 */
export class UnreadableAnswerError extends Error {
  override name = 'UnreadableAnswerError';
  constructor(
    readonly body: string,
    readonly data: { status: number; contentType: string; bytes: number },
    readonly problem?: string,
    instead = 'JSON but no JSON-RPC message (no "jsonrpc": "2.0")',
  ) {
    super(
      problem === undefined
        ? `The server's answer of ${data.bytes} bytes is ${instead}`
        : `The server's answer of ${data.bytes} bytes is not JSON: ${problem}`,
    );
  }
}

/**
 * An event of an HTTP or SSE server's event stream whose data is not JSON (`problem` says why), or JSON
 * that is no JSON-RPC message: the SDK only reports it to the transport's `onerror`, and the call it was
 * meant to answer would wait for its time-out (event-check.ts). Its message leaves the data out, as
 * UnreadableAnswerError's does.
 */
export class UnreadableEventError extends Error {
  override name = 'UnreadableEventError';
  constructor(
    readonly body: string,
    readonly data: { bytes: number },
    readonly problem?: string,
    /** Said after the data's start: why this call fails when the event names none. */
    readonly after = '',
    /** What carried it: an event of an event stream, or a WebSocket message. */
    what = 'event',
  ) {
    super(
      problem === undefined
        ? `The server's ${what} of ${data.bytes} bytes is JSON but no JSON-RPC message`
        : `The server's ${what} of ${data.bytes} bytes is not JSON: ${problem}`,
    );
  }
}

/**
 * A Streamable HTTP server's answer to a POST that carries a request, which holds no response to it and
 * after which none can come (posted-requests.ts): a JSON body with other messages only, a 202 Accepted,
 * an event stream that ended with no event id to resume it by. The MCP transport has a request answered
 * in the JSON body, or on the POST's event stream (or its resumption), never on another stream: the call
 * fails at once, where it waited for its time-out. Its message leaves the body out, as
 * UnreadableAnswerError's does; `body` is quoted after it.
 */
export class NoResponseError extends Error {
  override name = 'NoResponseError';
  constructor(
    message: string,
    readonly body = '',
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The start of a body for an error, its secrets masked first (so none is cut in two): on one line, cut short when long. */
export function excerpt(text: string, secrets: string[]): string {
  const line = redact(text, secrets).replace(/\s+/g, ' ').trim();
  return line.length > MAX_EXCERPT ? `${line.slice(0, MAX_EXCERPT)}…` : line;
}

/** Whether a parsed body is a JSON-RPC message, or a batch of them, at a glance (the SDK checks the rest). */
function looksLikeJsonRpc(data: unknown): boolean {
  const one = (item: unknown) =>
    typeof item === 'object' && item !== null && (item as { jsonrpc?: unknown }).jsonrpc === '2.0';
  return Array.isArray(data) ? data.length > 0 && data.every(one) : one(data);
}

/**
 * V8's complaint about text that is no JSON, without the piece of the text it quotes (`Unexpected token
 * '<', "<html>Bad "... is not valid JSON`): that piece may hold part of a secret, too short to be masked.
 */
export function parseProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/,? ?"[^]*"(?:\.\.\.)? is not valid JSON$/, '') || 'it is not valid JSON';
}

/** Whether the SDK's transports take a message (their strict parse), which they otherwise refuse. */
function sdkTakes(message: unknown): boolean {
  try {
    parseJSONRPCMessage(message);
    return true;
  } catch {
    return false;
  }
}

/**
 * The id of a response the SDK refuses that names no call, shown as an error shows it; undefined for a
 * request, a notification, or a response that names its call (a string or an integer: the SDK's ids).
 */
function unnamedId(message: JSONRPCMessage): string | undefined {
  if ('method' in message) return undefined;
  const { id } = message as { id?: unknown };
  if (typeof id === 'string' || Number.isSafeInteger(id)) return undefined;
  return id === undefined ? 'missing' : (JSON.stringify(id)?.slice(0, 40) ?? String(id));
}

/**
 * A `fetch` whose JSON answers to the messages POSTed to `endpoint`, once they fail to parse (or parse
 * to something that is no JSON-RPC message), say so with the body's size: the SDK's bare SyntaxError
 * ("Unexpected end of JSON input") was taken for a lost connection. Other requests (OAuth metadata and
 * tokens) are left as they are.
 *
 * A JSON-RPC message in the body that the SDK's strict parse refuses (a `result` of 5, an `error` of
 * null, a member too many, a request with `params` null) failed the whole send inside the SDK, taken
 * for a lost connection with a dump of its schema's complaints. Each is `held` (held-messages.ts) in
 * its place instead, and taken as a STDIO line is: LoggingTransport fails the call a malformed response
 * names saying what is wrong, and answers a malformed request. A response that names no call (its id
 * null, a fraction) fails the POST's call, saying so.
 */
export function answerReadingFetch(
  base: FetchLike,
  endpoint: URL,
  held?: HeldMessages,
  /**
   * A Streamable HTTP server's (none for a legacy SSE server's, whose POSTs are answered 202): hears of
   * the requests a POST carries that its answer holds no response to, once the answer's messages are
   * handed on. A 202 to a request fails the POST instead.
   */
  onUnanswered?: (requests: PostedRequests, error: NoResponseError) => void,
): FetchLike {
  const target = endpoint.origin + endpoint.pathname;
  return async (url, init) => {
    const response = await base(url, init);
    const contentType = response.headers.get('content-type') ?? '';
    const { origin, pathname } = new URL(url);
    if (init?.method !== 'POST' || origin + pathname !== target) return response;
    const requests = onUnanswered ? postedRequests(init.body) : new Map<never, never>();
    if (response.status === 202 && requests.size) {
      // Only a notification or a response is accepted so: nothing answers the request, on any stream.
      const body = await response.text().catch(() => '');
      throw new NoResponseError(
        `The server answered ${postOf(requests)} with HTTP 202 Accepted, which is for notifications and responses: a request is answered with a JSON body or an event stream, so no answer will come${body.trim() ? '. Its body' : ''}`,
        body,
        { status: 202 },
      );
    }
    if (!response.ok || !/^application\/json\b/i.test(contentType)) return response;
    // The SDK reads the answer with `json()`: this one says what is wrong with a body it cannot use.
    const json = async (): Promise<unknown> => {
      const bytes = new Uint8Array(await response.arrayBuffer());
      const text = new TextDecoder().decode(bytes);
      const data = { status: response.status, contentType, bytes: bytes.byteLength };
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new UnreadableAnswerError(text, data, parseProblem(error));
      }
      if (Array.isArray(parsed) && parsed.length === 0) {
        throw new UnreadableAnswerError(
          text,
          data,
          undefined,
          'an empty JSON array: it holds no JSON-RPC message',
        );
      }
      if (!looksLikeJsonRpc(parsed)) throw new UnreadableAnswerError(text, data);
      const taken = (message: JSONRPCMessage): JSONRPCMessage => {
        if (!held || sdkTakes(message)) return message;
        const id = unnamedId(message);
        if (id !== undefined) {
          const instead = `a JSON-RPC response whose "id" is ${id}, not a string or an integer: it answers no call`;
          throw new UnreadableAnswerError(text, data, undefined, instead);
        }
        return held.hold(message);
      };
      const messages = Array.isArray(parsed) ? parsed.map(taken) : taken(parsed as JSONRPCMessage);
      const left = unanswered(Array.isArray(parsed) ? parsed : [parsed], requests);
      if (left.size && onUnanswered) {
        // Once the SDK has handed on the body's messages (at once, when this resolves), so they are taken
        // and logged as they came: the requests they leave unanswered fail then.
        const error = new NoResponseError(
          `The server answered ${postOf(left)} with a JSON body that holds no response to it`,
          text,
          data,
        );
        setImmediate(() => onUnanswered(left, error));
      }
      return messages;
    };
    Object.defineProperty(response, 'json', { value: json });
    return response;
  };
}

/** The SSE transport's failed POST: "Error POSTing to endpoint (HTTP 500): <body>". */
const SSE_POST_FAILURE = /^Error POSTing to endpoint \(HTTP (\d{3})\): ([^]*)$/;

/**
 * What the server answered, when a message's failure is its answer (see RemoteAnswer), the body it
 * quotes with `secrets` masked; undefined for anything else, such as a broken connection.
 */
export function remoteAnswerOf(error: unknown, secrets: string[] = []): RemoteAnswer | undefined {
  if (error instanceof NoResponseError) {
    const quoted = error.body.trim() ? `: ${excerpt(error.body, secrets)}` : '';
    return { message: `${error.message}${quoted}`, code: 'NO_RESPONSE', data: error.data };
  }
  if (error instanceof UnreadableAnswerError || error instanceof UnreadableEventError) {
    const begins = error.body.trim() ? `; it begins: ${excerpt(error.body, secrets)}` : '';
    const after = error instanceof UnreadableEventError ? error.after : '';
    return {
      message: `${error.message}${begins}${after}`,
      code: error.problem === undefined ? 'NOT_JSON_RPC' : 'NOT_JSON',
      data: error.data,
    };
  }
  // An HTTP error status to a request, or to the era probe (server/discover), where a 5xx ends the connect.
  const statusError =
    error instanceof SdkError &&
    (error.code === SdkErrorCode.ClientHttpNotImplemented ||
      error.code === SdkErrorCode.EraNegotiationFailed);
  if (statusError) {
    const data = error.data as { status?: unknown; statusText?: unknown; text?: unknown } | undefined;
    if (typeof data?.status === 'number') {
      const statusText = typeof data.statusText === 'string' ? data.statusText : '';
      const body = typeof data.text === 'string' ? data.text : '';
      return httpStatus(data.status, statusText, excerpt(body, secrets));
    }
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.ClientHttpUnexpectedContent) {
    const { contentType } = (error.data ?? {}) as { contentType?: unknown };
    return {
      message: `The server's answer is not JSON: its Content-Type is ${String(contentType ?? 'missing')}, where an answer to a POST must be application/json or text/event-stream`,
      code: 'NOT_JSON',
      data: { contentType },
    };
  }
  const sse =
    error instanceof Error && !(error instanceof SdkError) ? SSE_POST_FAILURE.exec(error.message) : null;
  if (sse) return httpStatus(Number(sse[1]), '', excerpt(sse[2] ?? '', secrets));
  return undefined;
}

function httpStatus(status: number, statusText: string, body: string): RemoteAnswer {
  const reason = statusText || STATUS_CODES[status] || '';
  const said = body ? `: ${body}` : ' with an empty body';
  const sessionGone = status === 404;
  const after = sessionGone
    ? '; the server no longer knows the session, so the connection is opened again on the next call'
    : '';
  return {
    message: `The server answered ${`HTTP ${status} ${reason}`.trim()}${said}${after}`,
    code: 'HTTP_STATUS',
    data: { status, statusText: reason },
    ...(body && { body }),
    ...(sessionGone && { sessionGone }),
  };
}
