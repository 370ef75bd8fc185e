import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { DaemonOptions } from '../../daemon/options.ts';
import type { RpcLogEntry, RpcStderrEntry } from '../../shared/logs.ts';
import { sizedText } from '../fixtures/sized-text.ts';
import { childPids, fixtureStdio, isAlive, startDaemon, type TestDaemon } from './helpers.ts';

const MiB = 1024 * 1024;
const FIXTURE = 'output-server.ts';

/** A daemon with the output fixture registered as `output`. */
async function daemonWithOutputServer(overrides: Partial<DaemonOptions> = {}): Promise<TestDaemon> {
  const d = await startDaemon(overrides);
  onTestFinished(() => d.close());
  expect((await d.api('PUT', '/api/mcp/servers/output', { config: fixtureStdio(FIXTURE) })).status).toBe(201);
  return d;
}

const call = (d: TestDaemon, toolName: string, parameters: Record<string, unknown> = {}) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId: 'output', toolName, parameters });

const textOf = (result: { content?: Array<{ text?: string }> }): string =>
  (result.content ?? []).map((c) => c.text ?? '').join('');

/** The log stream's entries for `output`, replayed and then live, until `done` holds for them. */
async function readLog(
  d: TestDaemon,
  done: (entries: RpcLogEntry[]) => boolean,
  replay = 1000,
): Promise<RpcLogEntry[]> {
  const controller = new AbortController();
  const response = await fetch(`${d.url}/api/mcp/rpc-logs?replay=${replay}&serverIds=output`, {
    headers: { 'X-Inspector-Token': d.token },
    signal: controller.signal,
  });
  const entries: RpcLogEntry[] = [];
  const decoder = new TextDecoder();
  let rest = '';
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('data: ')) entries.push(JSON.parse(line.slice(6)));
      if (done(entries)) break;
    }
  } finally {
    controller.abort();
  }
  return entries;
}

describe('large messages from a STDIO server', () => {
  it('returns a 12 MiB tool result intact', async () => {
    const d = await daemonWithOutputServer();
    const executed = await call(d, 'sized-result', { bytes: 12 * MiB });
    expect(executed.status).toBe(200);
    expect(executed.body.status).toBe('completed');
    const text = textOf(executed.body.result);
    expect(text.length).toBe(12 * MiB);
    expect(text === sizedText(12 * MiB)).toBe(true);
  });

  it('answers 502 with the size and the limit for a message past maxMessageBytes, stops the server and stays up', async () => {
    const d = await daemonWithOutputServer({ maxMessageBytes: MiB });
    const underLimit = await call(d, 'sized-result', { bytes: MiB / 2 });
    expect(underLimit.status).toBe(200);
    const [pid] = childPids(FIXTURE);
    expect(pid).toBeDefined();

    const tooLarge = await call(d, 'sized-result', { bytes: 3 * MiB });
    expect(tooLarge.status).toBe(502);
    expect(tooLarge.body.error).toMatch(/more than 1 MiB \([\d,]+ bytes had arrived without its end\)/);
    expect(tooLarge.body.error).toContain("the daemon's limit of 1 MiB (option maxMessageBytes)");
    expect(tooLarge.body.error).toContain('the connection was reset and the server process stopped');
    expect(tooLarge.body.mcpError).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      data: { limit: MiB, received: expect.any(Number) },
    });
    expect(tooLarge.body.mcpError.data.received).toBeGreaterThan(MiB);

    const record = (await d.api('GET', '/api/mcp/servers/output')).body;
    expect(record.status).toBe('error');
    expect(record.lastError).toContain("past the daemon's limit of 1 MiB");
    expect(record.lastError).toContain('it is started again on the next call');
    await vi.waitFor(() => expect(isAlive(pid ?? 0)).toBe(false), { timeout: 10_000, interval: 50 });

    const again = await call(d, 'sized-result', { bytes: 100 });
    expect(again.status).toBe(200);
    expect(textOf(again.body.result)).toBe(sizedText(100));
    expect((await d.api('GET', '/api/mcp/servers/output')).body.status).toBe('connected');
  });

  it('stops a server that no longer reads its input while messages for it pile up past maxMessageBytes, and stays up', async () => {
    const d = await startDaemon({ maxMessageBytes: 256 * 1024 });
    onTestFinished(() => d.close());
    expect(
      (await d.api('PUT', '/api/mcp/servers/deaf', { config: fixtureStdio('raw-server.ts') })).status,
    ).toBe(201);
    // The tool never answers: the server stops reading and sends 50,000 roots/list requests, answered into its stdin.
    const deafened = await d.api('POST', '/api/mcp/tools/execute', { serverId: 'deaf', toolName: 'deafen' });
    expect(deafened.status).toBe(502);
    expect(deafened.body.error).toMatch(
      /^The server stopped reading its input: [\d,]+ bytes of messages for it were waiting, past the daemon's limit of 256 KiB \(option maxMessageBytes\): the connection was reset and the server process stopped\.$/,
    );
    expect(deafened.body.mcpError).toMatchObject({ code: 'INPUT_NOT_READ', data: { limit: 256 * 1024 } });
    expect(deafened.body.mcpError.data.queued).toBeGreaterThan(256 * 1024);
    const record = (await d.api('GET', '/api/mcp/servers/deaf')).body;
    expect(record.status).toBe('error');
    expect(record.lastError).toContain('The server stopped reading its input');
    expect((await d.api('GET', '/api/mcp/health')).status).toBe(200);
  });

  it('fails a call at once with 502 when the server answers it with no JSON-RPC response, saying what is wrong', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    expect(
      (await d.api('PUT', '/api/mcp/servers/raw', { config: fixtureStdio('raw-server.ts') })).status,
    ).toBe(201);
    const problems: Record<string, string> = {
      'code-not-integer': 'its error "code" is "abc", not an integer',
      'code-fraction': 'its error "code" is 1.5, not an integer',
      'code-unsafe': 'its error "code" is 1152921504606846976, not an integer JSON-RPC can carry exactly',
      'message-not-string': 'its error "message" is a JSON object, not a string',
      'error-null': 'its "error" is null, not an object',
      'result-and-error': 'it has both "result" and "error"',
      neither: 'it has neither "result" nor "error"',
      'member-too-many': 'it has a member "extra", which a response has not',
      'meta-not-object': 'its "result._meta" is a JSON number, not an object',
    };
    for (const [toolName, problem] of Object.entries(problems)) {
      const call = await d.api('POST', '/api/mcp/tools/execute', { serverId: 'raw', toolName });
      expect(call.status, toolName).toBe(502);
      expect(call.body, toolName).toMatchObject({
        code: 'mcp_error',
        error: `The server's response is not a JSON-RPC response: ${problem}; the log shows what it sent`,
        mcpError: { code: -32603, data: { reason: 'malformed-response', problem } },
      });
    }
    // The lock is free and the server still connected: the next call is answered.
    expect((await d.api('GET', '/api/mcp/servers/raw')).body.status).toBe('connected');
  });

  it('reads a response after a byte order mark, and fails a call answered in a JSON-RPC batch at once, but at 2025-03-26', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    await d.api('PUT', '/api/mcp/servers/raw', { config: fixtureStdio('raw-server.ts') });
    const bom = await d.api('POST', '/api/mcp/tools/execute', { serverId: 'raw', toolName: 'bom' });
    expect(bom.status).toBe(200);
    expect(textOf(bom.body.result)).toBe('answered bom');

    const batch = await d.api('POST', '/api/mcp/tools/execute', { serverId: 'raw', toolName: 'batch' });
    expect(batch.status).toBe(502);
    const problem =
      'came in a JSON-RPC batch (an array of 2 messages), which MCP has not had since 2025-06-18 (this connection: 2025-06-18)';
    expect(batch.body).toMatchObject({
      error: `The server's response ${problem}; the log shows what it sent`,
      mcpError: { data: { reason: 'batch', messages: 2, protocolVersion: '2025-06-18' } },
    });
    // Both messages of the batch are in the log, as received.
    const received = d.daemon.bus.since(0).filter((entry) => entry.direction === 'receive');
    expect(received.map((entry) => JSON.stringify(entry.message))).toContainEqual(
      expect.stringContaining('in a batch'),
    );
    expect((await d.api('GET', '/api/mcp/servers/raw')).body.status).toBe('connected');

    await d.api('PUT', '/api/mcp/servers/old', {
      config: fixtureStdio('raw-server.ts', { RAW_PROTOCOL: '2025-03-26' }),
    });
    const allowed = await d.api('POST', '/api/mcp/tools/execute', { serverId: 'old', toolName: 'batch' });
    expect(allowed.status).toBe(200);
    expect(textOf(allowed.body.result)).toBe('answered batch');
  });

  it("reports a server's error code as it sent it, where the SDK maps -32002 to -32602", async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    await d.api('PUT', '/api/mcp/servers/raw', { config: fixtureStdio('raw-server.ts') });
    const read = await d.api('POST', '/api/mcp/resources/read', { serverId: 'raw', uri: 'demo://gone' });
    expect(read.status).toBe(502);
    expect(read.body.mcpError).toMatchObject({ code: -32002, data: { uri: 'demo://gone' } });
  });

  it('carries on past a line on stdout that is not JSON-RPC, and reads a CRLF line that is', async () => {
    const d = await daemonWithOutputServer();
    const executed = await call(d, 'stdout-noise');
    expect(executed.status).toBe(200);
    expect(textOf(executed.body.result)).toBe('still here');
    expect((await d.api('GET', '/api/mcp/servers/output')).body.status).toBe('connected');
    const received = d.daemon.bus
      .since(0)
      .filter((entry) => entry.direction === 'receive')
      .map((entry) => entry.message);
    expect(received).toContainEqual({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'crlf' },
    });
    expect(JSON.stringify(received)).not.toContain('hello');
    // The stray lines are in the log, as the server's stdout, in the order written.
    const stray = d.daemon.bus.since(0).filter((entry) => entry.direction === 'stdout');
    expect(stray.map((entry) => entry.message)).toEqual([
      'this line is not JSON-RPC',
      '{"hello":"world"}',
      `  ${'é'.repeat(198)}…`,
      'ü'.repeat(150),
    ]);
  });

  it('names the stray stdout lines of a server that fails to start', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    // A server that prints a banner on stdout, where only JSON-RPC may go, and then ends.
    const script = "process.stdout.write('Weather server listening on port 3000\\n', () => process.exit(3))";
    const config = { transport: 'stdio', command: process.execPath, args: ['-e', script] };
    expect((await d.api('PUT', '/api/mcp/servers/banner', { config })).status).toBe(201);
    const connect = await d.api('POST', '/api/mcp/servers/banner/connect');
    expect(connect.status).toBe(502);
    expect(connect.body.mcpError).toMatchObject({ code: 'PROCESS_EXITED', data: { exitCode: 3 } });
    expect(connect.body.error).toContain('exited with code 3 before the MCP handshake finished');
    expect(connect.body.error).toContain(
      'It wrote to stdout lines that are not JSON-RPC messages (log to stderr instead): Weather server listening on port 3000',
    );
    const record = (await d.api('GET', '/api/mcp/servers/banner')).body;
    expect(record.lastError).toContain('Weather server listening on port 3000');
    // Era auto starts a STDIO server that ended at the server/discover probe once more to initialize
    // it: each start prints the banner.
    const stray = d.daemon.bus.since(0).filter((entry) => entry.direction === 'stdout');
    expect(stray.length).toBeGreaterThanOrEqual(1);
    expect(stray.length).toBeLessThanOrEqual(2);
    for (const entry of stray) {
      expect(entry).toMatchObject({ serverId: 'banner', message: 'Weather server listening on port 3000' });
    }
  });
});

describe('stderr from a STDIO server', () => {
  it('shows a multi-MiB stderr line cut to 8 KiB with the rest counted, and the next line whole', async () => {
    const d = await daemonWithOutputServer();
    const bytes = 4 * MiB;
    expect((await call(d, 'long-stderr-line', { bytes })).status).toBe(200);

    const entries = await readLog(d, (all) => all.some((e) => e.message === 'after the long line'));
    const stderr = entries.filter((e): e is RpcStderrEntry => e.direction === 'stderr');
    const long = stderr.find((e) => e.message.startsWith('xxxx'));
    expect(long?.message).toBe(
      `${'x'.repeat(8192)} … (${(bytes - 8192).toLocaleString('en-US')} more bytes)`,
    );
    expect(stderr.map((e) => e.message)).toContain('after the long line');
    expect(stderr.indexOf(long as RpcStderrEntry)).toBeLessThan(
      stderr.findIndex((e) => e.message === 'after the long line'),
    );
  });
});

describe('a STDIO server flooding stderr and stdout', () => {
  it('logs a burst of its lines, counts the rest in notes, and leaves other servers their entries', async () => {
    const d = await daemonWithOutputServer({ logBufferSize: 5_000 });
    expect((await d.api('PUT', '/api/mcp/servers/quiet', { config: fixtureStdio(FIXTURE) })).status).toBe(
      201,
    );
    const quiet = await d.api('POST', '/api/mcp/tools/execute', {
      serverId: 'quiet',
      toolName: 'sized-result',
      parameters: { bytes: 10 },
    });
    expect(quiet.status).toBe(200);
    const lines = 30_000;
    expect((await call(d, 'flood-lines', { lines })).status).toBe(200);

    // Every line is either in the log or counted by a note: none is lost without a word.
    const flooded = (entries: RpcLogEntry[], direction: 'stderr' | 'stdout') => {
      const own = entries.filter((e) => e.direction === direction).map((e) => String(e.message));
      const notes = own.filter((m) => / lines? not logged: the server wrote more than/.test(m));
      const counted = notes.reduce(
        (sum, m) => sum + Number(/^… ([\d,]+) /.exec(m)?.[1]?.replaceAll(',', '')),
        0,
      );
      return { logged: own.filter((m) => m.includes(`${direction} flood `)).length, counted, notes };
    };
    const done = (entries: RpcLogEntry[]) =>
      (['stderr', 'stdout'] as const).every((dir) => {
        const { logged, counted } = flooded(entries, dir);
        return logged + counted === lines;
      });
    const entries = await readLog(d, done, 5_000);
    for (const direction of ['stderr', 'stdout'] as const) {
      const { logged, counted, notes } = flooded(entries, direction);
      expect(logged + counted).toBe(lines);
      expect(counted).toBeGreaterThan(0);
      expect(notes[0]).toMatch(
        new RegExp(`^… [\\d,]+ ${direction} lines not logged: the server wrote more than 200 lines a second`),
      );
    }
    // Together the two streams had 1,000 lines at once and 200 a second after: the quiet server's
    // entries are still in a 5,000-entry log.
    const all = d.daemon.bus.since(0);
    expect(all.filter((e) => e.serverId === 'quiet' && e.direction === 'receive').length).toBeGreaterThan(0);
    expect(
      all.filter((e) => e.serverId === 'output' && e.direction !== 'send' && e.direction !== 'receive')
        .length,
    ).toBeLessThan(2_500);
  });

  it('says what it left out as the server is disconnected, not a second later', async () => {
    const d = await daemonWithOutputServer();
    expect((await call(d, 'flood-lines', { lines: 5_000 })).status).toBe(200);
    expect((await d.api('POST', '/api/mcp/servers/output/disconnect')).status).toBe(200);
    // A command (record, --verbose) ends with the connection: a note due later would never be written.
    const notes = d.daemon.bus
      .since(0)
      .map((entry) => String(entry.message))
      .filter((message) => / lines? not logged: the server wrote more than/.test(message));
    expect(notes.length).toBeGreaterThan(0);
  });
});
