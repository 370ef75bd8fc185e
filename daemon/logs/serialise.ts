import type { LiveMessage } from '../../shared/live.ts';
import type { RpcLogEntry } from '../../shared/logs.ts';

const UNSERIALISABLE = {
  _inspector: { truncated: true, reason: 'This message could not be serialised; it is not shown.' },
};

/** A live-channel `rpc` message is an entry's JSON between these. */
const RPC_OPEN = '{"type":"rpc","entry":';
const RPC_CLOSE = '}';
const RPC_OPEN_BYTES = Buffer.from(RPC_OPEN);
const RPC_CLOSE_BYTES = Buffer.from(RPC_CLOSE);

/**
 * JSON for the log stream and the live channel. Messages are bounded in depth when they enter the
 * daemon, so this never fails in practice; if it ever does, the entry goes out with a placeholder
 * instead of its message, rather than an exception escaping a socket's event handler.
 */
export function stringifyEntry(entry: RpcLogEntry): string {
  try {
    return JSON.stringify(entry);
  } catch {
    return JSON.stringify({ ...entry, message: UNSERIALISABLE });
  }
}

export function stringifyLive(message: LiveMessage): string {
  try {
    return JSON.stringify(message);
  } catch {
    if (message.type === 'rpc') return RPC_OPEN + stringifyEntry(message.entry) + RPC_CLOSE;
    return JSON.stringify({ type: message.type, ...UNSERIALISABLE });
  }
}

/**
 * Made once per value however many readers there are: the bus and the live events hand a value to every
 * subscriber in turn, so the last one made is the one asked for next. Only that one is kept.
 */
function once<K extends object, T>(make: (value: K) => T): (value: K) => T {
  let last: K | undefined;
  let made: T;
  return (value) => {
    if (value !== last) {
      made = make(value);
      last = value;
    }
    return made;
  };
}

const entryJson = once(stringifyEntry);

/** A Server-Sent Events event of `GET /api/mcp/rpc-logs`, encoded once for every stream. */
export const sseFrame = once((entry: RpcLogEntry) =>
  Buffer.from(`id: ${entry.seq}\ndata: ${entryJson(entry)}\n\n`),
);

/** A live-channel `rpc` message around an entry's JSON as it is kept (a replay sends the kept bytes). */
export function rpcFrame(entryJson: Buffer): Buffer {
  return Buffer.concat([RPC_OPEN_BYTES, entryJson, RPC_CLOSE_BYTES]);
}

/** The same message in three parts, the entry's bytes not copied: sent as the fragments of one message. */
export function rpcFrameParts(entryJson: Buffer): [Buffer, Buffer, Buffer] {
  return [RPC_OPEN_BYTES, entryJson, RPC_CLOSE_BYTES];
}

/** A live-channel `rpc` message, the same as `stringifyLive({ type: 'rpc', entry })`, once for every client. */
export const liveFrame = once((entry: RpcLogEntry) => Buffer.from(RPC_OPEN + entryJson(entry) + RPC_CLOSE));

/** Any other live-channel message, once for every client. */
export const liveEventFrame = once((message: LiveMessage) => Buffer.from(stringifyLive(message)));
