import type { LiveMessage } from '../../shared/live';

export type LiveState = 'connecting' | 'open' | 'closed';

export interface LiveClientOptions {
  onMessage(message: LiveMessage): void;
  onState(state: LiveState): void;
  /** Log entries to replay on the very first connection. */
  initialReplay?: number;
}

const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 5000;

/**
 * The extension side of the live channel. Reconnects by itself with backoff and resumes after the last
 * log entry it saw, so nothing arrives twice; after a daemon restart (a new bootId) it starts afresh.
 */
export class LiveClient {
  private socket?: WebSocket;
  private bootId?: string;
  private lastSeq = 0;
  private delay = MIN_DELAY_MS;
  private timer?: ReturnType<typeof setTimeout>;
  private stopped = true;

  constructor(
    private readonly baseUrl: string,
    /** Read at each connection: a signed-in user's token is renewed while the channel lives. */
    private readonly token: () => string,
    private readonly options: LiveClientOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.socket?.close();
    this.socket = undefined;
    this.options.onState('closed');
  }

  url(): string {
    const url = new URL('/api/mcp/ws', this.baseUrl.replace(/^http/, 'ws'));
    url.searchParams.set('token', this.token());
    if (this.bootId) {
      url.searchParams.set('bootId', this.bootId);
      url.searchParams.set('since', String(this.lastSeq));
    } else if (this.options.initialReplay) {
      url.searchParams.set('replay', String(this.options.initialReplay));
    }
    return url.toString();
  }

  private open(): void {
    this.options.onState('connecting');
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.onopen = () => {
      this.delay = MIN_DELAY_MS;
      this.options.onState('open');
    };
    socket.onmessage = (event) => this.receive(String(event.data));
    socket.onclose = () => {
      if (this.socket !== socket || this.stopped) return;
      this.options.onState('closed');
      this.timer = setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
    };
  }

  private receive(data: string): void {
    let message: LiveMessage;
    try {
      message = JSON.parse(data) as LiveMessage;
    } catch {
      return;
    }
    if (message.type === 'hello') {
      if (message.bootId !== this.bootId) {
        // A new daemon run: its sequence numbers start again, so what we saw says nothing about it.
        this.bootId = message.bootId;
        this.lastSeq = 0;
      }
    } else if (message.type === 'rpc') {
      if (message.entry.seq <= this.lastSeq) return;
      this.lastSeq = message.entry.seq;
    }
    this.options.onMessage(message);
  }
}
