import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { type JSONRPCMessage, serializeMessage, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { StdioServerConfig } from '../../../shared/servers.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from './message-limit.ts';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export { DEFAULT_MAX_MESSAGE_BYTES };
/** Bytes of one stderr line that are kept; the rest is counted and noted. */
export const STDERR_LINE_CAP = 8 * 1024;

const STDERR_TAIL_LINES = 20;
const STDOUT_TAIL_LINES = 5;
const GRACE_MS = 2000;
const GROUP_POLL_MS = 50;
const PREVIEW_CHARS = 200;
/**
 * Set in a STDIO server's environment to a value of its own, and inherited by every process it starts:
 * one that leaves the server's process group (setsid, a daemonising fork) is still found by it, on Linux.
 */
const SERVER_MARK_VARIABLE = 'MCP_INSPECTOR_SERVER_RUN';
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/** The bytes JSON takes as blank before a value: space, tab, line feed, carriage return. */
function isBlank(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

export interface StdioTransportOptions {
  /** Each line the server writes to stderr, at most STDERR_LINE_CAP bytes of it. */
  onStderrLine?: (line: string) => void;
  /**
   * Each line the server writes to stdout that is not a JSON-RPC message (a stray `console.log`, a
   * banner), cut to a preview: such lines break other MCP clients, so they are shown, not dropped.
   */
  onStdoutLine?: (line: string) => void;
  /** A message (one stdout line) longer than this resets the connection; default 64 MiB. */
  maxMessageBytes?: number;
  /** An HTTP or SSE server's message passed `maxMessageBytes` (its body fails with this error too). */
  onMessageTooLarge?: (error: MessageTooLargeError) => void;
}

/** A byte count as people read it: whole MiB or KiB when it is one, bytes otherwise. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString('en-US')} bytes`;
}

/** A stdout line from the server that grew past the message size limit before it ended. */
export class MessageTooLargeError extends Error {
  override name = 'MessageTooLargeError';
  readonly code = 'MESSAGE_TOO_LARGE';
  constructor(
    /**
     * Bytes of the message read when it passed the limit: it is at least this long. Unknown for a
     * WebSocket frame, refused by the length its header gives before any of it is read.
     */
    readonly received: number | undefined,
    readonly limit: number,
  ) {
    super(
      received === undefined
        ? `The server sent a message larger than the daemon's limit of ${formatBytes(limit)} (option maxMessageBytes)`
        : `The server sent a message of more than ${formatBytes(limit)} (${received.toLocaleString('en-US')} bytes had arrived without its end), ` +
            `past the daemon's limit of ${formatBytes(limit)} (option maxMessageBytes)`,
    );
  }

  get data(): { received?: number; limit: number } {
    return this.received === undefined
      ? { limit: this.limit }
      : { received: this.received, limit: this.limit };
  }
}

/**
 * The server stopped reading its stdin while messages for it kept coming (its own requests answered, say):
 * what waited for it passed the message size limit. Held in memory without end, it took a daemon past 4 GB.
 */
export class InputNotReadError extends Error {
  override name = 'InputNotReadError';
  readonly code = 'INPUT_NOT_READ';
  constructor(
    /** Bytes written to the server's stdin that it had not read. */
    readonly queued: number,
    readonly limit: number,
  ) {
    super(
      `The server stopped reading its input: ${queued.toLocaleString('en-US')} bytes of messages for it were waiting, ` +
        `past the daemon's limit of ${formatBytes(limit)} (option maxMessageBytes)`,
    );
  }

  get data(): { queued: number; limit: number } {
    return { queued: this.queued, limit: this.limit };
  }
}

/**
 * Splits a byte stream into newline-delimited lines. The pieces of an unfinished line are kept as a
 * list and joined once when its newline arrives, and only new bytes are searched for the newline, so a
 * large message costs its own size, not its size squared. A line that grows past `limit` throws as
 * soon as it does, before the rest of it is read.
 */
export class LineReader {
  private pieces: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer, onLine: (line: Buffer) => void): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const stop = newline === -1 ? chunk.length : newline;
      const length = this.size + (stop - start);
      if (length > this.limit) {
        this.pieces = [];
        this.size = 0;
        throw new MessageTooLargeError(length, this.limit);
      }
      if (newline === -1) {
        this.pieces.push(chunk.subarray(start));
        this.size = length;
        return;
      }
      const tail = chunk.subarray(start, newline);
      const line = this.pieces.length === 0 ? tail : Buffer.concat([...this.pieces, tail], length);
      this.pieces = [];
      this.size = 0;
      start = newline + 1;
      onLine(line);
    }
  }
}

/**
 * Cuts stderr into lines of at most `cap` bytes each: the rest of a longer line is counted, never
 * buffered, and noted as `… (N more bytes)`.
 */
class StderrLines {
  private pieces: Buffer[] = [];
  private kept = 0;
  private dropped = 0;

  constructor(
    private readonly cap: number,
    private readonly onLine: (line: string) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const stop = newline === -1 ? chunk.length : newline;
      const keep = Math.max(0, Math.min(stop - start, this.cap - this.kept));
      if (keep > 0) {
        this.pieces.push(chunk.subarray(start, start + keep));
        this.kept += keep;
      }
      this.dropped += stop - start - keep;
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  flush(): void {
    if (this.kept > 0 || this.dropped > 0) this.endLine();
  }

  private endLine(): void {
    const bytes = Buffer.concat(this.pieces, this.kept);
    let dropped = this.dropped;
    let line: string;
    if (dropped === 0) {
      line = bytes.toString('utf8').replace(/\r$/, '');
    } else {
      // The cut may fall inside a character: the decoder holds its first bytes back, and they count as cut.
      line = new StringDecoder('utf8').write(bytes);
      dropped += bytes.length - Buffer.byteLength(line);
      line += ` … (${dropped.toLocaleString('en-US')} more bytes)`;
    }
    this.pieces = [];
    this.kept = 0;
    this.dropped = 0;
    this.onLine(line);
  }
}

/** Signals a process group; false when nothing of it is left (or it is no longer ours to signal). */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    // ESRCH: the group is empty; EPERM: what is left is not ours.
    return false;
  }
}

/**
 * Enough to tell a JSON-RPC message from any other line a server prints. The SDK's protocol layer checks
 * each message against the exact schemas of a request, a notification and a response (and reports one
 * that is none of them), so parsing it against the union of those schemas here as well, as the SDK's own
 * STDIO transport does, would check every message twice. An object with a method and an id is a request
 * even when its `jsonrpc` is not "2.0": it is passed on, to be answered with an error saying so
 * (LoggingTransport), where a stray line would leave the server waiting for its answer for ever.
 */
export function isJsonRpcShaped(value: unknown): value is JSONRPCMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return (value as { jsonrpc?: unknown }).jsonrpc === '2.0' || ('method' in value && 'id' in value);
}

/** A JSON-RPC batch: an array of one or more messages (MCP 2025-03-26 had them; 2025-06-18 dropped them). */
export function isJsonRpcBatch(value: unknown): value is JSONRPCMessage[] {
  return Array.isArray(value) && value.length > 0 && value.every(isJsonRpcShaped);
}

/**
 * STDIO transport that, unlike the SDK's, remembers how the child ended and what it last wrote to
 * stderr (so a failed start can be explained), reads messages of any size up to a limit without
 * quadratic copying, caps stderr lines, and runs the child in its own process group so that its end
 * also ends what it spawned (`npx` → node, helpers with their stdio ignored): no orphans.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  exit?: ExitInfo;
  /** Why the daemon reset the connection itself (a message past the size limit, input not read), if it did. */
  failure?: MessageTooLargeError | InputNotReadError;
  readonly stderrTail: string[] = [];
  /** The last stdout lines that were not JSON-RPC messages, previewed. */
  readonly strayStdoutTail: string[] = [];
  private child?: ChildProcess;
  private readonly lines: LineReader;
  private readonly stderr: StderrLines;
  /** Settles once nothing is left of the child's process group, nor of what carries its mark. */
  private groupGone?: Promise<void>;
  /** This run's value of SERVER_MARK_VARIABLE. */
  private readonly mark = randomBytes(12).toString('hex');

  constructor(
    private readonly config: StdioServerConfig,
    private readonly options: StdioTransportOptions = {},
  ) {
    this.lines = new LineReader(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    this.stderr = new StderrLines(STDERR_LINE_CAP, (line) => this.pushStderr(line));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      // Only the SDK's short list of safe variables is inherited, never the daemon's own environment
      // (which may hold INSPECTOR_TOKEN), plus what the server's config sets.
      const child = spawn(this.config.command, this.config.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.config.env, [SERVER_MARK_VARIABLE]: this.mark },
        cwd: this.config.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        // What the child spawned into its group does not hold our pipes, so nothing else waits for it.
        if (child.pid !== undefined && process.platform !== 'win32') {
          this.groupGone = endGroup(child.pid, this.mark);
        }
      });
      child.once('close', () => {
        this.stderr.flush();
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.takeStdout(chunk));
      child.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    });
  }

  /**
   * Writes the message to the server's stdin. What the server has not read yet waits in memory, and no
   * more than the message size limit of it: past that, the server is taken for one that stopped reading
   * (it is stopped and the connection reset). A message is sent once it is queued, without waiting for
   * the server to read it: one `drain` listener a message piled up by the million under a flood.
   */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || this.failure) return Promise.reject(new Error('Not connected'));
    const limit = this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (stdin.writableLength > limit) {
      this.fail(new InputNotReadError(stdin.writableLength, limit));
      return Promise.reject(this.failure);
    }
    stdin.write(serializeMessage(message));
    return Promise.resolve();
  }

  /** Ends stdin and waits; then SIGTERM, then SIGKILL to the process group; then waits for the group. */
  async close(): Promise<void> {
    const child = this.child;
    if (child) {
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const settle = (ms: number) =>
        Promise.race([
          closed.then(() => true),
          new Promise<boolean>((r) => setTimeout(r, ms, false).unref()),
        ]);
      let done = false;
      if (!this.failure) {
        child.stdin?.end();
        done = await settle(GRACE_MS);
      }
      if (!done) {
        this.signal(child, 'SIGTERM');
        done = await settle(GRACE_MS);
      }
      if (!done) {
        this.signal(child, 'SIGKILL');
        await settle(GRACE_MS);
      }
    }
    await this.groupGone;
  }

  private signal(child: ChildProcess, signal: NodeJS.Signals): void {
    // A negative pid signals the whole process group the child leads.
    if (child.pid && process.platform !== 'win32') signalGroup(child.pid, signal);
    else child.kill(signal);
  }

  private takeStdout(chunk: Buffer): void {
    if (this.failure) return;
    try {
      this.lines.push(chunk, (line) => this.takeLine(line));
    } catch (error) {
      if (!(error instanceof MessageTooLargeError)) throw error;
      // The rest of that message is not read: the server is stopped and the connection reset.
      this.fail(error);
    }
  }

  /** The daemon gives up on the server: it is stopped, and the connection reset with this reason. */
  private fail(error: MessageTooLargeError | InputNotReadError): void {
    if (this.failure) return;
    this.failure = error;
    this.child?.stdout?.destroy();
    this.onerror?.(error);
    void this.close();
  }

  private takeLine(bytes: Buffer): void {
    // A line ending in CRLF: the CR goes before decoding, not by a search through a decoded multi-MiB string.
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    let start = 0;
    // A byte order mark before the message (written by some runtimes at the start of their output) is
    // ignored, as JSON parsers may (RFC 8259 section 8.1).
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    while (start < end && isBlank(bytes[start] as number)) start++;
    if (start === end) return;
    // Every JSON-RPC message is an object, or a batch of them in an array: any other line is not parsed
    // at all (a failed parse throws, which costs more than everything else a line does, and a server
    // printing in a loop prints many).
    if (bytes[start] !== OPEN_BRACE && bytes[start] !== OPEN_BRACKET) {
      this.strayLine(bytes, end);
      return;
    }
    const line = bytes.toString('utf8', start, end);
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (!isJsonRpcShaped(message) && !isJsonRpcBatch(message)) {
      this.strayLine(bytes, end);
      return;
    }
    try {
      // A batch goes on as it came: the logging transport logs its messages and answers for it.
      this.onmessage?.(message as JSONRPCMessage);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  /** A stdout line that is no JSON-RPC message: its first PREVIEW_CHARS characters, decoded alone. */
  private strayLine(bytes: Buffer, end: number): void {
    // PREVIEW_CHARS characters take at most 4 bytes each: a longer line has more characters than that.
    const decoded = bytes.toString('utf8', 0, Math.min(end, PREVIEW_CHARS * 4));
    const preview =
      end > PREVIEW_CHARS * 4 || decoded.length > PREVIEW_CHARS
        ? `${decoded.slice(0, PREVIEW_CHARS)}…`
        : decoded;
    this.strayStdoutTail.push(preview);
    if (this.strayStdoutTail.length > STDOUT_TAIL_LINES) this.strayStdoutTail.shift();
    this.options.onStdoutLine?.(preview);
  }

  private pushStderr(line: string): void {
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
    this.options.onStderrLine?.(line);
  }
}

/**
 * What is left of a server's start, on Linux: whether anything still runs in its process group, and the
 * processes outside it that carry its mark (SERVER_MARK_VARIABLE=mark) in their environment, wherever
 * they went. An ended process stays visible to `kill(-pgid, 0)` until init reaps it, which can take a
 * while: such zombies do not count. A process of another user, or one that cleared its environment, is
 * not found. Elsewhere undefined: there only the group can be asked, by signal.
 */
async function leftOf(pgid: number, mark: string): Promise<{ group: boolean; strays: number[] } | undefined> {
  if (process.platform !== 'linux') return undefined;
  const needle = Buffer.from(`${SERVER_MARK_VARIABLE}=${mark}\0`);
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return undefined;
  }
  const found = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
      .map(async (name): Promise<'group' | number | undefined> => {
        try {
          const stat = await readFile(`/proc/${name}/stat`, 'utf8');
          // After the command name in parentheses: state, ppid, pgrp, …
          const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          if (state === 'Z' || state === 'X') return undefined;
          if (Number(pgrp) === pgid) return 'group';
          return (await readFile(`/proc/${name}/environ`)).includes(needle) ? Number(name) : undefined;
        } catch {
          return undefined; // ended while we looked, or not ours to read
        }
      }),
  );
  return {
    group: found.includes('group'),
    strays: found.filter((pid) => typeof pid === 'number'),
  };
}

function signalEach(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // ended meanwhile
    }
  }
}

/**
 * After the child has exited, ends the rest of its process group and the processes outside it that carry
 * its mark (SERVER_MARK_VARIABLE): SIGTERM, and SIGKILL to what is still running after the grace period.
 * The SIGKILL goes to the strays found in the last look, so a process id used again since is not hit.
 */
async function endGroup(pgid: number, mark: string): Promise<void> {
  const grouped = signalGroup(pgid, 'SIGTERM');
  let left = await leftOf(pgid, mark);
  if (!grouped && !left?.strays.length) return;
  signalEach(left?.strays ?? [], 'SIGTERM');
  const deadline = Date.now() + GRACE_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
    left = await leftOf(pgid, mark);
    const running = left ? left.group || left.strays.length > 0 : signalGroup(pgid, 0);
    if (!running) return;
  }
  signalGroup(pgid, 'SIGKILL');
  signalEach(left?.strays ?? [], 'SIGKILL');
}
