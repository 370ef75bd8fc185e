import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDSHAKE_MAX_BYTES, type ServerConfig } from '../../shared/servers.ts';
import {
  everythingStdio,
  fixtureStdio,
  modernStdio,
  registerAndConnect,
  startDaemon,
  startEverythingHttp,
  type TestDaemon,
} from './helpers.ts';

describe('the handshake result in the server record', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon();
  });
  afterAll(() => d?.close());

  const connect = async (id: string, config: ServerConfig) => {
    const connected = await registerAndConnect(d, id, config);
    expect(connected.status).toBe(200);
    return connected.body;
  };

  it('keeps the server/discover result of a modern connection as the server sent it', async () => {
    const record = await connect('modern', modernStdio());
    expect(record.era).toBe('modern');
    expect(record.handshake).toMatchObject({
      method: 'server/discover',
      result: {
        instructions: 'A server of both MCP eras, for tests.',
        // Fields the parsed record leaves out are there: the result's type, its caching and `_meta`.
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-fixture', version: '2.0.0' } },
      },
    });
    expect(record.handshake.result.supportedVersions).toContain('2026-07-28');
    expect(record.handshake.bytes).toBe(Buffer.byteLength(JSON.stringify(record.handshake.result)));
    // The record's parsed fields were read from it.
    expect(record.handshake.result.capabilities).toEqual(record.capabilities);
    // GET shows the same record.
    expect((await d.api('GET', '/api/mcp/servers/modern')).body.handshake).toEqual(record.handshake);
  });

  it('keeps the initialize result of a legacy connection, and what the daemon declared as client', async () => {
    const record = await connect('legacy', modernStdio('both', { era: 'legacy' }));
    expect(record.era).toBe('legacy');
    expect(record.handshake).toMatchObject({
      method: 'initialize',
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'modern-fixture', version: '2.0.0' } },
    });
    expect(record.clientCapabilities).toMatchObject({ sampling: {}, roots: { listChanged: true } });
  });

  it('shows the initialize result when era auto falls back from a failed server/discover', async () => {
    const record = await connect('everything', everythingStdio());
    expect(record.era).toBe('legacy');
    expect(record.handshake.method).toBe('initialize');
    expect(record.handshake.result.serverInfo.name).toBe(record.serverInfo.name);
    expect(record.handshake.result.instructions).toBe(record.instructions);
  });

  it('takes the handshake from a Streamable HTTP server too', async () => {
    const server = await startEverythingHttp('streamableHttp');
    try {
      const record = await connect('everything-http', { transport: 'http', url: server.url });
      expect(record.handshake).toMatchObject({
        method: 'initialize',
        result: { serverInfo: record.serverInfo },
      });
    } finally {
      await d.api('DELETE', '/api/mcp/servers/everything-http');
      await server.stop();
    }
  });

  it('masks a secret of the config that the server echoes, in the result and in the instructions', async () => {
    const secret = 'sk-handshake-secret-1234';
    const record = await connect(
      'echoing',
      modernStdio('both', { era: 'legacy', env: { FIXTURE_INSTRUCTIONS: secret } }),
    );
    expect(JSON.stringify(record)).not.toContain(secret);
    expect(record.handshake.result.instructions).toBe('********');
    expect(record.instructions).toBe('********');
  });

  it('keeps only the size of a result larger than the limit', async () => {
    const bytes = String(HANDSHAKE_MAX_BYTES + 1000);
    const record = await connect(
      'large',
      modernStdio('both', { env: { FIXTURE_INSTRUCTIONS_BYTES: bytes } }),
    );
    expect(record.handshake.method).toBe('server/discover');
    expect(record.handshake.bytes).toBeGreaterThan(HANDSHAKE_MAX_BYTES);
    expect(record.handshake.result).toBeUndefined();
    // The parsed fields stay.
    expect(record.instructions).toHaveLength(HANDSHAKE_MAX_BYTES + 1000);
  });

  it('lists the capabilities as the server declared them, keys the SDK does not know as well', async () => {
    const declared = {
      tools: { listChanged: true },
      'io.example/audit': { level: 2 },
      futureFeature: {},
      experimental: { custom: { on: true } },
    };
    const env = { RAW_CAPABILITIES: JSON.stringify(declared) };
    const legacy = await connect('declared', fixtureStdio('raw-server.ts', env));
    expect(legacy.capabilities).toEqual(declared);
    const modern = await connect('declared-modern', {
      ...fixtureStdio('raw-server.ts', { ...env, RAW_ERA: 'modern' }),
      era: 'modern',
    });
    expect(modern.era).toBe('modern');
    expect(modern.capabilities).toEqual(declared);
  });

  it('keeps declared capabilities when only the rest of the handshake is too large to keep', async () => {
    const record = await connect(
      'large-instructions',
      fixtureStdio('raw-server.ts', {
        RAW_CAPABILITIES: JSON.stringify({ tools: {}, 'io.example/audit': { level: 2 } }),
        RAW_INSTRUCTIONS_BYTES: String(HANDSHAKE_MAX_BYTES),
      }),
    );
    expect(record.handshake.result).toBeUndefined();
    expect(record.capabilities).toEqual({ tools: {}, 'io.example/audit': { level: 2 } });
  });

  it('falls back to the capabilities the SDK parsed when they are themselves too large to keep', async () => {
    const record = await connect(
      'large-capabilities',
      fixtureStdio('raw-server.ts', {
        RAW_CAPABILITIES: JSON.stringify({ tools: {}, big: { blob: 'x'.repeat(HANDSHAKE_MAX_BYTES) } }),
      }),
    );
    expect(record.handshake.result).toBeUndefined();
    expect(record.capabilities).toEqual({ tools: {} });
  });

  it('masks a secret of the config in a declared capability, key or value', async () => {
    const secret = 'sk-capability-secret-42';
    const record = await connect(
      'secret-capabilities',
      fixtureStdio('raw-server.ts', {
        RAW_CAPABILITIES: JSON.stringify({ tools: {}, 'x.example/auth': { token: secret } }),
        API_KEY: secret,
      }),
    );
    expect(record.capabilities).toEqual({ tools: {}, 'x.example/auth': { token: '********' } });
    expect(JSON.stringify(record)).not.toContain(secret);
  });

  it('drops the handshake when the server is disconnected', async () => {
    const record = await d.api('POST', '/api/mcp/servers/legacy/disconnect');
    expect(record.body.status).toBe('disconnected');
    expect(record.body.handshake).toBeUndefined();
    expect(record.body.clientCapabilities).toBeUndefined();
  });
});
