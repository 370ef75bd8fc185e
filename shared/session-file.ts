/**
 * The recorded-session file (`.jsonl`): a header line naming the server as it introduced itself, then
 * one line per JSON-RPC message as the daemon's log carries it (already redacted), and the STDIO
 * server's stderr/stdout lines and a remote server's events that are no JSON-RPC message (the start of
 * each, as `line`). Written by `inspector-daemon record` and the panel's Logs view, read by
 * `replay` and `diff`.
 */
import { exceedsDepth, MAX_MESSAGE_DEPTH } from './json-depth.ts';
import type { RpcLogEntry } from './logs.ts';
import type { ServerRecord } from './servers.ts';

type Json = Record<string, unknown>;

export interface SessionHeader {
  type: 'session';
  version: 1;
  /** What the server said of itself in its `initialize` result, and the name it had in the registry. */
  server: {
    name?: string;
    serverInfo?: ServerRecord['serverInfo'];
    protocolVersion?: string;
    capabilities?: Json;
    instructions?: string;
  };
  recordedAt: string;
}

export type SessionLine =
  | { direction: 'send' | 'receive'; timestamp: string; message: Json }
  | { direction: 'stderr' | 'stdout' | 'event'; timestamp: string; line: string };

export interface Session {
  header: SessionHeader;
  lines: SessionLine[];
}

/** A request the client sent and what the server answered: `result` or `error`. */
export interface Exchange {
  method: string;
  params: Json | undefined;
  result?: Json;
  error?: { code: number; message: string; data?: unknown };
}

export class SessionFileError extends Error {
  override name = 'SessionFileError';
}

/**
 * The header of a session, from a server record or an `initialize` result (they share the field
 * names); `name` is the registry's name of the server.
 */
export function sessionHeader(
  server: Partial<
    Pick<ServerRecord, 'name' | 'serverInfo' | 'protocolVersion' | 'capabilities' | 'instructions'>
  >,
  recordedAt = new Date(),
): SessionHeader {
  const kept: SessionHeader['server'] = {};
  if (server.name) kept.name = server.name;
  if (server.serverInfo) kept.serverInfo = server.serverInfo;
  if (server.protocolVersion) kept.protocolVersion = server.protocolVersion;
  if (server.capabilities) kept.capabilities = server.capabilities;
  if (server.instructions) kept.instructions = server.instructions;
  return { type: 'session', version: 1, server: kept, recordedAt: recordedAt.toISOString() };
}

/** One log entry as a session line (the entry's serverId and seq are not kept). */
export function sessionLine(entry: RpcLogEntry): SessionLine {
  if (entry.direction === 'stderr' || entry.direction === 'stdout' || entry.direction === 'event') {
    return { direction: entry.direction, timestamp: entry.timestamp, line: entry.message };
  }
  return { direction: entry.direction, timestamp: entry.timestamp, message: entry.message };
}

/** The whole file: the header, then one line per log entry, each ending with a newline. */
export function sessionText(header: SessionHeader, entries: readonly RpcLogEntry[]): string {
  return [header, ...entries.map(sessionLine)].map(formatLine).join('');
}

export function formatLine(value: SessionHeader | SessionLine): string {
  return `${JSON.stringify(value)}\n`;
}

/** Reads a session's text; a problem is one SessionFileError naming `source` and the line. */
export function parseSession(text: string, source: string): Session {
  let header: SessionHeader | undefined;
  const lines: SessionLine[] = [];
  // A byte order mark before the first line (some editors write one) is not part of the JSON.
  for (const [index, row] of text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .entries()) {
    if (row.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(row);
    } catch {
      throw new SessionFileError(
        `${source}: line ${index + 1} is not JSON; a session has one JSON object a line`,
      );
    }
    // A line holds a message one level down: nested deeper than any message the daemon passes on, it
    // is refused here, before anything walks it (a walk that deep overflows the stack).
    if (exceedsDepth(value, MAX_MESSAGE_DEPTH + 1)) {
      throw new SessionFileError(
        `${source}: line ${index + 1} nests objects and arrays more than ${MAX_MESSAGE_DEPTH + 1} levels deep`,
      );
    }
    if (header) lines.push(checkLine(value, source, index + 1));
    else header = checkHeader(value, source);
  }
  if (!header) throw new SessionFileError(`${source}: empty; record a session with inspector-daemon record`);
  return { header, lines };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkHeader(value: unknown, source: string): SessionHeader {
  if (!isObject(value) || value.type !== 'session') {
    throw new SessionFileError(
      `${source}: the first line is not a session header ({"type":"session",…}); is this a recorded session?`,
    );
  }
  if (value.version !== 1) {
    throw new SessionFileError(
      `${source}: session version ${String(value.version)} is not known (this reads version 1)`,
    );
  }
  const server = isObject(value.server) ? (value.server as SessionHeader['server']) : {};
  // Replay answers initialize with these: each must be what an InitializeResult holds there.
  const wrong = Object.entries(HEADER_FIELDS).find(([field, fits]) => {
    const given = (server as Json)[field];
    return given !== undefined && !fits(given);
  });
  if (wrong) {
    throw new SessionFileError(
      `${source}: the header's server.${wrong[0]} is not ${HEADER_FIELD_TYPES[wrong[0]]}`,
    );
  }
  return { type: 'session', version: 1, server, recordedAt: String(value.recordedAt ?? '') };
}

const isString = (value: unknown): boolean => typeof value === 'string';
/** The header's fields about the server, and what each must be. */
const HEADER_FIELDS: Record<string, (value: unknown) => boolean> = {
  name: isString,
  protocolVersion: isString,
  instructions: isString,
  capabilities: isObject,
  serverInfo: (value) => isObject(value) && typeof value.name === 'string',
};
const HEADER_FIELD_TYPES: Record<string, string> = {
  name: 'a string',
  protocolVersion: 'a string',
  instructions: 'a string',
  capabilities: 'an object',
  serverInfo: 'an object with a name',
};

function checkLine(value: unknown, source: string, number: number): SessionLine {
  if (isObject(value)) {
    const { direction } = value;
    const timestamp = String(value.timestamp ?? '');
    if ((direction === 'send' || direction === 'receive') && isObject(value.message)) {
      return { direction, timestamp, message: value.message };
    }
    const output = direction === 'stderr' || direction === 'stdout' || direction === 'event';
    if (output && typeof value.line === 'string') {
      return { direction, timestamp, line: value.line };
    }
  }
  throw new SessionFileError(
    `${source}: line ${number} is neither a message ({"direction":"send"|"receive","message":{…}}) nor an output line`,
  );
}

/**
 * The client's requests paired with the server's answers, in the order they were answered. A request id may
 * come back after a reconnect, so an answer belongs to the latest unanswered request with its id.
 * Requests the server sent to the client (sampling, elicitation) are not exchanges.
 */
export function exchanges(session: Pick<Session, 'lines'>): Exchange[] {
  const pending = new Map<string, Exchange>();
  const answered: Exchange[] = [];
  for (const line of session.lines) {
    if (line.direction !== 'send' && line.direction !== 'receive') continue;
    const { message } = line;
    if (message.id === undefined || message.id === null) continue;
    const key = JSON.stringify(message.id);
    if (line.direction === 'send' && typeof message.method === 'string') {
      pending.set(key, {
        method: message.method,
        params: isObject(message.params) ? message.params : undefined,
      });
    } else if (line.direction === 'receive' && message.method === undefined) {
      const exchange = pending.get(key);
      if (!exchange) continue;
      pending.delete(key);
      if (isObject(message.error)) exchange.error = message.error as Exchange['error'];
      else exchange.result = isObject(message.result) ? message.result : {};
      answered.push(exchange);
    }
  }
  return answered;
}
