import type { WidgetRecord } from '../../shared/widgets.ts';

export interface WidgetStoreOptions {
  ttlMs: number;
  /** The oldest records go first past this many, so a looping client cannot grow the daemon without bound. */
  maxRecords?: number;
  /** How often expired records are removed; by default the TTL, at most a minute and at least a second. */
  sweepIntervalMs?: number;
}

const DEFAULT_MAX_RECORDS = 1000;

/**
 * Widget records by toolId, each living `ttlMs` from when it was stored (SPEC part 8). An expired record
 * is a miss at once; the sweep only frees the memory. Time is read from `Date.now()`.
 */
export class WidgetStore {
  private readonly records = new Map<string, WidgetRecord>();
  private readonly maxRecords: number;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: WidgetStoreOptions) {
    this.maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS;
    const interval = options.sweepIntervalMs ?? Math.min(Math.max(options.ttlMs, 1000), 60_000);
    this.timer = setInterval(() => this.sweep(), interval);
    // The sweep must never keep the process alive on its own.
    this.timer.unref();
  }

  get size(): number {
    return this.records.size;
  }

  /** Stores (or replaces) a record and returns when it expires. */
  put(record: Omit<WidgetRecord, 'timestamp'>): { record: WidgetRecord; expiresAt: Date } {
    const stored: WidgetRecord = { ...record, timestamp: Date.now() };
    // Re-inserting moves a replaced record to the young end of the Map's insertion order.
    this.records.delete(record.toolId);
    this.records.set(record.toolId, stored);
    for (const oldest of this.records.keys()) {
      if (this.records.size <= this.maxRecords) break;
      this.records.delete(oldest);
    }
    return { record: stored, expiresAt: this.expiresAt(stored) };
  }

  /** The live record, or `undefined` when unknown or expired (even before the sweep has run). */
  get(toolId: string): WidgetRecord | undefined {
    const record = this.records.get(toolId);
    if (!record) return undefined;
    if (this.isExpired(record)) {
      this.records.delete(toolId);
      return undefined;
    }
    return record;
  }

  expiresAt(record: WidgetRecord): Date {
    return new Date(record.timestamp + this.options.ttlMs);
  }

  /** Removes every expired record. */
  sweep(): void {
    for (const [toolId, record] of this.records) {
      if (this.isExpired(record)) this.records.delete(toolId);
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.records.clear();
  }

  private isExpired(record: WidgetRecord): boolean {
    return Date.now() >= record.timestamp + this.options.ttlMs;
  }
}
