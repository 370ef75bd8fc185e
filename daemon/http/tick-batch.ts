/**
 * Collects the chunks pushed in one tick and hands them on as one when the tick ends: a burst of log
 * entries (a server's output arrives many messages to a read) then costs one write to a stream, not one
 * write per entry with its chunked-encoding framing. `pendingBytes` is what waits, for a slow-reader check.
 */
export class TickBatch {
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly write: (chunk: Buffer) => void) {}

  get pendingBytes(): number {
    return this.bytes;
  }

  push(chunk: Buffer): void {
    if (this.chunks.length === 0) process.nextTick(this.flush);
    this.chunks.push(chunk);
    this.bytes += chunk.length;
  }

  private readonly flush = (): void => {
    const { chunks, bytes } = this;
    this.chunks = [];
    this.bytes = 0;
    this.write(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, bytes));
  };
}
