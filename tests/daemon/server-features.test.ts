/** ping, logging/setLevel, completion/complete and the server's instructions, against server-everything. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcLogEntry } from '../../shared/logs.ts';
import { everythingStdio, startDaemon, type TestDaemon } from './helpers.ts';

let d: TestDaemon;

beforeAll(async () => {
  d = await startDaemon();
  expect((await d.api('PUT', '/api/mcp/servers/everything', { config: everythingStdio() })).status).toBe(201);
  expect(
    (
      await d.api('PUT', '/api/mcp/servers/missing', {
        config: { transport: 'stdio', command: '/no/such/mcp-server-binary' },
      })
    ).status,
  ).toBe(201);
}, 30_000);

afterAll(() => d?.close());

/** The requests the daemon sent to `everything` with this method, in order. */
function sent(method: string): Array<Record<string, unknown>> {
  return d.daemon.bus
    .since(0)
    .filter((entry: RpcLogEntry) => entry.serverId === 'everything' && entry.direction === 'send')
    .map((entry) => entry.message as Record<string, unknown>)
    .filter((message) => message.method === method);
}

describe('the server record', () => {
  it('carries the instructions the server gave in its initialize result', async () => {
    const connected = await d.api('POST', '/api/mcp/servers/everything/connect');
    expect(connected.status).toBe(200);
    expect(connected.body.serverInfo.name).toBe('mcp-servers/everything');
    expect(typeof connected.body.instructions).toBe('string');
    expect(connected.body.instructions.length).toBeGreaterThan(20);
  });
});

describe('ping', () => {
  it('answers the round trip of a ping the server answered', async () => {
    const before = sent('ping').length;
    const response = await d.api('POST', '/api/mcp/servers/everything/ping');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['roundTripMs', 'method']);
    expect(response.body.method).toBe('ping');
    expect(response.body.roundTripMs).toBeGreaterThanOrEqual(0);
    expect(sent('ping').length).toBe(before + 1);
  });

  it('answers 404 for an unknown server and 502 with the reason for one that cannot start', async () => {
    expect((await d.api('POST', '/api/mcp/servers/nobody/ping')).status).toBe(404);
    const failed = await d.api('POST', '/api/mcp/servers/missing/ping');
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatch(/^Command not found/);
  });
});

describe('logging level', () => {
  it('sends logging/setLevel, shows the level in the record and sends it again after a reconnect', async () => {
    const set = await d.api('POST', '/api/mcp/servers/everything/logging-level', { level: 'debug' });
    expect(set.status).toBe(200);
    expect(set.body.loggingLevel).toBe('debug');
    expect(sent('logging/setLevel').at(-1)?.params).toEqual({ level: 'debug' });

    const count = sent('logging/setLevel').length;
    expect((await d.api('POST', '/api/mcp/servers/everything/disconnect')).status).toBe(200);
    const again = await d.api('POST', '/api/mcp/servers/everything/connect');
    expect(again.body.loggingLevel).toBe('debug');
    expect(sent('logging/setLevel').length).toBe(count + 1);
    expect(sent('logging/setLevel').at(-1)?.params).toEqual({ level: 'debug' });
  });

  it('answers a level that is none of the eight with 400 naming the field', async () => {
    const response = await d.api('POST', '/api/mcp/servers/everything/logging-level', { level: 'loud' });
    expect(response.status).toBe(400);
    expect(response.body.problems).toEqual([
      {
        path: 'level',
        message: 'must be one of debug, info, notice, warning, error, critical, alert, emergency',
      },
    ]);
  });
});

describe('completions', () => {
  it('passes completion/complete for a prompt argument through, with the other arguments as context', async () => {
    const department = await d.api('POST', '/api/mcp/completions/complete', {
      serverId: 'everything',
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'S' },
    });
    expect(department.status).toBe(200);
    expect(department.body.completion.values).toEqual(['Sales', 'Support']);

    const name = await d.api('POST', '/api/mcp/completions/complete', {
      serverId: 'everything',
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'name', value: 'A' },
      context: { arguments: { department: 'Engineering' } },
    });
    expect(name.body.completion.values).toEqual(['Alice']);
  });

  it('answers a body without ref or argument with 400, and an unknown server with 404', async () => {
    const bad = await d.api('POST', '/api/mcp/completions/complete', { serverId: 'everything' });
    expect(bad.status).toBe(400);
    expect(bad.body.problems.map((p: { path: string }) => p.path).sort()).toEqual(['argument', 'ref']);
    const unknown = await d.api('POST', '/api/mcp/completions/complete', {
      serverId: 'nobody',
      ref: { type: 'ref/prompt', name: 'x' },
      argument: { name: 'a', value: '' },
    });
    expect(unknown.status).toBe(404);
  });
});
