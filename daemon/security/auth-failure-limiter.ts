import type { IncomingMessage } from 'node:http';

export interface AuthFailureLimiterOptions {
  /** Failed attempts a client may make per window before every attempt of it is refused. */
  limit: number;
  windowMs: number;
  /** At most this many clients are tracked; the oldest window goes first. */
  maxClients?: number;
}

/**
 * The longest Origin a key keeps: a real one (scheme, host of at most 253 characters, port) is shorter.
 * A program can send any Origin; kept whole, 10,000 clients of 16 KiB Origins held some 250 MB.
 */
const MAX_ORIGIN_IN_KEY = 300;

interface Window {
  failures: number;
  resetAt: number;
}

/**
 * Counts failed token checks per client and refuses a client that failed too often, before its token
 * is even compared, so guessing is capped at `limit` a window. Good traffic is never counted: only the
 * general rate limit applies to it. A client is its address plus its Origin (`keyOf`), so a web page
 * (or a program) guessing does not lock out the extension or the command line on the same machine. It
 * is consulted synchronously by the HTTP middleware and the WebSocket upgrade alike, so both share one
 * count (express-rate-limit counts every request and answers asynchronously, which fits neither).
 */
export class AuthFailureLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly maxClients: number;

  constructor(private readonly options: AuthFailureLimiterOptions) {
    this.maxClients = options.maxClients ?? 10_000;
  }

  /**
   * The client: its address and Origin. A browser request without an Origin (a page's image, script or
   * frame, or the daemon's own page's GETs) is told apart by the site the browser says it came from,
   * so a web page's token-less requests count against web pages only, and never lock out the programs
   * (the command line, scripts) that send neither header.
   */
  keyOf(req: IncomingMessage): string {
    const { origin, 'sec-fetch-site': site } = req.headers;
    const from = origin === undefined ? (site === undefined ? '' : `site:${site.slice(0, 20)}`) : origin;
    return `${req.socket.remoteAddress ?? ''} ${from.slice(0, MAX_ORIGIN_IN_KEY)}`;
  }

  /** How many clients' windows are kept. */
  get trackedClients(): number {
    return this.windows.size;
  }

  /** Whether any client has failed lately: until one has, there is no key to build or look up. */
  get tracking(): boolean {
    return this.windows.size > 0;
  }

  /** Seconds until the client may try again, or `undefined` when it may try now. */
  blockedFor(key: string, now = Date.now()): number | undefined {
    const window = this.windows.get(key);
    if (!window) return undefined;
    if (now >= window.resetAt) {
      this.windows.delete(key);
      return undefined;
    }
    return window.failures >= this.options.limit ? Math.ceil((window.resetAt - now) / 1000) : undefined;
  }

  fail(key: string, now = Date.now()): void {
    let window = this.windows.get(key);
    if (!window || now >= window.resetAt) {
      this.windows.delete(key);
      window = { failures: 0, resetAt: now + this.options.windowMs };
      this.windows.set(key, window);
      // Windows are kept in the order they opened, which is the order they end: the ended ones and,
      // past the cap, the oldest go first.
      for (const [oldest, { resetAt }] of this.windows) {
        if (this.windows.size <= this.maxClients && resetAt > now) break;
        this.windows.delete(oldest);
      }
    }
    window.failures++;
  }
}
