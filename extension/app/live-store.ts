import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { LiveMessage } from '../../shared/live';
import { LiveClient, type LiveState } from './live-client';
import { useConnectionStore } from './connection-store';

type Handler<T extends LiveMessage['type']> = (message: Extract<LiveMessage, { type: T }>) => void;

/** The live channel for the whole app: views subscribe to the message types they need. */
export const useLiveStore = defineStore('live', () => {
  const state = ref<LiveState>('closed');
  const bootId = ref<string | null>(null);
  const handlers = new Map<LiveMessage['type'], Set<(message: LiveMessage) => void>>();
  let client: LiveClient | undefined;

  function on<T extends LiveMessage['type']>(type: T, handler: Handler<T>): () => void {
    let set = handlers.get(type);
    if (!set) handlers.set(type, (set = new Set()));
    const wrapped = handler as (message: LiveMessage) => void;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  function dispatch(message: LiveMessage): void {
    if (message.type === 'hello') bootId.value = message.bootId;
    for (const handler of handlers.get(message.type) ?? []) handler(message);
  }

  function start(initialReplay = 1000): void {
    const connection = useConnectionStore();
    const pairing = connection.pairing;
    if (!pairing) return;
    client?.stop();
    client = new LiveClient(pairing.url, () => connection.credential, {
      onMessage: dispatch,
      onState: (next) => (state.value = next),
      initialReplay,
    });
    client.start();
  }

  function stop(): void {
    client?.stop();
    client = undefined;
  }

  return { state, bootId, on, start, stop };
});
