import type { LiveMessage } from '../../shared/live.ts';
import type { RpcLogEntry } from '../../shared/logs.ts';

const UNSERIALISABLE = {
  _inspector: { truncated: true, reason: 'This message could not be serialised; it is not shown.' },
};

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
    if (message.type === 'rpc') return `{"type":"rpc","entry":${stringifyEntry(message.entry)}}`;
    return JSON.stringify({ type: message.type, ...UNSERIALISABLE });
  }
}
