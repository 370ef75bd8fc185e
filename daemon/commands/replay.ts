/**
 * `inspector-daemon replay SESSION.jsonl`: serves a recorded session as an MCP server, over STDIO or,
 * with `--port N`, over Streamable HTTP at http://127.0.0.1:N/mcp.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { exchanges, type Session, SessionFileError } from '../../shared/session-file.ts';
import { Matcher } from '../recording/matcher.ts';
import { requestTarget } from '../http/request-target.ts';
import { readSession } from '../recording/read-session.ts';
import { replayServer } from '../recording/replay-server.ts';
import { isLoopbackHost } from '../security/host-check-middleware.ts';
import { EXIT } from './exit-codes.ts';
import { connectionError, guarded, usageError } from './failure.ts';
import { parseCommand } from './target.ts';
import { terminalSafe } from './terminal-safe.ts';

const USAGE = `Usage: inspector-daemon replay SESSION.jsonl [--port N]

  Serves a recorded session (inspector-daemon record, or the panel's Logs view) as an MCP server:
  over STDIO, or over Streamable HTTP at http://127.0.0.1:N/mcp with --port N (0 picks a free port).
  initialize is answered with the recorded server info and capabilities. Every other request gets the
  answer recorded for the same method and params: the request's id and the params' _meta are not
  compared, key order does not matter; a request recorded several times gets its answers in turn.
  A request that was not recorded gets a JSON-RPC error naming its method.

  --port N             serve over Streamable HTTP on 127.0.0.1:N instead of STDIO`;

const OPTIONS = {
  port: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const MAX_BODY_BYTES = 64 * 1024 * 1024;

export function run(args: string[]): Promise<number> {
  return guarded('replay', async () => {
    const { values, positionals } = parseCommand(args, OPTIONS);
    if (values.help) {
      console.log(USAGE);
      return EXIT.ok;
    }
    const [file, ...extra] = positionals;
    if (!file) throw usageError('name the session file: inspector-daemon replay session.jsonl');
    if (extra.length) throw usageError(`unexpected argument "${extra[0]}": replay takes one session file`);
    const portText = values.port as string | undefined;
    if (portText !== undefined && (!/^\d+$/.test(portText) || Number(portText) > 65535)) {
      throw usageError(`--port must be a whole number from 0 to 65535, not "${portText}"`);
    }
    let session: Session;
    try {
      session = await readSession(file);
    } catch (error) {
      if (error instanceof SessionFileError) throw usageError(error.message);
      throw error;
    }
    const matcher = new Matcher(exchanges(session), file);
    return portText === undefined
      ? serveStdio(session, matcher)
      : serveHttp(session, matcher, Number(portText));
  });
}

/** Resolves on Ctrl+C or SIGTERM. */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

async function serveStdio(session: Session, matcher: Matcher): Promise<number> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const server = replayServer(session.header, matcher);
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  const ended = new Promise<void>((resolve) => process.stdin.once('end', resolve));
  await server.connect(new StdioServerTransport());
  console.error(terminalSafe(`inspector-daemon replay: serving ${describe(matcher)} over STDIO`));
  // The client closing stdin ends the replay.
  await Promise.race([closed, ended, stopSignal()]);
  await server.close();
  return EXIT.ok;
}

async function serveHttp(session: Session, matcher: Matcher, port: number): Promise<number> {
  const { StreamableHTTPServerTransport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    // Only this machine's names: a web page must not reach the replay through DNS rebinding.
    if (!isLoopbackHost(host)) return void res.writeHead(403).end('Forbidden Host');
    if (requestTarget(req.url)?.pathname !== '/mcp') {
      return void res.writeHead(404).end('The recorded session is served at /mcp');
    }
    if (req.method !== 'POST') {
      // Stateless, with nothing to send unasked: no stream to open (GET) and no session to end (DELETE).
      // A legacy HTTP+SSE client gets this at once, where an open stream would keep it waiting for an
      // endpoint that never comes.
      res.writeHead(405, { Allow: 'POST', 'Content-Type': 'text/plain; charset=utf-8' });
      return void res.end(
        'The replay answers JSON-RPC POSTed to /mcp (Streamable HTTP): it opens no SSE stream and keeps no session',
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) return void res.writeHead(413).end();
      chunks.push(chunk as Buffer);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      const error = { code: -32700, message: 'Parse error: the body is not JSON' };
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error }));
    }
    // Stateless: a server and transport per request; the recorded answers' turns are shared by all.
    const server = replayServer(session.header, matcher);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    answer(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, '127.0.0.1', () => resolve());
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw connectionError(
      code === 'EADDRINUSE'
        ? `port ${port} is in use: pass another --port (0 picks a free one)`
        : `cannot listen on port ${port}: ${code ?? (error as Error).message}`,
    );
  }
  const { port: bound } = http.address() as { port: number };
  console.log(
    terminalSafe(`inspector-daemon replay: serving ${describe(matcher)} at http://127.0.0.1:${bound}/mcp`),
  );
  await stopSignal();
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  return EXIT.ok;
}

function describe(matcher: Matcher): string {
  const methods = matcher.methods;
  return `${methods.length} recorded method${methods.length === 1 ? '' : 's'} (${methods.join(', ') || 'none'})`;
}
