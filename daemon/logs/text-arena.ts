/** Where a text was put: its chunk, and its bytes there. */
export interface Placed {
  chunk: number;
  offset: number;
  length: number;
}

/** The size of a chunk; a text of more than a quarter of it gets a chunk of its own. */
export const CHUNK_BYTES = 1024 * 1024;

/**
 * Texts kept outside the JavaScript heap, as UTF-8 in chunks of CHUNK_BYTES, for as long as the caller
 * holds them. The log keeps thousands of entries, mostly never read again: as objects or strings they
 * survived each young-generation collection and were copied by it, which made every call slower once the
 * log had filled. Bytes in a chunk are never copied, and a chunk goes once nothing in it is held.
 * Texts are freed about in the order they were put, as the log drops its oldest entries first.
 */
export class TextArena {
  private readonly chunks = new Map<number, { bytes: Buffer; held: number }>();
  private current = -1;
  private used = CHUNK_BYTES;
  private nextChunk = 0;

  put(text: string): Placed {
    const length = Buffer.byteLength(text);
    if (length > CHUNK_BYTES / 4) {
      const chunk = this.nextChunk++;
      const bytes = Buffer.allocUnsafeSlow(length);
      bytes.write(text, 0, 'utf8');
      this.chunks.set(chunk, { bytes, held: 1 });
      return { chunk, offset: 0, length };
    }
    if (this.used + length > CHUNK_BYTES) this.startChunk();
    const current = this.chunks.get(this.current)!;
    const offset = this.used;
    current.bytes.write(text, offset, 'utf8');
    current.held += 1;
    this.used += length;
    return { chunk: this.current, offset, length };
  }

  text(chunk: number, offset: number, length: number): string {
    const found = this.chunks.get(chunk);
    if (!found) throw new Error(`text arena: chunk ${chunk} is gone`);
    return found.bytes.toString('utf8', offset, offset + length);
  }

  /**
   * The bytes of a text, as a view: a chunk's bytes are never written again where a text was put, so the
   * view stays the text even once it is freed.
   */
  bytes(chunk: number, offset: number, length: number): Buffer {
    const found = this.chunks.get(chunk);
    if (!found) throw new Error(`text arena: chunk ${chunk} is gone`);
    return found.bytes.subarray(offset, offset + length);
  }

  /** The text in `chunk` is no longer held; a chunk with none left goes (the one being filled stays). */
  free(chunk: number): void {
    const found = this.chunks.get(chunk);
    if (!found) return;
    found.held -= 1;
    if (found.held <= 0 && chunk !== this.current) this.chunks.delete(chunk);
  }

  /** Bytes of the chunks allocated. */
  get allocatedBytes(): number {
    let bytes = 0;
    for (const { bytes: chunk } of this.chunks.values()) bytes += chunk.length;
    return bytes;
  }

  private startChunk(): void {
    const previous = this.chunks.get(this.current);
    if (previous && previous.held <= 0) this.chunks.delete(this.current);
    this.current = this.nextChunk++;
    this.chunks.set(this.current, { bytes: Buffer.allocUnsafeSlow(CHUNK_BYTES), held: 0 });
    this.used = 0;
  }
}
