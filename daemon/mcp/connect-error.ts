import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../../shared/servers.ts';
import { UpstreamError } from '../errors.ts';
import { redact, secretsOf } from './redact.ts';
import { remoteAnswerOf } from './transports/remote-answer.ts';
import type { ExitInfo } from './transports/stdio-transport.ts';

export interface StdioOutcome {
  exit?: ExitInfo;
  stderrTail: string[];
  strayStdoutTail?: string[];
}

const MAX_DETAIL = 400;

const STATUS_HINTS: Record<number, string> = {
  401: "it wants authorization (OAuth or a key): add an Authorization header to the server's headers",
  403: "the credential was refused: check the server's headers",
  404: 'nothing at that path: check the URL (…/mcp for Streamable HTTP, …/sse for SSE) and the transport',
  405: 'the method is not allowed there: the transport may be wrong (SSE vs Streamable HTTP)',
};

/** A URL safe to show: no credentials, no query string (which often carries keys). */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the configured URL';
  }
}

/** An error and its causes as one line, `secrets` masked before it is cut short (so none is cut in two). */
function errorText(error: unknown, secrets: string[]): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    if (current instanceof Error) {
      parts.push(current.message, String((current as NodeJS.ErrnoException).code ?? ''));
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  const text = redact(parts.join(' '), secrets).replace(/\s+/g, ' ').trim();
  // Some failures (a schema dump of an invalid message) run to pages; the first lines say enough.
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}

/** An error and its causes as a sentence for people ("fetch failed: other side closed"), cut short when long. */
export function failureText(error: unknown, secrets: string[] = []): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const message = (current instanceof Error ? current.message : String(current)).trim();
    if (message && !parts.some((part) => part.includes(message))) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  // Masked before it is cut: a secret across the cut would show its first characters.
  const text = redact(parts.join(': '), secrets).replace(/\s+/g, ' ');
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}

function httpStatusOf(error: unknown, text: string): number | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && code >= 100 && code < 600) return code;
  // The SDK's HTTP errors carry the status as data.
  const status = (error as { data?: { status?: unknown } }).data?.status;
  if (typeof status === 'number' && status >= 100 && status < 600) return status;
  const match = /\b(?:status code|HTTP) \(?(\d{3})\)?/i.exec(text);
  return match ? Number(match[1]) : undefined;
}

export function describeExit(exit: ExitInfo): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

export function stderrSuffix(stderrTail: string[]): string {
  const lines = stderrTail.filter((line) => line.trim()).slice(-5);
  return lines.length ? ` Last stderr lines: ${lines.join(' | ')}` : ' It wrote nothing to stderr.';
}

/**
 * Names the lines a STDIO server wrote to stdout that are not JSON-RPC: the usual reason a server that
 * works in a terminal fails as an MCP server (a `console.log` or a banner on stdout).
 */
export function strayStdoutSuffix(lines: string[] | undefined): string {
  if (!lines?.length) return '';
  return ` It wrote to stdout lines that are not JSON-RPC messages (log to stderr instead): ${lines.join(' | ')}`;
}

/**
 * Turns a failed connection into a sentence a developer can act on: the top complaint about existing
 * inspectors is a bare "Connection failed".
 */
export function explainConnectError(
  error: unknown,
  config: ServerConfig,
  timeoutMs: number,
  stdio?: StdioOutcome,
): UpstreamError {
  // An era probe that failed for a reason of its own (no answer, one that cannot be read): that reason.
  const probeCause =
    config.transport !== 'stdio' &&
    error instanceof SdkError &&
    error.code === SdkErrorCode.EraNegotiationFailed &&
    error.cause instanceof Error
      ? error.cause
      : undefined;
  if (probeCause) return explainConnectError(probeCause, config, timeoutMs, stdio);
  const text = errorText(error, secretsOf(config));
  // Said only when nothing more telling (a refused connection, an exit, an HTTP status) explains it.
  const eraFailure = (): UpstreamError | undefined => {
    if (!(error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed)) return undefined;
    const era = config.era ?? 'auto';
    const advice =
      era === 'modern'
        ? 'its era is set to "modern" (2026-07-28 only): set it to "auto" or "legacy" for a server that only initializes'
        : 'set its era to "legacy" to skip the server/discover probe';
    return new UpstreamError(
      `The server and the daemon found no MCP protocol version in common (${text.trim()}); ${advice}.`,
      'ERA_NEGOTIATION_FAILED',
    );
  };
  // The server answered the probe, but not with a version the setting allows: nothing else explains it
  // (a STDIO server stopped by the failed connect must not be blamed for exiting).
  const broken =
    /connection closed|fetch failed|ECONN|ENOTFOUND|EAI_AGAIN/i.test(text) ||
    (config.transport !== 'stdio' && remoteAnswerOf(error) !== undefined);
  if (!broken) {
    const failure = eraFailure();
    if (failure) return failure;
  }
  // The SDK's own time-out: an error of the SDK's, never an answer from the server.
  const sdkTimeout = error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
  if (sdkTimeout) {
    return new UpstreamError(
      `No answer to the MCP handshake within ${timeoutMs / 1000} s: is it an MCP server, and is the transport right?${strayStdoutSuffix(stdio?.strayStdoutTail)}`,
      'CONNECT_TIMEOUT',
    );
  }
  if (config.transport === 'stdio') {
    const command = `"${config.command}"`;
    if (/\bENOENT\b/.test(text)) {
      const where =
        config.cwd && /spawn .* ENOENT/.test(text) ? ' (or the working folder does not exist)' : '';
      return new UpstreamError(
        `Command not found: ${command}${where}. Install it or give its full path; the daemon's PATH is searched.`,
        'COMMAND_NOT_FOUND',
      );
    }
    if (/\bEACCES\b/.test(text)) {
      return new UpstreamError(
        `Permission denied running ${command}: is it executable?`,
        'COMMAND_NOT_EXECUTABLE',
      );
    }
    if (error instanceof ProtocolError) {
      // The server's own answer says why it would not start; that it exited after it says less.
      const exited = stdio?.exit ? ` (the process then ${describeExit(stdio.exit)})` : '';
      const stderr = stdio?.stderrTail.some((line) => line.trim()) ? stderrSuffix(stdio.stderrTail) : '';
      return new UpstreamError(
        `Could not start ${command}: it answered the MCP handshake with error ${error.code}: ${error.message}${exited}.${stderr}`,
        'CONNECT_FAILED',
        { code: error.code },
      );
    }
    if (stdio?.exit) {
      return new UpstreamError(
        `The server process ${describeExit(stdio.exit)} before the MCP handshake finished.${stderrSuffix(stdio.stderrTail)}${strayStdoutSuffix(stdio.strayStdoutTail)}`,
        'PROCESS_EXITED',
        { exitCode: stdio.exit.code, signal: stdio.exit.signal },
      );
    }
    return eraFailure() ?? new UpstreamError(`Could not start ${command}: ${text.trim()}`, 'CONNECT_FAILED');
  }
  if (/\bERR_INVALID_URL\b/.test(text)) {
    // The URL itself is not repeated: it may carry a key, and it could not be parsed to strip one.
    return new UpstreamError(
      `The server's URL cannot be parsed: give a full address such as http://127.0.0.1:3000/mcp.`,
      'INVALID_URL',
    );
  }
  const where = describeUrl(config.url);
  if (/ECONNREFUSED/.test(text)) {
    return new UpstreamError(
      `Connection refused at ${where}: is the server running on that port?`,
      'CONNECTION_REFUSED',
    );
  }
  if (/\bbad port\b/.test(text)) {
    return new UpstreamError(
      `The port of ${where} is one the HTTP client refuses to connect to (a "bad port" of the Fetch standard, such as 1, 25 or 6000): run the server on another port.`,
      'BAD_PORT',
    );
  }
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) {
    return new UpstreamError(`Host not found: ${where}`, 'HOST_NOT_FOUND');
  }
  // What the server answered instead of JSON-RPC, in its own words (remote-answer.ts).
  const answer = remoteAnswerOf(error, secretsOf(config));
  if (answer && answer.code !== 'HTTP_STATUS') {
    return new UpstreamError(`${answer.message} (the handshake at ${where}).`, answer.code, answer.data);
  }
  const status = httpStatusOf(error, text);
  if (status !== undefined) {
    const hint =
      STATUS_HINTS[status] ?? (status >= 500 ? 'the server failed' : 'check the URL and transport');
    const said = answer?.body ? ` It said: ${answer.body}` : '';
    return new UpstreamError(
      `The server answered HTTP ${status} at ${where}: ${hint}.${said}`,
      'HTTP_STATUS',
      {
        status,
      },
    );
  }
  return eraFailure() ?? new UpstreamError(`Could not connect to ${where}: ${text.trim()}`, 'CONNECT_FAILED');
}
