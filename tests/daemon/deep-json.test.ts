import { describe, expect, it, onTestFinished } from 'vitest';
import { exceedsDepth, MAX_MESSAGE_DEPTH, textExceedsDepth } from '../../shared/json-depth.ts';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import { fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';
import { entries, type LiveConnection, openLive } from './live-helpers.ts';

async function deepDaemon(env?: Record<string, string>): Promise<TestDaemon> {
  const d = await startDaemon();
  onTestFinished(() => d.close());
  const config = fixtureStdio('deep-server.ts', env);
  expect((await d.api('PUT', '/api/mcp/servers/deep', { config })).status).toBe(201);
  return d;
}

async function listening(d: TestDaemon): Promise<{ live: LiveConnection; sse: () => string }> {
  const live = await openLive(d);
  onTestFinished(() => live.close());
  await live.until((m) => m.length > 0);
  // A log stream reader too: the SSE route serialises every entry again.
  const controller = new AbortController();
  onTestFinished(() => controller.abort());
  const response = await fetch(`${d.url}/api/mcp/rpc-logs`, {
    headers: { 'X-Inspector-Token': d.token },
    signal: controller.signal,
  });
  let text = '';
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) text += decoder.decode(chunk);
    } catch {
      // aborted at the end of the test
    }
  })();
  return { live, sse: () => text };
}

const execute = (d: TestDaemon, toolName: string, parameters: object = {}) =>
  d.api('POST', '/api/mcp/tools/execute', { serverId: 'deep', toolName, parameters });

const placeholders = (live: LiveConnection): RpcMessageEntry[] =>
  entries(live.messages).filter(
    (e): e is RpcMessageEntry => e.direction !== 'stderr' && '_inspector' in (e.message as object),
  );

/** `{ level: { level: … 1 } }`, `depth` objects deep. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { level: value };
  return value;
}

describe('JSON nesting limits', () => {
  it('answers a result 5,000 levels deep with a 502 that says why, logs a placeholder and keeps serving', async () => {
    const d = await deepDaemon();
    const { live, sse } = await listening(d);
    const response = await execute(d, 'deep-result', { depth: 5000 });
    expect(response.status).toBe(502);
    expect(response.body.error).toMatch(`more than ${MAX_MESSAGE_DEPTH} levels deep`);
    expect(response.body.mcpError.data).toEqual({ reason: 'message-too-deep', limit: MAX_MESSAGE_DEPTH });
    const [placeholder] = await live.until(() => placeholders(live).length > 0 && placeholders(live));
    expect(placeholder?.direction).toBe('receive');
    expect(placeholder?.message).toMatchObject({ jsonrpc: '2.0', _inspector: { truncated: true } });
    await expect.poll(sse).toContain('"truncated":true');
    expect((await d.api('GET', '/api/mcp/health')).status).toBe(200);
    expect((await execute(d, 'deep-result', { depth: 3 })).status).toBe(200);
  });

  it('passes a result within the limit through whole', async () => {
    const d = await deepDaemon();
    const response = await execute(d, 'deep-result', { depth: 1000 });
    expect(response.status).toBe(200);
    expect(response.body.result.structuredContent).toEqual(nested(1000));
  });

  it('drops a notification 5,000 levels deep, logs a placeholder, and the call still answers', async () => {
    const d = await deepDaemon();
    const { live } = await listening(d);
    const response = await execute(d, 'deep-notification', { depth: 5000 });
    expect(response.status).toBe(200);
    expect(response.body.result.content[0].text).toBe('notified');
    const [placeholder] = await live.until(() => placeholders(live).length > 0 && placeholders(live));
    expect(placeholder?.message).toMatchObject({
      method: 'notifications/message',
      _inspector: { truncated: true },
    });
    expect(live.messages.some((m) => m.type === 'notification' && m.method === 'notifications/message')).toBe(
      false,
    );
  });

  it('answers a request 5,000 levels deep from the server with an error', async () => {
    const d = await deepDaemon();
    const response = await execute(d, 'deep-request', { depth: 5000 });
    expect(response.status).toBe(200);
    expect(response.body.result.content[0].text).toMatch(/^refused: The request nests/);
  });

  it('redacts the secrets of a server that sends a message too deep, and keeps serving', async () => {
    const d = await deepDaemon({ API_KEY: 'sk-live-0123456789abcdef' });
    await listening(d);
    expect((await execute(d, 'deep-result', { depth: 5000 })).status).toBe(502);
    expect((await execute(d, 'deep-notification', { depth: 5000 })).status).toBe(200);
    expect((await d.api('GET', '/api/mcp/servers/deep')).body.status).toBe('connected');
  });

  it('refuses parameters 10,000 levels deep with a 400, and a live-channel replay afterwards still works', async () => {
    const d = await deepDaemon();
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const response = await d.api(
      'POST',
      '/api/mcp/tools/execute',
      `{"serverId":"deep","toolName":"deep-result","parameters":{"x":${deep}}}`,
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'body: nests objects and arrays more than 256 levels deep',
      code: 'malformed_request',
    });
    expect((await execute(d, 'deep-result', { depth: 2, x: nested(200) })).status).toBe(200);
    const replay = await openLive(d, { replay: '50' });
    onTestFinished(() => replay.close());
    await replay.until((m) => entries(m).length >= 2);
    expect(replay.messages[0]?.type).toBe('hello');
  });
});

describe('depth checks', () => {
  it('measure parsed values without recursion, at any depth', () => {
    expect(exceedsDepth(nested(100_000), 1024)).toBe(true);
    expect(exceedsDepth(nested(1024), 1024)).toBe(false);
    expect(exceedsDepth(nested(1025), 1024)).toBe(true);
    expect(exceedsDepth([[], [[]], 'x', null], 3)).toBe(false);
    expect(exceedsDepth([[], [[[]]]], 3)).toBe(true);
  });

  it('measure text without parsing, ignoring brackets inside strings', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(textExceedsDepth(bytes('[[["[[[[[[", "\\"[[[["]]]'), 3)).toBe(false);
    expect(textExceedsDepth(bytes('[[[[]]]]'), 3)).toBe(true);
    expect(textExceedsDepth(bytes('{"a":{"b":{"c":{}}}}'), 4)).toBe(false);
    expect(textExceedsDepth(bytes('{"a":{"b":{"c":{}}}}'), 3)).toBe(true);
  });
});
