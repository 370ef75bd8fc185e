import type { RpcLogEntry } from '../../shared/logs.ts';

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

/**
 * In-process bus of JSON-RPC log entries with a bounded ring buffer for replay and resume.
 *
 * Every message of every call is published, but most are never read: redacting one (a walk of the whole
 * message) is put off until someone does read it, as a subscriber when it is published or later through
 * `since`/`last`. Whoever reads gets it redacted; nothing else sees the entry.
 */
export class LogBus {
  private readonly ring: (RpcLogEntry | undefined)[];
  /** The redactor still owed by the entry in the same slot of `ring`, if any. */
  private readonly owed: (Redactor | undefined)[];
  private nextSeq = 1;
  private readonly listeners = new Set<Listener>();

  constructor(readonly capacity = 10_000) {
    this.ring = new Array(capacity);
    this.owed = new Array(capacity);
  }

  publish(entry: Unsequenced, redact?: Redactor): RpcLogEntry {
    let sequenced = { ...entry, seq: this.nextSeq++ } as RpcLogEntry;
    const slot = sequenced.seq % this.capacity;
    if (redact && this.listeners.size > 0) {
      sequenced = redact(sequenced);
      redact = undefined;
    }
    this.ring[slot] = sequenced;
    this.owed[slot] = redact;
    for (const listener of this.listeners) listener(sequenced);
    return sequenced;
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
    const first = Math.max(seq + 1, this.nextSeq - this.capacity, 1);
    const entries: RpcLogEntry[] = [];
    for (let s = first; s < this.nextSeq; s++) {
      const slot = s % this.capacity;
      let entry = this.ring[slot];
      if (entry?.seq !== s) continue;
      const redact = this.owed[slot];
      if (redact) {
        entry = redact(entry);
        this.ring[slot] = entry;
        this.owed[slot] = undefined;
      }
      entries.push(entry);
    }
    return entries;
  }

  /** The last `count` entries, oldest first. */
  last(count: number): RpcLogEntry[] {
    return this.since(this.nextSeq - 1 - Math.max(0, count));
  }
}
