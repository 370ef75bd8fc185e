import { maxHeaderSize, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../../shared/errors.ts';
import { DaemonError, toErrorResponse } from '../errors.ts';

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
 * A request Node cannot read as HTTP (a `Content-Length` that is no number, a bad chunk, a stray byte in
 * the request line, headers over its size limit, a request that does not arrive in time) gets the JSON
 * error body every other failure gets, where Node would send a bare status: a client sees what was
 * wrong. As Node does, a socket whose answer has begun is only closed.
 */
export function answerClientErrors(server: Server): void {
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
}
