import type { FetchLike } from '@modelcontextprotocol/client';
import { MessageTooLargeError } from './stdio-transport.ts';

/** Statuses whose answer has no body: a Response cannot be made with one. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const LF = 0x0a;
const CR = 0x0d;

/**
 * A `fetch` for an HTTP or SSE server whose every message is held to `limit` bytes, as a STDIO server's
 * line is: a JSON answer to a POST whole, an event stream event by event (bytes since the last blank line).
 * Bytes are counted as read, after decompression, so neither a huge body nor a small gzip that inflates
 * to gigabytes is ever held whole; without it one answer of 400 MB JSON took the daemon 400 MB further
 * and ten ended it. Past the limit the body fails with MessageTooLargeError and `onTooLarge` hears it
 * first (the connection is reset, and what waited on it fails saying why).
 */
export function sizeLimitedFetch(
  base: FetchLike,
  limit: number,
  onTooLarge: (error: MessageTooLargeError) => void,
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
    const eventStream = (response.headers.get('content-type') ?? '')
      .toLowerCase()
      .startsWith('text/event-stream');
    let size = 0;
    // Bytes of the line read so far, carriage returns aside: none when a line feed ends an empty line.
    let line = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (!eventStream) {
            size += chunk.byteLength;
          } else {
            // Line by line (a native search for each line feed, not a loop over every byte).
            let from = 0;
            for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, from)) {
              const bytes = end - from - (end > from && chunk[end - 1] === CR ? 1 : 0);
              // A blank line ends an event: the next one starts from nothing.
              if (line + bytes === 0) size = 0;
              else size += bytes;
              line = 0;
              from = end + 1;
              // Before a blank line further on in the chunk forgets it.
              if (size > limit) break;
            }
            if (size <= limit) {
              const rest = chunk.byteLength - from;
              // A CR that ends the chunk may be the first half of the next chunk's CRLF.
              line += rest - (rest > 0 && chunk[chunk.byteLength - 1] === CR ? 1 : 0);
              size += rest;
            }
          }
          if (size > limit) {
            const error = new MessageTooLargeError(size, limit);
            onTooLarge(error);
            controller.error(error);
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
