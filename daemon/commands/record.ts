/**
 * `inspector-daemon record SERVER --out FILE`: writes a session file (.jsonl, shared/session-file.ts).
 * It connects, lists the server's tools, resources and prompts (so that replay and diff have them) and
 * makes the `--call`s given. In this process it then ends; through a daemon (`--daemon URL`) it goes on
 * recording that server's traffic from the daemon's log (calls made in the panel) until Ctrl+C or SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { realpath, rename, rm, stat } from 'node:fs/promises';
import type { JsonObject } from '../../shared/api.ts';
import type { RpcLogEntry } from '../../shared/logs.ts';
import { formatLine, type SessionHeader, sessionHeader, sessionLine } from '../../shared/session-file.ts';
import { LogBus } from '../logs/log-bus.ts';
import { Answerer, readAnswers } from './answers.ts';
import { callArguments } from './call-args.ts';
import { type DaemonAccess, DaemonApi, openDaemon } from './daemon-session.ts';
import { EXIT } from './exit-codes.ts';
import { classify, connectionError, guarded, usageError } from './failure.ts';
import { SERVER_HELP } from './help.ts';
import { openLocal } from './local-session.ts';
import { type Session, track } from './session.ts';
import {
  callTimeoutMs,
  parseCommand,
  resolveTarget,
  type Target,
  TARGET_OPTIONS,
  type Values,
} from './target.ts';
import { terminalSafe } from './terminal-safe.ts';

const USAGE = `Usage: inspector-daemon record SERVER --out FILE [--call NAME [--args JSON]]... [--answer JSON|FILE]...

  Records a session with the server to FILE (.jsonl: a header line, then one line per JSON-RPC
  message, secrets redacted): connects, initializes, lists its tools, resources and prompts, and makes
  each --call. With --daemon URL it then goes on recording every message of that server in the daemon
  (the calls made in the panel) until Ctrl+C or SIGTERM, and writes the file when stopped.
  Serve the file with \`inspector-daemon replay FILE\`; compare a server with it with \`inspector-daemon diff\`.

  --out FILE           the session file to write (.jsonl)
  --call NAME          call this tool (repeatable); an --args JSON after it gives its arguments
  --args JSON          the arguments of the --call before it, as a JSON object
  --answer JSON|FILE   answer to an elicitation during a call, in order; without one it is declined

${SERVER_HELP.replace(/^.*--json \| --pretty.*\n\n/, '')}`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  out: { type: 'string' },
  call: { type: 'string', multiple: true },
  args: { type: 'string', multiple: true },
} as const;

interface Call {
  name: string;
  args: JsonObject;
}

export function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return guarded('record', async () => {
    const { values, positionals } = parseCommand(argv, OPTIONS);
    if (values.help) {
      console.log(USAGE);
      return EXIT.ok;
    }
    if (positionals.length) throw usageError(`unexpected argument "${positionals[0]}"`);
    const out = values.out as string | undefined;
    if (!out) throw usageError('--out FILE is needed: the session file to write');
    const toCall = calls(argv);
    const target = await resolveTarget(values, env);
    // Written beside FILE and moved over it at the end: a recording that fails leaves FILE as it was
    // (a replay of FILE may be what is being recorded).
    const output = await openOut(out);
    const file = output.stream;
    const closeFile = (): Promise<void> => new Promise((resolve) => file.end(resolve));
    let code: number;
    try {
      code =
        target.kind === 'daemon'
          ? await recordThroughDaemon(target.access, target.serverId, file, values, toCall, out)
          : await recordHere(target, file, values, toCall, out);
    } catch (error) {
      await closeFile();
      // Nothing recorded (the server could not be reached): FILE is left alone; what was recorded is kept.
      await output.finish(file.bytesWritten > 0);
      throw error;
    }
    await closeFile();
    await output.finish(true);
    return code;
  });
}

/** The `--call NAME [--args JSON]` pairs, in the order given. */
function calls(argv: string[]): Call[] {
  const found: Call[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = (argv[i] ?? '').split(/=(.*)/s, 2);
    if (flag !== '--call' && flag !== '--args') continue;
    const value = inline ?? argv[++i] ?? '';
    if (flag === '--call') found.push({ name: value, args: {} });
    else {
      const last = found.at(-1);
      if (!last) throw usageError('--args goes after the --call NAME it is for');
      last.args = callArguments(value, []);
    }
  }
  return found;
}

/**
 * The file the recording is written to, opened before connecting (a path that cannot be written is
 * said at once): a temporary one beside the file `path` names (through a link), moved over it by
 * `finish`; or a pipe or device itself.
 */
async function openOut(path: string): Promise<{ stream: WriteStream; finish(keep: boolean): Promise<void> }> {
  const cannot = (why: string | undefined) =>
    usageError(`--out ${path} cannot be written: ${why ?? 'error'}`);
  // Through a link to where it points; a pipe or a device (/dev/stdout) is written as it is, nothing to move.
  const real = await realpath(path).catch(() => path);
  const info = await stat(real).catch(() => undefined);
  if (info?.isDirectory()) throw cannot('it is a folder');
  const direct = info !== undefined && !info.isFile();
  const written = direct ? real : `${real}.${randomBytes(4).toString('hex')}.tmp`;
  const stream = createWriteStream(written, { flags: direct ? 'w' : 'wx' });
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw cannot(code === 'ENOENT' ? 'its folder does not exist' : code);
  }
  return {
    stream,
    async finish(keep) {
      if (direct) return;
      if (keep) await rename(written, real);
      else await rm(written, { force: true });
    },
  };
}

/** Lists what the server declares and makes the calls; a failure is told and recorded as it was answered. */
async function exercise(
  session: Session,
  header: SessionHeader,
  toCall: Call[],
  stopped?: AbortSignal,
): Promise<void> {
  const capabilities = header.server.capabilities ?? {};
  const steps: Array<[string, () => Promise<unknown>]> = [];
  if (capabilities.tools) steps.push(['tools/list', () => session.listTools()]);
  if (capabilities.resources) steps.push(['resources/list', () => session.listResources()]);
  if (capabilities.prompts) steps.push(['prompts/list', () => session.listPrompts()]);
  for (const call of toCall)
    steps.push([`the call of "${call.name}"`, () => session.callTool(call.name, call.args)]);
  for (const [what, step] of steps) {
    // Stopped (Ctrl+C), the rest is not asked: the recording ends with what was done.
    if (stopped?.aborted) return;
    try {
      await step();
    } catch (error) {
      if (stopped?.aborted) return;
      console.error(
        terminalSafe(
          `inspector-daemon record: ${what} failed (${classify(error).message}); recorded as answered`,
        ),
      );
    }
  }
}

/** In this process: the connection's own log, written once the listings and calls are done. */
async function recordHere(
  { server, label }: Extract<Target, { kind: 'local' }>,
  file: WriteStream,
  values: Values,
  toCall: Call[],
  out: string,
): Promise<number> {
  const bus = new LogBus(100);
  const entries: RpcLogEntry[] = [];
  // Subscribed before connecting: the bus hands its subscribers each entry with the secrets redacted.
  bus.subscribe((entry) => entries.push(entry));
  const answerer = new Answerer(readAnswers((values.answer as string[] | undefined) ?? []));
  const session = track(
    await openLocal(server, {
      answerer,
      label,
      verbose: values.verbose === true,
      bus,
      toolTimeoutMs: callTimeoutMs(values),
    }),
  );
  let header: SessionHeader;
  try {
    // What the connection learnt in its handshake, at either era (initialize, or server/discover).
    const { serverInfo, protocolVersion, capabilities, instructions } = session.server();
    header = sessionHeader({ name: server.name, serverInfo, protocolVersion, capabilities, instructions });
    await exercise(session, header, toCall);
  } finally {
    await session.close();
  }
  file.write(formatLine(header));
  for (const entry of entries) file.write(formatLine(sessionLine(entry)));
  console.log(`recorded ${countMessages(entries)} messages of ${label} to ${out}`);
  return EXIT.ok;
}

/**
 * Through a daemon: the server's entries from the daemon's log stream (`rpc-logs`), written as they
 * come, until Ctrl+C or SIGTERM. A stream the daemon ends (it drops a slow reader) is resumed after
 * the last entry it sent.
 */
async function recordThroughDaemon(
  access: DaemonAccess,
  serverId: string,
  file: WriteStream,
  values: Values,
  toCall: Call[],
  out: string,
): Promise<number> {
  const stopped = new AbortController();
  let session: Session | undefined;
  // Ctrl+C (again and again) ends the recording cleanly: a call under way is cancelled in the daemon,
  // which would otherwise stay busy with it, and the file is finished with what came.
  const stop = (): void => {
    if (stopped.signal.aborted) return;
    stopped.abort();
    void session?.close();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const answerer = new Answerer(readAnswers((values.answer as string[] | undefined) ?? []));
    // Connected first, so the header carries the server's info and capabilities.
    session = await openDaemon(access, serverId, answerer, callTimeoutMs(values));
    const api = new DaemonApi(access);
    const header = sessionHeader(await api.call('GET /servers/:id', { id: serverId }));
    file.write(formatLine(header));
    let recorded = 0;
    const following = follow(access, serverId, stopped.signal, (entry) => {
      file.write(formatLine(sessionLine(entry)));
      if (entry.direction === 'send' || entry.direction === 'receive') recorded++;
    });
    await following.started;
    await exercise(session, header, toCall, stopped.signal);
    if (!stopped.signal.aborted) {
      console.error(`inspector-daemon record: recording "${serverId}" to ${out}; Ctrl+C to stop`);
    }
    await following.ended;
    console.log(`recorded ${recorded} messages of "${serverId}" to ${out}`);
    return EXIT.ok;
  } finally {
    // Kept until the command exits: a Ctrl+C pressed again while the file is being finished does nothing,
    // where Node's own handler would kill the command before the file is in place.
    stopped.abort();
  }
}

/** Follows the daemon's log stream for one server; `started` once the first stream is open. */
function follow(
  access: DaemonAccess,
  serverId: string,
  signal: AbortSignal,
  onEntry: (entry: RpcLogEntry) => void,
): { started: Promise<void>; ended: Promise<void> } {
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const ended = (async () => {
    let lastSeq: number | undefined;
    while (!signal.aborted) {
      let response: Response;
      try {
        response = await fetch(`${access.url}/api/mcp/rpc-logs?serverIds=${encodeURIComponent(serverId)}`, {
          headers: {
            ...(access.token && { 'X-Inspector-Token': access.token }),
            ...(lastSeq !== undefined && { 'Last-Event-ID': String(lastSeq) }),
          },
          signal,
        });
      } catch {
        if (signal.aborted) break;
        throw connectionError(
          `lost the daemon at ${access.url}; what was recorded until then is in the file`,
        );
      }
      if (!response.ok || !response.body) {
        throw connectionError(`the daemon at ${access.url} refused its log stream (HTTP ${response.status})`);
      }
      markStarted();
      try {
        for await (const entry of sseEntries(response.body)) {
          lastSeq = entry.seq;
          if (entry.serverId === serverId) onEntry(entry);
        }
      } catch {
        // Stopped (the fetch is aborted), or the stream broke: resumed unless stopped.
      }
    }
  })();
  return { started: Promise.race([started, ended]), ended };
}

/** The log entries of a Server-Sent Events body, one per `data:` event. */
async function* sseEntries(body: ReadableStream<Uint8Array>): AsyncGenerator<RpcLogEntry> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      const data = buffered
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      buffered = buffered.slice(end + 2);
      if (data) yield JSON.parse(data) as RpcLogEntry;
    }
  }
}

function countMessages(entries: RpcLogEntry[]): number {
  return entries.filter((entry) => entry.direction === 'send' || entry.direction === 'receive').length;
}
