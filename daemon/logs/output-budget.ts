/**
 * How many lines of a STDIO server's stderr, and of its stdout that is not JSON-RPC, reach the log: a
 * burst, then a steady rate. A server printing in a loop would otherwise keep the daemon busy publishing
 * (every line an entry, sent to every subscriber) and push every other server's entries out of the log's
 * ring buffer. What is left out is counted, and a note in the log says how much a second after the first
 * line left out: at most one note a second for each stream, however long the flood. An HTTP or SSE
 * server's events that are no JSON-RPC message (event-check.ts) are held to the same budget.
 */

export type OutputDirection = 'stderr' | 'stdout' | 'event';

/** Lines taken at once before the rate applies. */
export const OUTPUT_LINE_BURST = 1_000;
/** Lines a second taken after a burst. */
export const OUTPUT_LINES_PER_SECOND = 200;
const NOTE_DELAY_MS = 1_000;

export class OutputLineBudget {
  private tokens: number;
  private refilledAt = performance.now();
  private readonly dropped: Record<OutputDirection, number> = { stderr: 0, stdout: 0, event: 0 };
  private noteTimer?: NodeJS.Timeout;

  constructor(
    private readonly publish: (direction: OutputDirection, line: string) => void,
    private readonly burst = OUTPUT_LINE_BURST,
    private readonly perSecond = OUTPUT_LINES_PER_SECOND,
  ) {
    this.tokens = burst;
  }

  /** Publishes the line, or counts it as left out when the budget is spent. */
  take(direction: OutputDirection, line: string): void {
    if (this.tokens < 1) this.refill();
    if (this.tokens < 1) {
      this.dropped[direction]++;
      this.noteTimer ??= setTimeout(() => this.note(), NOTE_DELAY_MS).unref();
      return;
    }
    this.tokens--;
    this.publish(direction, line);
  }

  /** Writes the note of what was left out now, if one is due: a connection that ends does not wait for it. */
  flush(): void {
    if (this.noteTimer) this.note();
  }

  private refill(): void {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
  }

  private note(): void {
    clearTimeout(this.noteTimer);
    this.noteTimer = undefined;
    const rate = `${this.perSecond.toLocaleString('en-US')} a second (after a burst of ${this.burst.toLocaleString('en-US')})`;
    for (const direction of ['stderr', 'stdout', 'event'] as const) {
      const count = this.dropped[direction];
      if (count === 0) continue;
      this.dropped[direction] = 0;
      const many = count.toLocaleString('en-US');
      this.publish(
        direction,
        direction === 'event'
          ? `… ${many} ${count === 1 ? 'event' : 'events'} not logged that are no JSON-RPC message: the server sent more than ${rate}`
          : `… ${many} ${direction} ${count === 1 ? 'line' : 'lines'} not logged: the server wrote more than ` +
              `${this.perSecond.toLocaleString('en-US')} lines a second (after a burst of ` +
              `${this.burst.toLocaleString('en-US')}) to its ${direction}`,
      );
    }
  }
}
