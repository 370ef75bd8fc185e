import type { Writable } from 'node:stream';

/**
 * A function that holds a stream's writes until the end of the current tick, then sends them together:
 * a burst of log entries (a server's output arrives many messages to a chunk) costs one system call per
 * subscriber instead of one per entry. Call it before writing; calls within the tick after the first do
 * nothing. What is held counts in the stream's `writableLength`, so a check for a slow reader sees it.
 */
export function corkForTick(stream: Writable): () => void {
  let corked = false;
  const uncork = (): void => {
    corked = false;
    stream.uncork();
  };
  return () => {
    if (corked) return;
    corked = true;
    stream.cork();
    process.nextTick(uncork);
  };
}
