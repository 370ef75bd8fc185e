import { randomUUID } from 'node:crypto';
import type { RpcLogEntry } from '../../shared/logs.ts';
import { stringifyEntry } from './serialise.ts';
import { TextArena } from './text-arena.ts';

type Listener = (entry: RpcLogEntry) => void;
type Unsequenced = RpcLogEntry extends infer E ? (E extends RpcLogEntry ? Omit<E, 'seq'> : never) : never;
/** Turns an entry into what may be shown: the publisher's secrets replaced. */
export type Redactor = (entry: RpcLogEntry) => RpcLogEntry;

let lastMs = 0;
let lastIso = '';

/**
 * The current time as an entry's ISO 8601 timestamp. A call's request and answer, or a burst of
 * notifications, mostly fall in the same millisecond: that one is formatted once.
 */
export function logTimestamp(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

/** What the log buffer may hold of messages, about, by default (option `logBufferBytes`). */
export const DEFAULT_LOG_BUFFER_BYTES = 128 * 1024 * 1024;

/** What an entry costs beside its message: the entry object, its fields, the ring's slots. */
const ENTRY_OVERHEAD = 160;
/** What a JSON object or array costs beside its contents, and each of its members. */
const NODE_OVERHEAD = 32;
const MEMBER_OVERHEAD = 8;

/**
 * About how many bytes a parsed JSON value holds in memory: the characters of its strings and keys, and
 * a fixed cost per member and per object or array. Iterative: a message is at most MAX_MESSAGE_DEPTH deep.
 */
export function jsonWeight(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return MEMBER_OVERHEAD;
  let weight = 0;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const current = stack.pop() as object;
    weight += NODE_OVERHEAD;
    if (Array.isArray(current)) {
      for (const child of current as unknown[]) {
        weight += MEMBER_OVERHEAD;
        if (typeof child === 'string') weight += child.length;
        else if (child !== null && typeof child === 'object') stack.push(child);
      }
    } else {
      for (const key in current) {
        const child = (current as Record<string, unknown>)[key];
        weight += MEMBER_OVERHEAD + key.length;
        if (typeof child === 'string') weight += child.length;
        else if (child !== null && typeof child === 'object') stack.push(child);
      }
    }
  }
  return weight;
}

function entryWeight(entry: RpcLogEntry): number {
  return (
    ENTRY_OVERHEAD +
    jsonWeight(entry.message) +
    (entry.type === 'rpc' && 'headers' in entry ? jsonWeight(entry.headers) : 0)
  );
}

const MIB = 1024 * 1024;

function formatSize(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * What the buffer keeps of an entry past `limit`: a message's envelope (`envelopeOf`) and why the rest
 * is gone, or the start of a line. Subscribers listening when it was published had it whole.
 */
function keptOf(entry: RpcLogEntry, weight: number, limit: number): RpcLogEntry {
  const reason =
    `This message is about ${formatSize(weight)}, more than the log keeps of one message ` +
    `(${formatSize(limit)}, a quarter of option logBufferBytes): it was shown live only.`;
  if (typeof entry.message === 'string') {
    const cut = entry.message.length - limit;
    return {
      ...entry,
      message: `${entry.message.slice(0, limit)} … (${cut.toLocaleString('en-US')} more characters not kept)`,
    } as RpcLogEntry;
  }
  return {
    ...entry,
    message: { ...clipped(envelopeOf(entry.message)), _inspector: { truncated: true, reason } },
  } as RpcLogEntry;
}

/**
 * What pairs a JSON-RPC message with its request and tells its status: jsonrpc, id, method, an error's
 * code and message. Its values are whole: `clipped` bounds them once any secret in them is masked.
 */
function envelopeOf(message: Record<string, unknown>): Record<string, unknown> {
  const envelope: Record<string, unknown> = { jsonrpc: message.jsonrpc ?? '2.0' };
  if ('id' in message) envelope.id = message.id;
  if (typeof message.method === 'string') envelope.method = message.method;
  const error = message.error as { code?: unknown; message?: unknown } | null | undefined;
  if (error !== undefined) {
    envelope.error =
      error !== null && typeof error === 'object' ? { code: error.code, message: error.message } : error;
  }
  return envelope;
}

/**
 * A value of an envelope, bounded: a number, boolean or null as it is, a string cut to `length`, and
 * anything else (which JSON-RPC does not allow there, and a server may send anyway) as the start of its
 * JSON. The same value always gives the same result, so a request and its response cut alike still pair.
 */
function bounded(value: unknown, length: number): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > length ? text.slice(0, length) : text;
}

/** An envelope with each of its values bounded: a cut entry is small whatever the message held. */
function clipped(envelope: Record<string, unknown>): Record<string, unknown> {
  const short: Record<string, unknown> = { jsonrpc: bounded(envelope.jsonrpc, 20) };
  if ('id' in envelope) short.id = bounded(envelope.id, 1000);
  if ('method' in envelope) short.method = bounded(envelope.method, 200);
  const error = envelope.error as { code?: unknown; message?: unknown } | null | undefined;
  if (error !== null && typeof error === 'object') {
    short.error = { code: bounded(error.code, 100), message: bounded(error.message, 1000) };
  } else if (error !== undefined) {
    short.error = bounded(error, 1000);
  }
  return short;
}

/** How many characters of a line a replay keeps of one it sends cut (a stderr line). */
const CUT_LINE_CHARS = 2000;

/**
 * An entry as a replay sends it when it is too big to send whole: its message's envelope, or the start
 * of a line, and `cut` saying how many bytes its JSON is (`LogBus.entry` has it whole). Redacted before it
 * is cut, so a secret across the cut is still masked.
 */
function cutOf(entry: RpcLogEntry, bytes: number, bootId: string, redact: Redactor | undefined): RpcLogEntry {
  const short = (
    typeof entry.message === 'string' ? entry : { ...entry, message: envelopeOf(entry.message) }
  ) as RpcLogEntry;
  const safe = redact ? redact(short) : short;
  const message =
    typeof safe.message === 'string' ? safe.message.slice(0, CUT_LINE_CHARS) : clipped(safe.message);
  return { ...safe, message, cut: { weight: bytes, bootId } } as RpcLogEntry;
}

/**
 * What a replay sends whole (`LogBus.replayJsonSince`), by the bytes of an entry's JSON; the rest it sends
 * cut, to be fetched one at a time.
 */
export interface ReplayLimits {
  /** An entry of up to this many bytes is always sent whole. */
  small: number;
  /** An entry of more never is. */
  large: number;
  /** The entries between the two are sent whole, newest first, while their bytes sum to at most this. */
  total: number;
}

export const REPLAY_LIMITS: ReplayLimits = { small: 16 * 1024, large: 1024 * 1024, total: 8 * 1024 * 1024 };

/**
 * In-process bus of JSON-RPC log entries with a bounded ring buffer for replay and resume.
 *
 * The buffer holds at most `capacity` entries and about `byteBudget` bytes of them: past either, the
 * oldest go. One entry larger than a quarter of the budget is kept as a placeholder saying so (its
 * subscribers had it whole), so a server's large messages can never grow the daemon without bound.
 *
 * Every message of every call is published, but most are never read: redacting one (a walk of the whole
 * message) is put off until someone does read it, as a subscriber when it is published or later through
 * `since`/`last`. Whoever reads gets it redacted; nothing else sees the entry.
 */
export class LogBus {
  /**
   * The entries held as objects: each for the turn of the event loop it was published in, and one read
   * back until the next. After that it is kept as JSON text in `arena`, outside the JavaScript heap
   * (text-arena.ts), at `chunks`, `offsets` and `lengths`.
   */
  private readonly ring: (RpcLogEntry | undefined)[];
  private readonly arena = new TextArena();
  /** The arena chunk of the entry in the same slot, when it is kept as text; -1 otherwise. */
  private readonly chunks: Int32Array;
  private readonly offsets: Int32Array;
  private readonly lengths: Int32Array;
  /** Slots whose entries are still objects, to be put in the arena once the current turn is over. */
  private unpacked: number[] = [];
  private packing?: NodeJS.Immediate;
  /** The sequence number of the entry in the same slot (0: none). */
  private readonly seqs: Float64Array;
  /** The redactor still owed by the entry in the same slot of `ring`, if any. */
  private readonly owed: (Redactor | undefined)[];
  /** The weight (about its bytes) of the entry in the same slot of `ring`. */
  private readonly weights: Float64Array;
  /** The entry in the same slot as a replay sends it cut (redacted), when its JSON is over `replayLimits.small` bytes. */
  private readonly cuts: (RpcLogEntry | undefined)[];
  /** The server of the entry in the same slot: a replay for some servers picks entries without reading them. */
  private readonly servers: (string | undefined)[];
  /** The weights of the entries held, summed. */
  private held = 0;
  /** No entry older than this one is held. */
  private oldest = 1;
  private nextSeq = 1;
  private readonly listeners = new Set<Listener>();
  /** The largest entry kept whole. */
  readonly entryLimit: number;
  /** This run's: sequence numbers start again with the next (the live channel's `hello` says it). */
  readonly bootId = randomUUID();

  constructor(
    readonly capacity = 10_000,
    readonly byteBudget = DEFAULT_LOG_BUFFER_BYTES,
    readonly replayLimits: ReplayLimits = REPLAY_LIMITS,
  ) {
    this.ring = new Array(capacity);
    this.owed = new Array(capacity);
    this.cuts = new Array(capacity);
    this.servers = new Array(capacity);
    this.weights = new Float64Array(capacity);
    this.seqs = new Float64Array(capacity);
    this.chunks = new Int32Array(capacity).fill(-1);
    this.offsets = new Int32Array(capacity);
    this.lengths = new Int32Array(capacity);
    this.entryLimit = Math.floor(byteBudget / 4);
  }

  publish(entry: Unsequenced, redact?: Redactor): RpcLogEntry {
    let sequenced = { ...entry, seq: this.nextSeq++ } as RpcLogEntry;
    if (redact && this.listeners.size > 0) {
      sequenced = redact(sequenced);
      redact = undefined;
    }
    this.keep(sequenced, redact);
    for (const listener of this.listeners) listener(sequenced);
    return sequenced;
  }

  /** Puts an entry in the ring, dropping the oldest entries past the capacity or the byte budget. */
  private keep(entry: RpcLogEntry, redact: Redactor | undefined): void {
    let weight = entryWeight(entry);
    if (weight > this.entryLimit) {
      // Redacted before it is cut: a secret cut in two would no longer be found.
      if (redact) entry = redact(entry);
      redact = undefined;
      entry = keptOf(entry, weight, this.entryLimit);
      weight = entryWeight(entry);
    }
    const slot = entry.seq % this.capacity;
    if (this.seqs[slot] !== 0) this.held -= this.weights[slot] ?? 0;
    this.hold(slot, entry);
    this.owed[slot] = redact;
    this.servers[slot] = entry.serverId;
    this.weights[slot] = weight;
    this.seqs[slot] = entry.seq;
    this.held += weight;
    this.oldest = Math.max(this.oldest, entry.seq - this.capacity + 1);
    while (this.held > this.byteBudget && this.oldest < entry.seq) this.drop(this.oldest++);
  }

  /** Puts an entry in its slot as an object, in place of what was there; it goes to the arena after the turn. */
  private hold(slot: number, entry: RpcLogEntry): void {
    this.release(slot);
    this.ring[slot] = entry;
    this.unpacked.push(slot);
    this.packing ??= setImmediate(() => this.pack());
  }

  /** Lets go of a slot's entry, object or text. */
  private release(slot: number): void {
    const chunk = this.chunks[slot] as number;
    if (chunk >= 0) this.arena.free(chunk);
    this.chunks[slot] = -1;
    this.ring[slot] = undefined;
    this.cuts[slot] = undefined;
  }

  /** Packs now what waits for the end of the turn (a replay reads the arena). */
  private packNow(): void {
    if (!this.packing) return;
    clearImmediate(this.packing);
    this.pack();
  }

  /** Puts the entries held as objects since the last time in the arena, as JSON text. */
  private pack(): void {
    this.packing = undefined;
    const slots = this.unpacked;
    this.unpacked = [];
    for (const slot of slots) {
      const entry = this.ring[slot];
      if (entry === undefined) continue;
      const placed = this.arena.put(JSON.stringify(entry));
      this.chunks[slot] = placed.chunk;
      this.offsets[slot] = placed.offset;
      this.lengths[slot] = placed.length;
      this.ring[slot] = undefined;
      // Its size as a replay would send it, in bytes: a string of control characters or of CJK weighs a
      // third to a sixth of what it takes as JSON in UTF-8.
      if (placed.length > this.replayLimits.small && this.cuts[slot] === undefined) {
        this.cuts[slot] = cutOf(entry, placed.length, this.bootId, this.owed[slot]);
      }
    }
  }

  /** The entry in a slot, parsed from the arena when it is kept there. */
  private entryAt(slot: number): RpcLogEntry {
    const entry = this.ring[slot];
    if (entry !== undefined) return entry;
    const text = this.arena.text(
      this.chunks[slot] as number,
      this.offsets[slot] as number,
      this.lengths[slot] as number,
    );
    return JSON.parse(text) as RpcLogEntry;
  }

  private drop(seq: number): void {
    const slot = seq % this.capacity;
    if (this.seqs[slot] !== seq) return;
    this.held -= this.weights[slot] ?? 0;
    this.release(slot);
    this.owed[slot] = undefined;
    this.servers[slot] = undefined;
    this.seqs[slot] = 0;
  }

  /** About how many bytes the entries held weigh (what `byteBudget` bounds). */
  get heldBytes(): number {
    return this.held;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** The last sequence number given out (0 before the first entry). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Entries with a sequence number above `seq` that are still in the buffer, oldest first. */
  since(seq: number): RpcLogEntry[] {
    const entries: RpcLogEntry[] = [];
    for (let s = Math.max(seq + 1, this.oldest); s < this.nextSeq; s++) {
      const slot = s % this.capacity;
      if (this.seqs[slot] === s) entries.push(this.readAt(slot));
    }
    return entries;
  }

  /** The last `count` entries, oldest first. */
  last(count: number): RpcLogEntry[] {
    return this.since(this.lastAfter(count));
  }

  /**
   * As `since`, each entry as its JSON, for a client that shows the log (the live channel): entries too
   * big to send whole within `replayLimits` come cut (`cutOf`), and the client fetches one whole with
   * `entry` when asked to. The newest are the likeliest to be looked at, so the budget goes to them
   * first. An entry kept as text and owing no redaction is that text as it is, never parsed and written
   * again: many pages opening at once cost a copy each.
   */
  replayJsonSince(seq: number): Buffer[] {
    return this.replaySlots(seq).map(({ slot, cut }) =>
      cut ? Buffer.from(stringifyEntry(this.cuts[slot] as RpcLogEntry)) : this.jsonAt(slot),
    );
  }

  /**
   * As `since`, each entry whole as its JSON, with its number, for the Server-Sent Events stream; only
   * those of `serverIds` when given. An entry kept as text and owing no redaction is its bytes as kept,
   * not parsed and written again, nor copied: many streams replaying at once cost no more memory.
   */
  wholeJsonSince(seq: number, serverIds?: ReadonlySet<string>): Array<{ seq: number; json: Buffer }> {
    const entries: Array<{ seq: number; json: Buffer }> = [];
    for (let s = Math.max(seq + 1, this.oldest); s < this.nextSeq; s++) {
      const slot = s % this.capacity;
      if (this.seqs[slot] !== s) continue;
      if (serverIds && !serverIds.has(this.servers[slot] as string)) continue;
      entries.push({ seq: s, json: this.jsonAt(slot) });
    }
    return entries;
  }

  /** As `wholeJsonSince`, the last `count`. */
  wholeJsonLast(count: number, serverIds?: ReadonlySet<string>): Array<{ seq: number; json: Buffer }> {
    return this.wholeJsonSince(this.lastAfter(count), serverIds);
  }

  /**
   * The entry in a slot as its JSON, redacted: the bytes the arena keeps. One that owes its redaction, or
   * is still an object this turn, is redacted and put in the arena first, so that every replay (many
   * streams opening at once) shares those bytes rather than holding a copy each.
   */
  private jsonAt(slot: number): Buffer {
    if (this.owed[slot] || (this.chunks[slot] as number) < 0) {
      this.readAt(slot);
      this.packNow();
    }
    const chunk = this.chunks[slot] as number;
    if (chunk >= 0)
      return this.arena.bytes(chunk, this.offsets[slot] as number, this.lengths[slot] as number);
    return Buffer.from(stringifyEntry(this.readAt(slot)));
  }

  /** As `replayJsonSince`, the last `count`. */
  replayJsonLast(count: number): Buffer[] {
    return this.replayJsonSince(this.lastAfter(count));
  }

  /** The slots of the entries after `seq`, oldest first, and which a replay sends cut. */
  private replaySlots(seq: number): Array<{ slot: number; cut: boolean }> {
    // Entries of this turn are measured (and cut) as they are put in the arena: now, for this replay.
    this.packNow();
    const { small, large, total } = this.replayLimits;
    const first = Math.max(seq + 1, this.oldest);
    const cut = new Set<number>();
    let budget = total;
    for (let s = this.nextSeq - 1; s >= first; s--) {
      const slot = s % this.capacity;
      const bytes = this.lengths[slot] as number;
      if (this.seqs[slot] !== s || bytes <= small) continue;
      if (bytes <= large && bytes <= budget) budget -= bytes;
      else cut.add(s);
    }
    const slots: Array<{ slot: number; cut: boolean }> = [];
    for (let s = first; s < this.nextSeq; s++) {
      const slot = s % this.capacity;
      if (this.seqs[slot] === s) slots.push({ slot, cut: cut.has(s) && this.cuts[slot] !== undefined });
    }
    return slots;
  }

  /** The entry `seq`, whole and redacted, while the buffer holds it. */
  entry(seq: number): RpcLogEntry | undefined {
    if (!Number.isSafeInteger(seq) || seq < this.oldest || seq >= this.nextSeq) return undefined;
    const slot = seq % this.capacity;
    return this.seqs[slot] === seq ? this.readAt(slot) : undefined;
  }

  private lastAfter(count: number): number {
    return this.nextSeq - 1 - Math.max(0, count);
  }

  /** The entry in a slot, redacted (once: the redacted entry takes the place of the one kept). */
  private readAt(slot: number): RpcLogEntry {
    const entry = this.entryAt(slot);
    const redact = this.owed[slot];
    if (!redact) return entry;
    const redacted = redact(entry);
    const cut = this.cuts[slot];
    this.hold(slot, redacted);
    this.cuts[slot] = cut;
    this.owed[slot] = undefined;
    return redacted;
  }
}
