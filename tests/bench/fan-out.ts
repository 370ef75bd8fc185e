/**
 * Log fan-out: subscribers of the live log while a real server floods it. A fixture server
 * (tests/fixtures/flood-server.ts, over STDIO) sends `notifications/message` at a set rate, each one a log
 * entry on the daemon's bus; 10 subscribers read them, either as Server-Sent Events of
 * `GET /api/mcp/rpc-logs?serverIds=flood` or on the WebSocket live channel `GET /api/mcp/ws`. Every
 * subscriber must get every entry, in order: sequence numbers without a gap and the notifications'
 * `data.i` from 0 up. The rate is the daemon's: entries over the time between the first and the last
 * notification's timestamp.
 */
import { join } from 'node:path';
import { Client as HttpClient } from 'undici';
import WebSocket from 'ws';
import { cpuMs, JSON_HEADERS, ROOT, startDaemon, TOKEN } from './support.ts';

export interface FanOutResult {
  kind: 'sse' | 'websocket';
  subscribers: number;
  sent: number;
  /** Entries a second at the daemon: notifications over first-to-last timestamp. */
  rate: number;
  /** Per subscriber: notifications received in order before the first loss or disorder. */
  received: number[];
  /** Whether every subscriber got every entry in order. */
  complete: boolean;
  /** What went wrong for subscribers that did not get everything. */
  problems: string[];
  /** ms from the tool call's answer until the last subscriber had everything. */
  drainMs: number;
  /** CPU time per notification, µs: the daemon's, and this process's (the subscribers'). */
  daemonCpu: number;
  readerCpu: number;
}

const NOTIFICATION = '"data":{"i":';
const TIMESTAMP = /"timestamp":"([^"]+)"/;

/**
 * Checks one subscriber's entries as they come: sequence numbers and notification numbers in order. It
 * reads them with indexOf, not a JSON parser: ten subscribers in this one process must keep up with the
 * daemon, or the daemon drops them as too slow, as it should.
 */
class Subscriber {
  lastSeq = 0;
  nextI = 0;
  broken?: string;
  first?: string;
  last?: string;

  take(seq: number, json: string): void {
    if (this.broken) return;
    if (this.lastSeq !== 0 && seq !== this.lastSeq + 1) this.broken = `seq ${seq} after ${this.lastSeq}`;
    this.lastSeq = seq;
    const at = json.indexOf(NOTIFICATION);
    if (at === -1) return;
    const i = Number.parseInt(json.slice(at + NOTIFICATION.length, at + NOTIFICATION.length + 12), 10);
    if (i !== this.nextI) this.broken = `notification ${i} where ${this.nextI} was due`;
    else this.nextI++;
    this.first ??= json;
    this.last = json;
  }

  /** Seconds between the first and the last notification this subscriber got, by the daemon's clock. */
  span(): number {
    const first = this.first && TIMESTAMP.exec(this.first)?.[1];
    const last = this.last && TIMESTAMP.exec(this.last)?.[1];
    return first && last ? (Date.parse(last) - Date.parse(first)) / 1000 : Number.NaN;
  }
}

async function openSse(url: string, subscriber: Subscriber): Promise<() => void> {
  const http = new HttpClient(url);
  const response = await http.request({
    path: '/api/mcp/rpc-logs?serverIds=flood',
    method: 'GET',
    headers: { 'x-inspector-token': TOKEN, accept: 'text/event-stream' },
  });
  if (response.statusCode !== 200) throw new Error(`rpc-logs answered ${response.statusCode}`);
  let text = '';
  response.body.setEncoding('utf8');
  response.body.on('data', (chunk: string) => {
    text += chunk;
    let start = 0;
    let end: number;
    // The daemon writes each event as `id: N\ndata: JSON\n\n`.
    while ((end = text.indexOf('\n\n', start)) !== -1) {
      if (text.startsWith('id: ', start)) {
        const data = text.indexOf('\ndata: ', start);
        subscriber.take(Number(text.slice(start + 4, data)), text.slice(data + 7, end));
      }
      start = end + 2;
    }
    text = text.slice(start);
  });
  response.body.on('error', () => {});
  response.body.on('end', () => {
    subscriber.broken ??= 'the daemon ended the stream';
  });
  return () => {
    response.body.destroy();
    void http.close();
  };
}

async function openWebSocket(url: string, subscriber: Subscriber): Promise<() => void> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/mcp/ws?token=${TOKEN}`);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.on('message', (data: Buffer) => {
    const text = data.toString('utf8');
    if (!text.startsWith('{"type":"rpc"')) return;
    // seq is the entry's last field, after the message.
    const seq = text.lastIndexOf('"seq":');
    if (seq !== -1 && text.includes('"serverId":"flood"')) {
      subscriber.take(Number.parseInt(text.slice(seq + 6, seq + 20), 10), text);
    }
  });
  ws.on('close', (code) => {
    if (code !== 1000 && code !== 1005) subscriber.broken ??= `closed with ${code}`;
  });
  return () => ws.close();
}

export async function measureFanOut(options: {
  kind: 'sse' | 'websocket';
  subscribers: number;
  perSecond: number;
  seconds: number;
}): Promise<FanOutResult> {
  const daemon = await startDaemon();
  const http = new HttpClient(daemon.url);
  const closers: Array<() => void> = [];
  try {
    const post = async (path: string, method: 'PUT' | 'POST', body: unknown) => {
      const response = await http.request({
        path,
        method,
        headers: JSON_HEADERS,
        body: JSON.stringify(body),
      });
      return { status: response.statusCode, json: (await response.body.json()) as any };
    };
    const config = {
      transport: 'stdio',
      command: process.execPath,
      args: [join(ROOT, 'tests/fixtures/flood-server.ts')],
    };
    await post('/api/mcp/servers/flood', 'PUT', { config });
    // Connected before anyone subscribes, so the streams hold the flood and nothing of the start.
    const warm = await post('/api/mcp/tools/execute', 'POST', {
      serverId: 'flood',
      toolName: 'flood',
      parameters: { perSecond: 1000, seconds: 0.1 },
    });
    if (warm.status !== 200) throw new Error(`flood answered ${warm.status}: ${JSON.stringify(warm.json)}`);

    const subscribers = Array.from({ length: options.subscribers }, () => new Subscriber());
    for (const subscriber of subscribers) {
      closers.push(await (options.kind === 'sse' ? openSse : openWebSocket)(daemon.url, subscriber));
    }
    const daemonBefore = cpuMs(daemon.child.pid);
    const readerBefore = process.cpuUsage();
    const call = await post('/api/mcp/tools/execute', 'POST', {
      serverId: 'flood',
      toolName: 'flood',
      parameters: { perSecond: options.perSecond, seconds: options.seconds },
    });
    const answered = performance.now();
    if (call.status !== 200) throw new Error(`flood answered ${call.status}: ${JSON.stringify(call.json)}`);
    const sent = Number(call.json.result.structuredContent.sent);
    const done = (s: Subscriber): boolean => s.broken !== undefined || s.nextI >= sent;
    while (!subscribers.every(done) && performance.now() - answered < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const drainMs = performance.now() - answered;
    const daemonCpu = ((cpuMs(daemon.child.pid) - daemonBefore) * 1000) / Math.max(1, sent);
    const reader = process.cpuUsage(readerBefore);
    const readerCpu = (reader.user + reader.system) / Math.max(1, sent);
    const span = subscribers[0]?.span() ?? Number.NaN;
    return {
      kind: options.kind,
      subscribers: options.subscribers,
      sent,
      rate: (sent - 1) / span,
      received: subscribers.map((s) => s.nextI),
      complete: subscribers.every((s) => s.broken === undefined && s.nextI === sent),
      problems: [...new Set(subscribers.flatMap((s) => (s.broken ? [s.broken] : [])))],
      drainMs,
      daemonCpu,
      readerCpu,
    };
  } finally {
    for (const close of closers) close();
    await http.close();
    await daemon.close();
  }
}

export function printFanOut(result: FanOutResult): void {
  const label = result.kind === 'sse' ? 'SSE /api/mcp/rpc-logs' : 'WebSocket /api/mcp/ws';
  console.log(`\nlog fan-out to ${result.subscribers} subscribers, ${label}`);
  console.log(
    `  ${result.sent} notifications at ${Math.round(result.rate)} entries/s (daemon timestamps); ` +
      `received in order: ${result.received.join(', ')}; last subscriber done ${result.drainMs.toFixed(0)} ms after the call answered`,
  );
  console.log(
    `  CPU per notification: daemon ${result.daemonCpu.toFixed(0)} µs, the ${result.subscribers} subscribers together ${result.readerCpu.toFixed(0)} µs`,
  );
  for (const problem of result.problems) console.log(`  problem: ${problem}`);
}
