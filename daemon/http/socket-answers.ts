import {
  type IncomingMessage,
  maxHeaderSize,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../../shared/errors.ts';
import { DaemonError, toErrorResponse } from '../errors.ts';
import { sendError } from './error-middleware.ts';
import { declaredTooLarge, sendTooLarge } from './json-body.ts';

/** How long a refused socket stays open for its client to read the answer and close. */
const REFUSED_SOCKET_LINGER_MS = 2000;

/**
 * Ends a socket that has no answer object (an upgrade request, a request Node could not parse) with the
 * status and error body (SPEC part 7) an HTTP request refused with `code` gets, and closes it.
 */
export function refuseOnSocket(socket: Duplex, code: ErrorCode, message: string, headers = ''): void {
  const { status, body } = toErrorResponse(new DaemonError(code, message), false);
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n${headers}` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
  );
  // What the client still sends is read and dropped (so the answer is not lost to a reset) for a moment:
  // then the socket goes, even if the client never closes its side.
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), REFUSED_SOCKET_LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}

/** Node's parser errors that are no malformed request: the status Node gives them, as the daemon's code. */
const OTHER_FAILURES: Record<string, { code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    code: 'headers_too_large',
    message: `The request line and headers are over Node's limit of ${maxHeaderSize} bytes (HPE_HEADER_OVERFLOW)`,
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    code: 'payload_too_large',
    message: "The request's chunk extensions are over Node's limit (HPE_CHUNK_EXTENSIONS_OVERFLOW)",
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'request_timeout',
    message: 'The request did not arrive in time (ERR_HTTP_REQUEST_TIMEOUT)',
  },
};

/**
 * Every answer Node would give by itself, without the JSON error body every other failure gets (SPEC
 * part 7), is the daemon's own here, so a client always learns what was wrong:
 * - a request Node cannot read as HTTP (a `Content-Length` that is no number, a bad chunk, a stray byte
 *   in the request line, headers over its size limit, a request that does not arrive in time), where
 *   Node sends a bare status; as Node does, a socket whose answer has begun is only closed;
 * - an `Expect` other than `100-continue`, which Node answers with a bare 417;
 * - `CONNECT`, whose socket Node closes without a word: the daemon is no proxy.
 */
export function answerClientErrors(server: Server, bodyLimitBytes: number): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || answering?.headersSent || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const code = error.code ?? 'unknown';
    const other = OTHER_FAILURES[code];
    if (other) refuseOnSocket(socket, other.code, other.message);
    else refuseOnSocket(socket, 'malformed_request', `The request could not be read as HTTP (${code})`);
  });
  // `Expect: 100-continue` asks whether to send the body: not one announced over the limit. Node would
  // answer 100 Continue to every request and have the client send all of it, only to be refused after.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (declaredTooLarge(req, bodyLimitBytes)) {
      // The body was not sent: the connection is closed before it would come after all.
      res.setHeader('Connection', 'close');
      sendTooLarge(req, res, bodyLimitBytes);
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const expect = JSON.stringify(String(req.headers.expect).slice(0, 200));
    sendError(
      res,
      'expectation_failed',
      `Expect: ${expect} is not supported: the daemon meets only the expectation "100-continue"`,
    );
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    // Node has let go of the socket: a client that resets it must not end the daemon.
    socket.on('error', () => socket.destroy());
    // An empty Allow: the tunnel asked for offers no method (RFC 9110, 10.2.1).
    refuseOnSocket(
      socket,
      'method_not_allowed',
      'CONNECT is not supported: the daemon is no proxy',
      'Allow: \r\n',
    );
  });
}
