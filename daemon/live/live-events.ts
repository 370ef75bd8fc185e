import type { LiveMessage } from '../../shared/live.ts';

/** Live-channel messages that are not log entries: server status, notifications, progress, elicitations. */
export type LiveEvent = Exclude<LiveMessage, { type: 'hello' } | { type: 'rpc' }>;

type Listener = (event: LiveEvent) => void;

/** In-process fan-out of live events; nothing is kept, a client that reconnects asks the REST API again. */
export class LiveEvents {
  private readonly listeners = new Set<Listener>();

  publish(event: LiveEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }
}
