import WebSocket, { type ClientOptions } from 'ws';
import type { LiveMessage } from '../../shared/live.ts';
import type { RpcLogEntry, RpcMessageEntry } from '../../shared/logs.ts';
import type { TestDaemon } from './helpers.ts';

export type Of<T extends LiveMessage['type']> = Extract<LiveMessage, { type: T }>;

export interface LiveConnection {
  ws: WebSocket;
  /** Every message received so far, in arrival order. */
  messages: LiveMessage[];
  /** Resolves with the first truthy answer of `check` on what arrived; rejects if the socket closes first. */
  until<T>(check: (messages: LiveMessage[]) => T | undefined | false, what?: string): Promise<T>;
  /** The close code and reason the client saw. */
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

type Query = Record<string, string | undefined>;

/** The live channel's `ws://` URL on the daemon with this query (undefined values are left out). */
export function liveUrl(d: TestDaemon, query: Query = {}, path = '/api/mcp/ws'): string {
  const url = new URL(path, d.url.replace(/^http/, 'ws'));
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

/** Opens the live channel with the `ws` client (token in the query unless `token: undefined`). */
export async function openLive(
  d: TestDaemon,
  query: Query = {},
  options: ClientOptions = {},
): Promise<LiveConnection> {
  const ws = new WebSocket(liveUrl(d, { token: d.token, ...query }), options);
  const messages: LiveMessage[] = [];
  let waiters: Array<() => void> = [];
  let isClosed = false;
  const wake = (): void => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as LiveMessage);
    wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      isClosed = true;
      resolve({ code, reason: String(reason) });
      wake();
    });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  ws.on('error', () => {}); // a daemon closing the socket is what some tests wait for
  return {
    ws,
    messages,
    closed,
    async until(check, what = 'the expected message') {
      for (;;) {
        const result = check(messages);
        if (result) return result;
        if (isClosed) throw new Error(`the live channel closed before ${what} arrived`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    close() {
      waiters = [];
      ws.close();
    },
  };
}

/** The HTTP status an upgrade is refused with; fails if a WebSocket opens instead. */
export function refusal(url: string, options: ClientOptions = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('the WebSocket opened'));
    });
    ws.once('error', (error) => reject(error));
  });
}

export const ofType = <T extends LiveMessage['type']>(messages: LiveMessage[], type: T): Of<T>[] =>
  messages.filter((m): m is Of<T> => m.type === type);

/** The log entries among the messages, in arrival order. */
export const entries = (messages: LiveMessage[]): RpcLogEntry[] =>
  ofType(messages, 'rpc').map((m) => m.entry);

/** JSON-RPC entries (not stderr lines) among the messages. */
export const rpcMessages = (messages: LiveMessage[]): RpcMessageEntry[] =>
  entries(messages).filter((e): e is RpcMessageEntry => e.direction !== 'stderr');

/** The `tools/call` the daemon sent for `toolName` and the answer with the same id, once both arrived. */
export function callAndAnswer(
  messages: LiveMessage[],
  toolName: string,
): { call: RpcMessageEntry; answer: RpcMessageEntry } | undefined {
  const all = rpcMessages(messages);
  const call = all.find(
    (e) =>
      e.direction === 'send' &&
      e.message.method === 'tools/call' &&
      (e.message.params as { name?: string }).name === toolName,
  );
  const answer =
    call &&
    all.find((e) => e.direction === 'receive' && e.message.id === call.message.id && !e.message.method);
  return call && answer && { call, answer };
}
