import type { Request, Response } from 'express';
import { Router } from 'express';
import type { RpcLogEntry } from '../../shared/logs.ts';
import type { Answer } from '../../shared/routes.ts';
import type { LogBus } from '../logs/log-bus.ts';
import { TickBatch } from '../http/tick-batch.ts';
import { sseFrame } from '../logs/serialise.ts';
import { DaemonError } from '../errors.ts';
import { sendJson } from '../http/send-json.ts';

export interface RpcLogsOptions {
  keepaliveMs: number;
  /** A subscriber whose unsent output passes this many bytes is dropped (it can resume by Last-Event-ID). */
  maxBufferedBytes: number;
}

/** What a new stream replays first: after its Last-Event-ID, or its last `?replay=N`, or nothing. */
function replayOf(
  req: Request,
  bus: LogBus,
  serverIds: ReadonlySet<string> | undefined,
): Array<{ seq: number; json: Buffer }> {
  const lastEventId = req.header('last-event-id') ?? (req.query.lastEventId as string | undefined);
  if (lastEventId !== undefined && /^\d+$/.test(lastEventId)) {
    return bus.wholeJsonSince(Number(lastEventId), serverIds);
  }
  const replay = Number(req.query.replay);
  return Number.isInteger(replay) && replay > 0 ? bus.wholeJsonLast(replay, serverIds) : [];
}

const EVENT_END = Buffer.from('\n\n');
/** How long a stream dropped for being slow may take to read what it was sent, before it is cut off. */
const SLOW_GRACE_MS = 5000;
/** An entry of up to this many bytes goes in one write with its event's lines; a larger one as it is kept. */
const ONE_WRITE_BYTES = 16 * 1024;

/** `GET /api/mcp/rpc-logs`: Server-Sent Events of every JSON-RPC message (DESIGN "Logs"). */
export function rpcLogsRouter(bus: LogBus, options: RpcLogsOptions): Router {
  const router = Router();
  router.get('/', (req: Request, res: Response) => {
    const ids = typeof req.query.serverIds === 'string' ? req.query.serverIds.split(',').filter(Boolean) : [];
    const wanted = ids.length ? new Set(ids) : undefined;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n\n');

    let open = true;
    const close = (slow = false): void => {
      if (!open) return;
      open = false;
      unsubscribe();
      clearInterval(keepalive);
      res.end();
      // Dropped for being slow, it has a few seconds to read what it was sent: end() alone held that in
      // the daemon for as long as the client kept the connection open without reading.
      if (slow) setTimeout(() => res.destroy(), SLOW_GRACE_MS).unref();
    };
    const wants = (entry: RpcLogEntry): boolean => !wanted || wanted.has(entry.serverId);
    // The same bytes go to every subscriber (made once per entry), and a tick's entries in one write.
    const batch = new TickBatch((chunk) => {
      if (open) res.write(chunk);
    });
    const write = (entry: RpcLogEntry): void => batch.push(sseFrame(entry));

    // The replay goes out as the reader takes it, each entry the bytes the log keeps (no copy): many
    // streams opening at once over a log of large results hold no more memory than the log. What is
    // published meanwhile waits behind it, so nothing is missed or sent twice.
    const backlog = replayOf(req, bus, wanted);
    const waiting: RpcLogEntry[] = [];
    let waitingBytes = 0;
    let replaying = backlog.length > 0;
    let next = 0;
    const pump = (): void => {
      while (open && next < backlog.length) {
        const { seq, json } = backlog[next++] as { seq: number; json: Buffer };
        const head = Buffer.from(`id: ${seq}\ndata: `);
        const flowing =
          json.length <= ONE_WRITE_BYTES
            ? res.write(Buffer.concat([head, json, EVENT_END]))
            : (res.write(head), res.write(json), res.write(EVENT_END));
        if (!flowing) {
          res.once('drain', pump);
          return;
        }
      }
      if (!open) return;
      replaying = false;
      for (const entry of waiting) write(entry);
      waiting.length = 0;
    };
    const unsubscribe = bus.subscribe((entry) => {
      if (!open || !wants(entry)) return;
      if (replaying) {
        // A reader that takes neither the replay nor what came since is dropped as a slow one is; as
        // live, what is already waiting counts, so one large message alone never drops a fast reader.
        if (waitingBytes > options.maxBufferedBytes) return close(true);
        waitingBytes += sseFrame(entry).length;
        waiting.push(entry);
        return;
      }
      // Dropped when it has not taken what it was already sent: one large message alone never drops a fast reader.
      if (res.writableLength > options.maxBufferedBytes) close(true);
      else write(entry);
    });
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), options.keepaliveMs);
    req.on('close', () => close());
    pump();
  });
  // One entry whole: what the live channel's replay sent cut (`entry.cut`). `?bootId=` names the daemon
  // run that numbered it: the next run numbers its entries from 1 again.
  router.get('/:seq', (req: Request, res: Response) => {
    const asked = req.params.seq as string;
    const bootId = req.query.bootId;
    if (bootId !== undefined && (typeof bootId !== 'string' || bootId === '')) {
      throw new DaemonError(
        'invalid_request',
        'bootId: give it once, as the bootId the live channel said hello with',
      );
    }
    if (bootId !== undefined && bootId !== bus.bootId) {
      throw new DaemonError(
        'log_entry_not_found',
        `The daemon restarted since entry ${asked.slice(0, 40)} was logged, and its log started again`,
      );
    }
    const seq = /^\d{1,15}$/.test(asked) ? Number(asked) : NaN;
    if (!(seq >= 1 && seq <= bus.lastSeq)) {
      throw new DaemonError(
        'log_entry_not_found',
        `No log entry is numbered ${JSON.stringify(asked.slice(0, 40))}: ` +
          (bus.lastSeq === 0 ? 'the log is empty' : `they are numbered 1 to ${bus.lastSeq} (seq)`),
      );
    }
    const entry = bus.entry(seq);
    if (entry) return sendJson(res, 200, { entry } satisfies Answer<'GET /rpc-logs/:seq'>);
    throw new DaemonError(
      'log_entry_not_found',
      `The log no longer holds entry ${seq}: it keeps the last ${bus.capacity.toLocaleString('en-US')} ` +
        'entries, and fewer when they are large (--log-buffer-mb)',
    );
  });
  return router;
}
