import { createHash, randomBytes } from 'node:crypto';
import { WIDGET_VIEW_CODE_TTL_MS, type WidgetRecord } from '../../shared/widgets.ts';

export interface WidgetStoreOptions {
  ttlMs: number;
  /** The oldest records go first past this many, so a looping client cannot grow the daemon without bound. */
  maxRecords?: number;
  /** How often expired records are removed; by default the TTL, at most a minute and at least a second. */
  sweepIntervalMs?: number;
  /** How long a view code of the container page stays good; a minute by default. */
  viewCodeTtlMs?: number;
}

const DEFAULT_MAX_RECORDS = 1000;
/** Unspent view codes kept at most; the oldest go first. */
const MAX_VIEW_CODES = 1000;

interface ViewCode {
  toolId: string;
  expiresAt: number;
}

/** Codes are kept by their hash: a lookup compares nothing secret, and memory holds no usable code. */
const codeKey = (code: string): string => createHash('sha256').update(code).digest('base64url');

/**
 * Widget records by toolId, each living `ttlMs` from when it was stored (SPEC part 8), and the view codes
 * that open one widget's container page in a browser tab. An expired record or code is a miss at once;
 * the sweep only frees the memory. Time is read from `Date.now()`.
 */
export class WidgetStore {
  private readonly records = new Map<string, WidgetRecord>();
  private readonly viewCodes = new Map<string, ViewCode>();
  private readonly maxRecords: number;
  private readonly viewCodeTtlMs: number;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: WidgetStoreOptions) {
    this.maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS;
    this.viewCodeTtlMs = options.viewCodeTtlMs ?? WIDGET_VIEW_CODE_TTL_MS;
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

  /**
   * A new view code for the container page of `toolId`: 256 random bits (base64url) that open that one
   * widget once, until `expiresAt`.
   */
  issueViewCode(toolId: string): { code: string; expiresAt: Date } {
    const code = randomBytes(32).toString('base64url');
    const expiresAt = Date.now() + this.viewCodeTtlMs;
    this.viewCodes.set(codeKey(code), { toolId, expiresAt });
    for (const oldest of this.viewCodes.keys()) {
      if (this.viewCodes.size <= MAX_VIEW_CODES) break;
      this.viewCodes.delete(oldest);
    }
    return { code, expiresAt: new Date(expiresAt) };
  }

  /**
   * Spends a view code: true when it was issued for `toolId` and has not expired. Whatever the answer,
   * the code is gone afterwards, so it opens a page at most once.
   */
  redeemViewCode(toolId: string, code: string): boolean {
    const key = codeKey(code);
    const entry = this.viewCodes.get(key);
    if (!entry) return false;
    this.viewCodes.delete(key);
    return entry.toolId === toolId && Date.now() < entry.expiresAt;
  }

  /** How many view codes are held, spent ones excluded (expired ones until the sweep). */
  get viewCodeCount(): number {
    return this.viewCodes.size;
  }

  /** Removes every expired record and view code. */
  sweep(): void {
    for (const [toolId, record] of this.records) {
      if (this.isExpired(record)) this.records.delete(toolId);
    }
    const now = Date.now();
    for (const [key, entry] of this.viewCodes) {
      if (now >= entry.expiresAt) this.viewCodes.delete(key);
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.records.clear();
    this.viewCodes.clear();
  }

  private isExpired(record: WidgetRecord): boolean {
    return Date.now() >= record.timestamp + this.options.ttlMs;
  }
}
