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
    let lineEmpty = true;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (!eventStream) {
            size += chunk.byteLength;
          } else {
            for (const byte of chunk) {
              if (byte === LF) {
                // A blank line ends an event: the next one starts from nothing.
                if (lineEmpty) size = 0;
                lineEmpty = true;
              } else if (byte !== CR) {
                lineEmpty = false;
                size++;
              }
              if (size > limit) break;
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
