import type { RpcLogEntry } from '../../shared/logs.ts';

type Listener = (entry: RpcLogEntry) => void;
type Unsequenced = RpcLogEntry extends infer E ? (E extends RpcLogEntry ? Omit<E, 'seq'> : never) : never;

/** In-process bus of JSON-RPC log entries with a bounded ring buffer for replay and resume. */
export class LogBus {
  private readonly ring: (RpcLogEntry | undefined)[];
  private nextSeq = 1;
  private readonly listeners = new Set<Listener>();

  constructor(readonly capacity = 10_000) {
    this.ring = new Array(capacity);
  }

  publish(entry: Unsequenced): RpcLogEntry {
    const sequenced = { ...entry, seq: this.nextSeq++ } as RpcLogEntry;
    this.ring[sequenced.seq % this.capacity] = sequenced;
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

  /** Entries with a sequence number above `seq` that are still in the buffer, oldest first. */
  since(seq: number): RpcLogEntry[] {
    const first = Math.max(seq + 1, this.nextSeq - this.capacity, 1);
    const entries: RpcLogEntry[] = [];
    for (let s = first; s < this.nextSeq; s++) {
      const entry = this.ring[s % this.capacity];
      if (entry?.seq === s) entries.push(entry);
    }
    return entries;
  }

  /** The last `count` entries, oldest first. */
  last(count: number): RpcLogEntry[] {
    return this.since(this.nextSeq - 1 - Math.max(0, count));
  }
}
