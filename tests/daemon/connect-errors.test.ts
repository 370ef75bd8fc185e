import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { ServerConfig } from '../../shared/servers.ts';
import {
  fixtureStdio,
  freePort,
  isAlive,
  registerAndConnect,
  startDaemon,
  type TestDaemon,
} from './helpers.ts';

const SECRET = 'sekret123';

let d: TestDaemon;
let http: Server;
let httpOrigin: string;

/** A tiny HTTP server that is no working MCP endpoint: 401 under /protected, a JSON-RPC error naming the key under /bad-key, 404 elsewhere. */
function startTinyServer(): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/protected')) {
      res.writeHead(401, { 'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer realm="mcp"' });
      res.end(`unauthorized: ${req.url}`);
    } else if (url.pathname === '/bad-key' && req.method === 'POST') {
      // A server that names the rejected key in its error, as many do.
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: JSON.parse(body).id,
            error: { code: -32000, message: `Invalid API key: ${url.searchParams.get('api_key')}` },
          }),
        );
      });
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end(`Cannot ${req.method} ${req.url}`);
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  // Long enough for a Node process to start and answer on a busy 2-core machine, where 0.5 s was not.
  d = await startDaemon({ connectTimeoutMs: 2000 });
  http = await startTinyServer();
  httpOrigin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await d?.close();
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
});

let serial = 0;

/**
 * Registers the config, connects, and checks that the 502 and the server record tell the same story;
 * returns the message.
 */
async function failedConnect(config: ServerConfig): Promise<{ message: string; mcpError: any }> {
  const id = `failing-${++serial}`;
  const connected = await registerAndConnect(d, id, config);
  expect(connected.status).toBe(502);
  const { error, mcpError } = connected.body;
  expect(mcpError.message).toBe(error);
  const record = (await d.api('GET', `/api/mcp/servers/${id}`)).body;
  expect(record.status).toBe('error');
  expect(record.lastError).toBe(error);
  return { message: error, mcpError };
}

describe('failed connections say why', () => {
  it('names a command that is not found', async () => {
    const { message, mcpError } = await failedConnect({
      transport: 'stdio',
      command: 'inspector-no-such-command-4711',
    });
    expect(message).toContain('Command not found: "inspector-no-such-command-4711"');
    expect(mcpError.code).toBe('COMMAND_NOT_FOUND');
  });

  it('gives the exit code and the last stderr lines of a process that exits before the handshake', async () => {
    const { message, mcpError } = await failedConnect({
      transport: 'stdio',
      command: process.execPath,
      args: ['-e', "console.error('boom: missing API key'); process.exit(7)"],
    });
    expect(message).toContain('exited with code 7');
    expect(message).toContain('boom: missing API key');
    expect(mcpError).toMatchObject({ code: 'PROCESS_EXITED', data: { exitCode: 7 } });
  });

  it("gives the server's own error answer to initialize, also when the process exits after it", async () => {
    const answerAndExit = [
      "process.stdin.once('data', (data) => {",
      "  const { id } = JSON.parse(String(data).split('\\n')[0]);",
      "  const error = { code: -32000, message: 'License expired: renew at example.com' };",
      "  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error }) + '\\n', () => process.exit(0));",
      '});',
    ].join('\n');
    const { message, mcpError } = await failedConnect({
      transport: 'stdio',
      command: process.execPath,
      args: ['-e', answerAndExit],
      era: 'legacy',
    });
    expect(message).toMatch(
      /^Could not start ".*": it answered the MCP handshake with error -32000: License expired: renew at example\.com \(the process then exited with code 0\)\.$/,
    );
    expect(mcpError).toMatchObject({ code: 'CONNECT_FAILED', data: { code: -32000 } });
  });

  it('says the connection was refused when nothing listens on the port', async () => {
    const port = await freePort();
    const { message } = await failedConnect({ transport: 'http', url: `http://127.0.0.1:${port}/mcp` });
    expect(message).toContain('Connection refused');
    expect(message).toContain(`127.0.0.1:${port}`);
  });

  it('says the port is one fetch refuses, not that no protocol version was found', async () => {
    const { message, mcpError } = await failedConnect({ transport: 'http', url: 'http://127.0.0.1:1/mcp' });
    expect(mcpError.code).toBe('BAD_PORT');
    expect(message).toContain('run the server on another port');
  });

  it.each(['http', 'sse'] as const)(
    'explains an HTTP 401 as a need for authorization (%s)',
    async (transport) => {
      const { message, mcpError } = await failedConnect({ transport, url: `${httpOrigin}/protected` });
      expect(message).toContain('401');
      expect(message).toMatch(/authorization/i);
      expect(message).toContain('OAuth');
      expect(mcpError.data).toEqual({ status: 401 });
    },
  );

  it.each(['http', 'sse'] as const)('explains an HTTP 404 as a wrong path (%s)', async (transport) => {
    const { message } = await failedConnect({ transport, url: `${httpOrigin}/wrong/path` });
    expect(message).toContain('404');
    expect(message).toContain('/wrong/path');
    expect(message).toMatch(/check the URL/);
  });

  it('ends the connect of an SSE server that never answers its stream at the time-out, and a remove at once', async () => {
    // Takes every request and answers none: the SSE client waits for its stream's first event.
    const sockets = new Set<Socket>();
    const mute = createServer(() => {});
    mute.on('connection', (socket) => sockets.add(socket));
    mute.listen(0, '127.0.0.1');
    await once(mute, 'listening');
    onTestFinished(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => mute.close(() => resolve()));
    });
    const url = `http://127.0.0.1:${(mute.address() as AddressInfo).port}/sse`;
    const { mcpError } = await failedConnect({ transport: 'sse', url });
    expect(mcpError.code).toBe('CONNECT_TIMEOUT');

    await d.api('PUT', '/api/mcp/servers/mute', { config: { transport: 'sse', url } });
    const connecting = d.api('POST', '/api/mcp/servers/mute/connect');
    await vi.waitFor(async () =>
      expect((await d.api('GET', '/api/mcp/servers/mute')).body.status).toBe('connecting'),
    );
    const removed = await d.api('DELETE', '/api/mcp/servers/mute');
    expect(removed.status).toBe(200);
    expect((await connecting).status).toBe(502);
  });

  it('says when the server gave no answer within the connect time-out', async () => {
    const { message, mcpError } = await failedConnect(fixtureStdio('silent-server.ts'));
    expect(message).toContain('No answer');
    expect(message).toContain('within 2 s');
    expect(mcpError.code).toBe('CONNECT_TIMEOUT');
  });

  it("adds the server's error answer to the era probe when the handshake then fails", async () => {
    // It answers its first request (server/discover, era auto) with an error and then says nothing.
    const refusing = fixtureStdio('failing-initialize-server.ts');
    const { message, mcpError } = await failedConnect({ ...refusing, args: [...refusing.args!, 'error'] });
    expect(mcpError.code).toBe('CONNECT_TIMEOUT');
    expect(message).toMatch(
      /^No answer to the MCP handshake within 2 s: .* It answered the era probe \(server\/discover\) with error -32603: refusing to start\.$/,
    );
  });

  it('bounds the whole handshake by the connect time-out, the era probe with it', async () => {
    // Era auto asks server/discover first, with a time-out of its own, and initialize after it: each
    // once took the whole time-out, so a silent server failed after twice the time given.
    const slow = await startDaemon({ connectTimeoutMs: 3000 });
    onTestFinished(() => slow.close());
    await slow.api('PUT', '/api/mcp/servers/silent', { config: fixtureStdio('silent-server.ts') });
    const started = Date.now();
    const connected = await slow.api('POST', '/api/mcp/servers/silent/connect');
    const took = Date.now() - started;
    expect(connected.body.mcpError.code).toBe('CONNECT_TIMEOUT');
    expect(connected.body.error).toContain('No answer to the MCP handshake within 3 s');
    // The time-out, the server's start and its stopping; not two time-outs (6 s).
    expect(took).toBeLessThan(5500);
  });

  it('is ended at once when the server is removed while it connects', async () => {
    // Longer than the test may take: the removal must not wait for the connect to time out.
    const slow = await startDaemon({ connectTimeoutMs: 60_000 });
    onTestFinished(() => slow.close());
    await slow.api('PUT', '/api/mcp/servers/silent', { config: fixtureStdio('silent-server.ts') });
    const connecting = slow.api('POST', '/api/mcp/servers/silent/connect');
    await vi.waitFor(
      async () => expect((await slow.api('GET', '/api/mcp/servers/silent')).body.status).toBe('connecting'),
      { timeout: 5000, interval: 20 },
    );
    expect((await slow.api('DELETE', '/api/mcp/servers/silent')).status).toBe(200);
    const connected = await connecting;
    expect(connected.status).toBe(502);
    expect(connected.body.mcpError.code).toBe('DISCONNECTED');
    expect(connected.body.error).toBe('The server was disconnected while it was connecting.');
    expect((await slow.api('GET', '/api/mcp/servers/silent')).status).toBe(404);
  });
});

describe('secrets in a failing URL', () => {
  it.each([
    ['a refused connection', async () => `http://127.0.0.1:${await freePort()}/mcp?api_key=${SECRET}`],
    ['a 401', async () => `${httpOrigin}/protected?api_key=${SECRET}`],
    ['an error that repeats the key', async () => `${httpOrigin}/bad-key?api_key=${SECRET}`],
  ])('never appear in the error of %s', async (_case, url) => {
    const { message } = await failedConnect({ transport: 'http', url: await url() });
    expect(message).not.toContain(SECRET);
    expect(
      JSON.stringify((await d.api('GET', '/api/mcp/servers/')).body.servers.map((s: any) => s.lastError)),
    ).not.toContain(SECRET);
  });

  it('are masked where the server repeats them', async () => {
    const { message } = await failedConnect({
      transport: 'http',
      url: `${httpOrigin}/bad-key?api_key=${SECRET}`,
    });
    expect(message).toContain('Could not connect');
    expect(message).toContain('Invalid API key: ********');
  });
});

/** A STDIO "server" that starts a long-lived grandchild, prints both pids, and never answers. */
const PARENT_SCRIPT = `
const { spawn } = require('node:child_process');
const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
console.error('pids ' + process.pid + ' ' + grandchild.pid);
process.stdin.resume();
`;

describe('a failed connect', () => {
  it('leaves no child process alive, not even one the server started', async () => {
    // Long enough that the script has surely printed its pids before the time-out.
    const slow = await startDaemon({ connectTimeoutMs: 2000 });
    try {
      await slow.api('PUT', '/api/mcp/servers/orphan-maker', {
        config: { transport: 'stdio', command: process.execPath, args: ['-e', PARENT_SCRIPT] },
      });
      const connected = await slow.api('POST', '/api/mcp/servers/orphan-maker/connect');
      expect(connected.status).toBe(502);
      expect(connected.body.mcpError.code).toBe('CONNECT_TIMEOUT');
      const line = slow.daemon.bus
        .last(100)
        .find((entry) => entry.direction === 'stderr' && entry.message.startsWith('pids '));
      expect(line).toBeDefined();
      const pids = String(line?.message).split(' ').slice(1).map(Number);
      expect(pids).toHaveLength(2);
      expect(isAlive(pids[0]!)).toBe(false);
      // The grandchild dies with its process group; the kernel may take a moment to finish it.
      await vi.waitFor(() => expect(isAlive(pids[1]!)).toBe(false), { timeout: 5000, interval: 50 });
    } finally {
      await slow.close();
    }
  });
});

/**
 * A STDIO "server" that starts a grandchild in a session of its own (`detached`: setsid), out of the
 * process group the daemon ends, prints both pids, and then never answers, or exits at once.
 */
const escaper = (then: 'wait' | 'exit') => `
const { spawn } = require('node:child_process');
const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true });
grandchild.unref();
console.error('pids ' + process.pid + ' ' + grandchild.pid);
${then === 'exit' ? 'setTimeout(() => process.exit(3), 300);' : 'process.stdin.resume();'}
`;

describe.runIf(process.platform === 'linux')('a process a server started that left its process group', () => {
  /** The pids of the server and its grandchild, from the stderr line the script printed. */
  async function pidsOf(daemon: TestDaemon): Promise<number[]> {
    let pids: number[] = [];
    await vi.waitFor(
      () => {
        const line = daemon.daemon.bus
          .last(100)
          .find((entry) => entry.direction === 'stderr' && entry.message.startsWith('pids '));
        pids = String(line?.message).split(' ').slice(1).map(Number);
        expect(pids).toHaveLength(2);
      },
      { timeout: 5000, interval: 50 },
    );
    return pids;
  }

  it.each([
    ['the server is removed', 'wait'],
    ['the server exits by itself', 'exit'],
  ] as const)('is ended when %s', async (_when, then) => {
    // Longer than the test may take: removing the server must not wait for the connect to time out.
    const fresh = await startDaemon({ connectTimeoutMs: 60_000 });
    onTestFinished(() => fresh.close());
    const pids: number[] = [];
    onTestFinished(() => {
      // Whatever the outcome, nothing is left running after the test.
      for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    });
    await fresh.api('PUT', '/api/mcp/servers/escaper', {
      config: { transport: 'stdio', command: process.execPath, args: ['-e', escaper(then)] },
    });
    const connecting = fresh.api('POST', '/api/mcp/servers/escaper/connect');
    pids.push(...(await pidsOf(fresh)));
    if (then === 'wait') {
      expect((await fresh.api('DELETE', '/api/mcp/servers/escaper')).status).toBe(200);
    }
    const connected = await connecting;
    expect(connected.status).toBe(502);
    expect(connected.body.mcpError.code).toBe(then === 'wait' ? 'DISCONNECTED' : 'PROCESS_EXITED');
    await vi.waitFor(() => expect(isAlive(pids[0]!)).toBe(false), { timeout: 5000, interval: 50 });
    // The grandchild is in no process group of the server's: it is found by the mark it inherited.
    await vi.waitFor(() => expect(isAlive(pids[1]!)).toBe(false), { timeout: 8000, interval: 50 });
  });
});

describe('a server whose URL cannot be parsed', () => {
  it('ends in error with a clear lastError and a 502 instead of staying in connecting', async () => {
    // Such a config cannot come through PUT; an older or hand-edited servers.json can hold one.
    const dataDir = await mkdtemp(join(tmpdir(), 'inspector-test-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const servers = { mcpServers: { unparsable: { type: 'http', url: 'http://[not-an-address/mcp' } } };
    await writeFile(join(dataDir, 'servers.json'), JSON.stringify(servers));
    const fresh = await startDaemon({ dataDir });
    onTestFinished(() => fresh.close());

    const connected = await fresh.api('POST', '/api/mcp/servers/unparsable/connect');
    expect(connected.status).toBe(502);
    expect(connected.body.error).toBe(
      "The server's URL cannot be parsed: give a full address such as http://127.0.0.1:3000/mcp.",
    );
    expect(connected.body.mcpError.code).toBe('INVALID_URL');
    const record = (await fresh.api('GET', '/api/mcp/servers/unparsable')).body;
    expect(record).toMatchObject({ status: 'error', lastError: connected.body.error });
    const listed = await fresh.api('POST', '/api/mcp/tools/list', { serverId: 'unparsable' });
    expect(listed.status).toBe(502);
    expect(listed.body.mcpError.code).toBe('INVALID_URL');
  });
});
