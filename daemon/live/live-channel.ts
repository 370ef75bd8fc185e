import type { IncomingMessage, Server } from 'node:http';
import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';
import type * as Ws from 'ws';
import type { WebSocket, WebSocketServer } from 'ws';
import type { LiveMessage } from '../../shared/live.ts';
import { DaemonError } from '../errors.ts';
import type { LogBus } from '../logs/log-bus.ts';
import type { AuthFailureLimiter } from '../security/auth-failure-limiter.ts';
import { forbiddenHostMessage, hostCheck } from '../security/host-check-middleware.ts';
import { originRefusal } from '../security/origin-middleware.ts';
import { presentedToken, tokenMatches, tooManyFailures, userTokenOf } from '../security/token-middleware.ts';
import type { UserTokenValidator } from '../security/user-tokens.ts';
import { corkForTick } from '../http/cork-for-tick.ts';
import { malformedTargetMessage, requestTarget } from '../http/request-target.ts';
import { refuseOnSocket } from '../http/socket-answers.ts';
import { liveEventFrame, liveFrame, rpcFrame, rpcFrameParts } from '../logs/serialise.ts';
import { VERSION } from '../version.ts';
import type { LiveEvents } from './live-events.ts';

export const LIVE_PATH = '/api/mcp/ws';

/** What a client that saw another daemon run gets: the last entries, as many as a page opening asks for. */
const AFTER_RESTART = 1000;
/** A replay is sent this many entries a turn of the event loop, so that others are served meanwhile, */
const REPLAY_SLICE = 100;
/** and waits while this many bytes are still unsent to its client. */
const REPLAY_IN_FLIGHT = 1024 * 1024;
/** An entry of up to this many bytes is framed in one copy; a larger one is sent as the bytes kept. */
const ONE_FRAME_BYTES = 16 * 1024;

export interface LiveChannelOptions {
  bus: LogBus;
  events: LiveEvents;
  token: string | null;
  /** Canonical `--allowed-host` names (see `allowedHostSet`). */
  allowedHosts: ReadonlySet<string>;
  /** Shared with the HTTP token check: failed attempts count once, whichever door they knock on. */
  limiter?: AuthFailureLimiter;
  /** A shared daemon's user tokens (CLOUD_BACKEND_HTTP_URL), accepted in `?token=` as well. */
  userTokens?: UserTokenValidator;
  /** The dev server's origins, in development (origin-middleware.ts `devOrigins`). */
  devOrigins: readonly string[];
  pingMs: number;
  /** A client whose unsent data passes this is closed (code 4008); it resumes with `since`. */
  maxBufferedBytes: number;
}

const require = createRequire(import.meta.url);

/** The WebSocket key: 16 bytes in base64 (RFC 6455 4.1). */
const WEBSOCKET_KEY = /^[+/0-9A-Za-z]{22}==$/;

/**
 * What is wrong with an upgrade's WebSocket headers, as `ws` would refuse them (in plain text): refused
 * here first, with the error body every other refusal has.
 */
function badHandshake(req: IncomingMessage): string | undefined {
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !WEBSOCKET_KEY.test(key.trim())) {
    return 'Sec-WebSocket-Key is missing or not 16 bytes in base64 (RFC 6455)';
  }
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'Sec-WebSocket-Version must be 13';
  return undefined;
}

function destroyOnError(this: Duplex): void {
  this.destroy();
}

/**
 * Which upgrade requests are the live channel's to answer: WebSocket ones. Any other `Upgrade` (curl's
 * `h2c`, say) is served as the plain request it also is (RFC 9110 7.8). Node 22.21 and 24.9 read this
 * option of `createServer`; an older Node hands every upgrade to the live channel, which refuses it.
 */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return req.headers.upgrade?.toLowerCase() === 'websocket';
}

/**
 * `GET /api/mcp/ws`: the live channel. Host, Origin and token are checked on the upgrade request itself,
 * before the WebSocket exists, because a browser lets any page open a WebSocket to localhost and only
 * those checks stop it (there is no CORS for WebSockets).
 */
export function attachLiveChannel(server: Server, options: LiveChannelOptions): { close(): void } {
  const { bootId } = options.bus;
  // Made (and ws loaded) for the first client the checks let in, not at start.
  let wss: WebSocketServer | undefined;
  const hostAllowed = hostCheck(options.allowedHosts);

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node has let go of the socket: a client that resets it while it is refused, or while its user token
    // is checked, must not end the daemon with an error nobody listens for.
    socket.on('error', destroyOnError);
    // Host first, as on every route: a rebinding page learns nothing, not even which paths exist.
    if (!hostAllowed(req.headers.host)) {
      return refuseOnSocket(socket, 'forbidden_host', forbiddenHostMessage(req.headers.host));
    }
    const url = requestTarget(req.url);
    if (url === undefined)
      return refuseOnSocket(socket, 'malformed_request', malformedTargetMessage(req.url));
    if (url.pathname !== LIVE_PATH || req.method !== 'GET') {
      return refuseOnSocket(
        socket,
        'route_not_found',
        `No WebSocket at ${req.method} ${url.pathname.slice(0, 200)}: the live channel is GET ${LIVE_PATH}`,
      );
    }
    const handshakeProblem = badHandshake(req);
    if (handshakeProblem) return refuseOnSocket(socket, 'malformed_request', handshakeProblem);
    const rules = { devOrigins: options.devOrigins, requireOrigin: options.token === null };
    const originRefused = originRefusal(req.headers, rules);
    if (originRefused) return refuseOnSocket(socket, 'forbidden_origin', originRefused);
    if (options.token !== null) {
      const limiter = options.limiter;
      const key = limiter?.keyOf(req);
      const retryAfter = key === undefined ? undefined : limiter?.blockedFor(key);
      if (retryAfter !== undefined) {
        return refuseOnSocket(
          socket,
          'too_many_auth_failures',
          tooManyFailures(retryAfter),
          `Retry-After: ${retryAfter}\r\n`,
        );
      }
      const presented = presentedToken(req, true);
      if (!tokenMatches(options.token, presented)) {
        const userToken = options.userTokens && userTokenOf(req, presented);
        if (options.userTokens && userToken !== undefined) {
          // A signed-in user's page (SPEC part 5): the backend says whether the token is good.
          options.userTokens.validate(userToken).then(
            () => accept(req, socket, head, url),
            (error: unknown) => {
              const known = error instanceof DaemonError;
              if (!known || error.code === 'unauthorized') {
                if (key !== undefined) limiter?.fail(key);
              }
              refuseOnSocket(
                socket,
                known ? error.code : 'unauthorized',
                known ? error.message : 'Unauthorized',
              );
            },
          );
          return;
        }
        if (key !== undefined) limiter?.fail(key);
        return refuseOnSocket(socket, 'unauthorized', 'Unauthorized');
      }
    }
    accept(req, socket, head, url);
  });

  function accept(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    // From here ws listens for the socket's errors itself.
    socket.off('error', destroyOnError);
    wss ??= new (require('ws') as typeof Ws).WebSocketServer({
      noServer: true,
      maxPayload: 64 * 1024,
    });
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, socket, url.searchParams));
  }

  function serve(ws: WebSocket, socket: Duplex, query: URLSearchParams): void {
    // The frames ws writes in one tick leave in one write of the socket.
    const hold = corkForTick(socket);
    const send = (bytes: Buffer): void => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > options.maxBufferedBytes) {
        // Stop feeding it now: the close handshake itself waits until the client reads again.
        stopFeeding();
        ws.close(4008, 'Too slow: resume with since');
        return;
      }
      hold();
      ws.send(bytes, { binary: false });
    };
    const lastSeq = options.bus.lastSeq;
    hold();
    ws.send(JSON.stringify({ type: 'hello', bootId, version: VERSION, lastSeq } satisfies LiveMessage));
    // Resume only within the same daemon run: after a restart the sequence numbers start again, and a
    // client that saw another run gets this run's last entries, as a page that opens does.
    const since = Number(query.get('since'));
    const replay = Number(query.get('replay'));
    const knownBoot = query.get('bootId');
    // Its big messages come cut, so a log of large results does not hold up the page that opens.
    const backlog =
      knownBoot === null
        ? Number.isInteger(replay) && replay > 0
          ? options.bus.replayJsonLast(replay)
          : []
        : knownBoot === bootId && Number.isInteger(since) && since >= 0
          ? options.bus.replayJsonSince(since)
          : options.bus.replayJsonLast(AFTER_RESTART);

    // The replay goes out a slice a turn, as the client takes it, each large entry the bytes the log
    // keeps (fragments of one message, not a copy): a thousand pages opening at once over a log of large
    // results hold no more memory than the log, and the daemon answers others meanwhile. What happens
    // meanwhile waits behind it, so nothing is missed or sent twice.
    let next = 0;
    let replaying = backlog.length > 0;
    const waiting: Buffer[] = [];
    let waitingBytes = 0;
    const pump = (): void => {
      for (let sent = 0; next < backlog.length; sent++) {
        if (ws.readyState !== ws.OPEN) return;
        if (ws.bufferedAmount > REPLAY_IN_FLIGHT) return void setTimeout(pump, 10);
        if (sent === REPLAY_SLICE) return void setImmediate(pump);
        const json = backlog[next++] as Buffer;
        hold();
        if (json.length <= ONE_FRAME_BYTES) ws.send(rpcFrame(json), { binary: false });
        else {
          const [open, body, close] = rpcFrameParts(json);
          ws.send(open, { binary: false, fin: false });
          ws.send(body, { binary: false, fin: false });
          ws.send(close, { binary: false, fin: true });
        }
      }
      replaying = false;
      // Taken already (below): sent as they are, not checked again against what the replay left unsent.
      hold();
      for (const bytes of waiting) ws.send(bytes, { binary: false });
      waiting.length = 0;
    };
    const feed = (bytes: Buffer): void => {
      if (!replaying) return send(bytes);
      // As live: it is what is already waiting that counts, so one large message alone never closes a
      // client that reads (a 5 MB result during a replay did).
      if (waitingBytes <= options.maxBufferedBytes) {
        waitingBytes += bytes.length;
        return void waiting.push(bytes);
      }
      // A client that takes neither its replay nor what came since is closed as a slow one is.
      stopFeeding();
      waiting.length = 0;
      ws.close(4008, 'Too slow: resume with since');
    };

    // Each message's bytes are made once for all clients.
    const unsubscribeLog = options.bus.subscribe((entry) => feed(liveFrame(entry)));
    const unsubscribeEvents = options.events.subscribe((event) => feed(liveEventFrame(event)));
    pump();
    function stopFeeding(): void {
      unsubscribeLog();
      unsubscribeEvents();
    }
    let alive = true;
    ws.on('pong', () => (alive = true));
    const ping = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, options.pingMs);
    ws.on('close', () => {
      clearInterval(ping);
      stopFeeding();
    });
    // The channel is one-way; anything a client sends is ignored. A message over `maxPayload` (or a
    // broken frame) is the client's fault: `ws` closes the connection (1009, 1002) and reports it here.
    ws.on('message', () => {});
    ws.on('error', () => {});
  }

  return {
    close() {
      if (!wss) return;
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
