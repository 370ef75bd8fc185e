import { type FetchLike, parseJSONRPCMessage, type RequestId } from '@modelcontextprotocol/client';
import type { HeldMessages } from './held-messages.ts';
import { type PostedRequests, postedRequests, postOf, unanswered } from './posted-requests.ts';
import { NoResponseError, parseProblem, UnreadableEventError } from './remote-answer.ts';
import { isJsonRpcShaped } from './stdio-transport.ts';

/** An event of a server's event stream that is no JSON-RPC message, and the calls it fails. */
export interface UnreadableEvent {
  error: UnreadableEventError | NoResponseError;
  /**
   * The daemon's requests it was meant to answer, by id (none when it answers no call: it is only
   * logged), or `pending`: every request of the connection still waiting for its answer.
   */
  fails: RequestId[] | 'pending';
  /** What the server sent is in the log already, as the messages it was (a NoResponseError's). */
  logged?: boolean;
  /**
   * Only once the server is found still there (a probe, with this as what broke): a broken stream may be
   * a server that died, which is a lost connection, not a missing answer.
   */
  ifReachable?: string;
}

/** Event ids remembered for a stream that may be resumed, at most (the oldest are forgotten first). */
const MAX_RESUMABLE = 1024;

/**
 * A `fetch` for an HTTP or SSE server that reads its event streams event by event before the SDK does,
 * and takes out of them each event whose data is not JSON, or is JSON but no JSON-RPC message (as the
 * SDK's own parse has it): the SDK only reports such an event to the transport's `onerror`, and the call
 * it was meant to answer waited for its time-out, five minutes for a tool with the execution lock held.
 * `onUnreadable` hears of it with the calls it fails instead (the connection stays):
 *
 * - JSON with an `id` and no `method` names its call: that request fails, wherever it came.
 * - A JSON-RPC request or notification of the server's own (JSON with a `method`, as a STDIO line is
 *   taken: isJsonRpcShaped) stays in its place, `held` (held-messages.ts): the transport hands it on
 *   as it came, and LoggingTransport answers a malformed request saying what is wrong, where the SDK
 *   dropped it and the server waited for ever. Other JSON with a `method` answers no call.
 * - Anything else on the stream a Streamable HTTP POST was answered with answers that POST's request.
 * - Anything else on a legacy SSE server's one stream cannot be tied to a call: every answer travels
 *   there. Dropping it would be as good as silent (the call it answered waits minutes for nothing), and
 *   guessing one call would be a lie; the calls waiting for an answer fail, saying that it cannot be
 *   told which of them it answered, and the next call goes to the same connection.
 * - On a Streamable HTTP GET stream only the server's requests and notifications travel, unless it
 *   resumes a POST's stream that broke (Last-Event-ID): that POST's request fails; otherwise none.
 *
 * What is left of such an event (its id and retry fields) still reaches the SDK, which keeps its place
 * in the stream. Events are held only until their blank line; size-limited-fetch.ts bounds them.
 */
export function eventCheckingFetch(
  base: FetchLike,
  transport: 'http' | 'sse',
  onUnreadable: (event: UnreadableEvent) => void,
  held?: HeldMessages,
  /** How many failed resumptions in a row the Streamable HTTP transport makes of a stream (its maxRetries). */
  maxResumptions = 2,
): FetchLike {
  // The last event id of each Streamable HTTP POST's stream, and that POST's requests.
  const resumable = new Map<string, PostedRequests>();
  // Resumptions that failed in a row, by the Last-Event-ID they asked with.
  const failedResumptions = new Map<string, number>();
  const noResponse = (requests: PostedRequests, message: string, ifReachable?: string) =>
    onUnreadable({
      error: new NoResponseError(message),
      fails: [...requests.keys()],
      logged: true,
      ...(ifReachable !== undefined && { ifReachable }),
    });
  /**
   * A resumption of a POST's stream that failed: once the transport tries no more (it takes a 405 for
   * a server without GET streams, and stops after `maxResumptions` failures), nothing answers the POST.
   */
  const resumptionFailed = (lastEventId: string, requests: PostedRequests, why: string, stops: boolean) => {
    const times = (failedResumptions.get(lastEventId) ?? 0) + 1;
    failedResumptions.set(lastEventId, times);
    if (!stops && times < maxResumptions) return;
    failedResumptions.delete(lastEventId);
    resumable.delete(lastEventId);
    const after = times > 1 ? ` (${times} times)` : '';
    noResponse(
      requests,
      `The server ended the event stream of ${postOf(requests)} without a response to it, and resuming the stream (GET with Last-Event-ID) failed: ${why}${after}, so no answer can come`,
    );
  };
  return async (url, init) => {
    const post = init?.method === 'POST';
    const lastEventId = post ? null : new Headers(init?.headers).get('last-event-id');
    const resumed = lastEventId === null ? undefined : resumable.get(lastEventId);
    const resuming =
      transport === 'http' && lastEventId !== null && resumed !== undefined && resumed.size > 0;
    let response: Response;
    try {
      response = await base(url, init);
    } catch (error) {
      if (resuming && !init?.signal?.aborted) {
        const why = error instanceof Error ? error.message : String(error);
        resumptionFailed(lastEventId, resumed, why, false);
      }
      throw error;
    }
    const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
    if (resuming && !response.ok && response.status !== 401) {
      const status = `HTTP ${response.status} ${response.statusText}`.trim();
      resumptionFailed(lastEventId, resumed, `the server answered ${status}`, response.status === 405);
    } else if (resuming) failedResumptions.delete(lastEventId);
    if (!response.body || !contentType.startsWith('text/event-stream')) return response;
    const requests = post ? postedRequests(init?.body) : resumed;
    const untied: UnreadableEvent['fails'] =
      transport === 'sse' && !post ? 'pending' : [...(requests?.keys() ?? [])];
    // What of the stream the SDK's Streamable HTTP transport goes by when it ends: it resumes a stream
    // that gave an event id and no response (of any call's), and only then.
    let waiting: PostedRequests = transport === 'http' && requests ? new Map(requests) : new Map();
    let lastId: string | undefined;
    let responded = false;
    /**
     * The stream ended, or broke (`broke` says why: its connection was cut), before the response to what it
     * was waiting for. With an event id and no response to another call the SDK resumes it (GET with
     * Last-Event-ID), and the answer may come there, as the MCP spec allows; otherwise none can come. A
     * broken stream fails its calls only once the server is found still there: a server that died is a
     * lost connection, which the connection's probe reports. One the daemon aborts is no news.
     */
    const stopped = (broke?: string): void => {
      if (!waiting.size || (broke !== undefined && init?.signal?.aborted)) return;
      if (lastId !== undefined && !responded) {
        resumable.set(lastId, waiting);
        return;
      }
      const of = postOf(waiting);
      const what =
        broke === undefined
          ? `The server ended the ${post ? 'event stream' : 'resumed event stream'} of ${of} without a response to it`
          : `The event stream of ${of} broke before a response to it (${broke})`;
      const why =
        lastId === undefined
          ? 'and with no event id to resume the stream by, so no answer can come'
          : `and ${broke === undefined ? 'with' : 'after'} a response to another call, so the stream is not resumed and no answer can come`;
      noResponse(
        waiting,
        `${what}, ${why}`,
        broke === undefined ? undefined : `the event stream of ${of} broke (${broke})`,
      );
    };
    // undici says `terminated`, and why in its cause: `other side closed`.
    const broke = (error: unknown): void => {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      stopped(error instanceof Error ? `${error.message}${cause}` : String(error));
    };
    const checked = watchBreak(response.body, broke)
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(
        eventStream({
          // A Streamable HTTP stream skips an event whose data is empty; EventSource (SSE) hands it on.
          skipsEmpty: transport === 'http',
          unreadable: (data, parsed) => onUnreadable(unreadableEvent(data, parsed, untied)),
          standIn: ({ parsed }) =>
            held && isServerMessage(parsed) ? JSON.stringify(held.hold(parsed)) : undefined,
          seen: (parsed, takes) => {
            if (!waiting.size) return;
            waiting = unanswered([parsed], waiting);
            if (takes && typeof parsed === 'object' && parsed !== null && !('method' in parsed))
              responded = true;
          },
          eventId: (id) => {
            if (id !== '') lastId = id;
            if (transport !== 'http' || !requests?.size) return;
            resumable.delete(id);
            if (resumable.size >= MAX_RESUMABLE) resumable.delete(resumable.keys().next().value as string);
            resumable.set(id, requests);
          },
          end: () => stopped(),
        }),
      )
      .pipeThrough(new TextEncoderStream());
    return new Response(checked, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** `body` as it comes, telling `broke` first when reading it fails. */
function watchBreak<T>(body: ReadableStream<T>, broke: (error: unknown) => void): ReadableStream<T> {
  const reader = body.getReader();
  return new ReadableStream<T>({
    async pull(controller) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        broke(error);
        controller.error(error);
        return;
      }
      if (read.done) controller.close();
      else controller.enqueue(read.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** Why the SDK cannot take `data`, with what it parsed to if it is JSON; `takes` when it can. */
function problemOf(data: string): { problem?: string; parsed?: unknown; takes?: boolean } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch (error) {
    return { problem: parseProblem(error) };
  }
  try {
    // The very parse the SDK's transports make of an event.
    parseJSONRPCMessage(parsed);
    return { parsed, takes: true };
  } catch {
    return { parsed };
  }
}

/** A request or notification of the server's, taken as a STDIO line would be. */
function isServerMessage(parsed: unknown): parsed is Parameters<HeldMessages['hold']>[0] {
  return isJsonRpcShaped(parsed) && 'method' in parsed;
}

/** What carried a message that could not be read, as its error names it. */
export interface Carrier {
  /** The message itself: `event`, `WebSocket message`. */
  what: string;
  /** What carries the answers to every call: `event stream`, `WebSocket`. */
  stream: string;
}

const EVENT_STREAM: Carrier = { what: 'event', stream: 'event stream' };

/**
 * The call an unreadable message fails: the one its id names; none when it has a method (it answers no
 * call); else `untied`. Also used for a WebSocket server's messages (websocket-transport.ts).
 */
export function unreadableEvent(
  data: string,
  found: { problem?: string; parsed?: unknown },
  untied: UnreadableEvent['fails'],
  carrier: Carrier = EVENT_STREAM,
): UnreadableEvent {
  const { problem, parsed } = found;
  const fields = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  const { id } = fields as { id?: unknown };
  const named =
    !('method' in fields) && (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)));
  const fails = named ? [id as RequestId] : 'method' in fields ? [] : untied;
  const after =
    fails === 'pending'
      ? `. It came on the ${carrier.stream} that carries the answers to every call, so which call it answers cannot be told: each call waiting for an answer fails`
      : '';
  const error = new UnreadableEventError(
    data,
    { bytes: Buffer.byteLength(data) },
    problem,
    after,
    carrier.what,
  );
  return { error, fails };
}

interface EventStreamOptions {
  skipsEmpty: boolean;
  unreadable: (data: string, found: { problem?: string; parsed?: unknown }) => void;
  /** The data of a stand-in for JSON the SDK refuses that the transport takes all the same, if it does. */
  standIn: (found: { parsed?: unknown }) => string | undefined;
  /** Each event's data that is JSON, and whether the SDK takes it. */
  seen: (parsed: unknown, takes: boolean) => void;
  eventId: (id: string) => void;
  /** The stream ended (not broke). */
  end: () => void;
}

/** A `data:` line, or a line that is the bare field name `data` (an empty data line). */
const isDataLine = (line: string): boolean => line === 'data' || line.startsWith('data:');

/**
 * Text of an event stream in, the same stream out with each unreadable event's data lines taken out,
 * or replaced by a stand-in's. Lines end with CRLF, LF or CR, as the event-stream format has it; events
 * with a blank line.
 */
function eventStream(options: EventStreamOptions): TransformStream<string, string> {
  /** The lines of the event being read. */
  let lines: string[] = [];
  /** Pieces of the line being read, before its end came. */
  let pieces: string[] = [];
  /** The last chunk ended with a CR: a LF that starts the next one ends no further line. */
  let afterCR = false;

  const endEvent = (controller: TransformStreamDefaultController<string>): void => {
    let kept = lines;
    lines = [];
    let data: string[] | undefined;
    let type = '';
    let id: string | undefined;
    for (const line of kept) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
      if (field === 'data') (data ??= []).push(value);
      else if (field === 'event') type = value;
      else if (field === 'id' && !value.includes('\0')) id = value;
    }
    if (data && (type === '' || type === 'message')) {
      const text = data.join('\n');
      const found = text === '' && options.skipsEmpty ? undefined : problemOf(text);
      if (found?.parsed !== undefined) options.seen(found.parsed, found.takes === true);
      if (found && !found.takes) {
        kept = kept.filter((line) => !isDataLine(line));
        // A message of the server's is held: its stand-in keeps its place in the stream.
        const standIn = found.problem === undefined ? options.standIn(found) : undefined;
        if (standIn === undefined) options.unreadable(text, found);
        else kept.push(`data: ${standIn}`);
      }
    }
    if (id !== undefined) options.eventId(id);
    controller.enqueue(kept.length ? `${kept.join('\n')}\n\n` : '\n');
  };

  const takeLine = (line: string, controller: TransformStreamDefaultController<string>): void => {
    if (line === '') endEvent(controller);
    else lines.push(line);
  };

  return new TransformStream<string, string>({
    transform(chunk, controller) {
      let start = afterCR && chunk.startsWith('\n') ? 1 : 0;
      afterCR = false;
      let cr = chunk.indexOf('\r', start);
      let lf = chunk.indexOf('\n', start);
      while (cr !== -1 || lf !== -1) {
        const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
        const piece = chunk.slice(start, end);
        takeLine(pieces.length ? pieces.join('') + piece : piece, controller);
        pieces = [];
        start = end + 1;
        if (end === cr) {
          if (start === chunk.length) afterCR = true;
          else if (chunk[start] === '\n') start++;
        }
        if (cr !== -1 && cr < start) cr = chunk.indexOf('\r', start);
        if (lf !== -1 && lf < start) lf = chunk.indexOf('\n', start);
      }
      if (start < chunk.length) pieces.push(chunk.slice(start));
    },
    flush(controller) {
      // An event the stream ended in the middle of is not dispatched: it goes on as it came.
      const rest = [...lines.map((line) => `${line}\n`), ...pieces].join('');
      if (rest) controller.enqueue(rest);
      options.end();
    },
  });
}
