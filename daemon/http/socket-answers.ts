import { type Server, STATUS_CODES } from 'node:http';
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

/** Node's parser errors whose status is not 400, answered as Node answers them (no code of SPEC part 7 has it). */
const OTHER_STATUS: Record<string, number> = { HPE_HEADER_OVERFLOW: 431, ERR_HTTP_REQUEST_TIMEOUT: 408 };

/** Parser errors that mean a body part over a limit: 413, as a body over the size limit. */
const TOO_LARGE = new Set(['HPE_CHUNK_EXTENSIONS_OVERFLOW']);

/**
 * A request Node cannot read as HTTP (a `Content-Length` that is no number, a bad chunk, a stray byte in
 * the request line) gets the JSON error body every other failure gets, where Node would send a bare
 * status: a client sees what was wrong. As Node does, a socket whose answer has begun is only closed.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || answering?.headersSent || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const code = error.code ?? 'unknown';
    const other = OTHER_STATUS[code];
    if (other !== undefined) {
      socket.end(`HTTP/1.1 ${other} ${STATUS_CODES[other]}\r\nConnection: close\r\n\r\n`);
    } else if (TOO_LARGE.has(code)) {
      refuseOnSocket(
        socket,
        'payload_too_large',
        `The request's chunk extensions are over Node's limit (${code})`,
      );
    } else {
      refuseOnSocket(socket, 'malformed_request', `The request could not be read as HTTP (${code})`);
    }
  });
}
