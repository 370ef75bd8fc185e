/**
 * Requests a server sends the daemon (elicitation, sampling, roots, ping, anything else): every one is
 * answered, a malformed one with an error saying what is wrong, and the connection stays usable.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { MODERN_REQUESTS, SERVER_REQUESTS } from '../fixtures/raw-server.ts';
import type { RpcMessageEntry } from '../../shared/logs.ts';
import { fixtureStdio, registerAndConnect, startDaemon, type TestDaemon } from './helpers.ts';

type Expected = Record<string, { code: number; message: string | RegExp } | { result: object }>;

/** What the daemon answers each request of the raw server's `ask` with: an error's code and message, or a result. */
const EXPECTED: Expected = {
  'elicitation-params-null': {
    code: -32602,
    message: 'The elicitation/create request is malformed: its "params" is null, not an object',
  },
  'elicitation-params-missing': {
    code: -32602,
    message: 'The elicitation/create request is malformed: its "params" is missing',
  },
  'elicitation-params-string': {
    code: -32602,
    message: 'The elicitation/create request is malformed: its "params" is a JSON string, not an object',
  },
  'elicitation-params-array': {
    code: -32602,
    message: 'The elicitation/create request is malformed: its "params" is a JSON array, not an object',
  },
  'elicitation-message-missing': {
    code: -32602,
    message: 'The elicitation/create request is malformed: its "params.message" is missing',
  },
  'elicitation-schema-not-object': {
    code: -32602,
    message:
      'The elicitation/create request is malformed: its "params.requestedSchema" is "nope", not an object',
  },
  'elicitation-url-missing': {
    code: -32602,
    message: 'The elicitation/create request is malformed: its "params.url" is missing',
  },
  'elicitation-mode-unknown': {
    code: -32602,
    message: 'The elicitation/create request is malformed: its "params.mode" is "voice", not "form" or "url"',
  },
  'elicitation-meta-not-object': {
    code: -32602,
    message:
      'The elicitation/create request is malformed: its "params._meta" is a JSON number, not an object',
  },
  'sampling-params-null': {
    code: -32602,
    message: 'The sampling/createMessage request is malformed: its "params" is null, not an object',
  },
  'sampling-messages-not-array': {
    code: -32602,
    message: 'The sampling/createMessage request is malformed: its "params.messages" is "hi", not an array',
  },
  'sampling-role-unknown': {
    code: -32602,
    message:
      'The sampling/createMessage request is malformed: its "params.messages.0.role" is "robot", not "user" or "assistant"',
  },
  'sampling-max-tokens-missing': {
    code: -32602,
    message: 'The sampling/createMessage request is malformed: its "params.maxTokens" is missing',
  },
  'roots-params-null': {
    code: -32602,
    message: 'The roots/list request is malformed: its "params" is null, not an object',
  },
  'roots-params-string': {
    code: -32602,
    message: 'The roots/list request is malformed: its "params" is a JSON string, not an object',
  },
  'ping-params-null': {
    code: -32602,
    message: 'The ping request is malformed: its "params" is null, not an object',
  },
  'ping-params-array': {
    code: -32602,
    message: 'The ping request is malformed: its "params" is a JSON array, not an object',
  },
  'progress-token-object': {
    code: -32602,
    message:
      'The ping request is malformed: its "params._meta.progressToken" is a JSON object, not a string or an integer',
  },
  'related-task-not-object': {
    code: -32602,
    message:
      'The roots/list request is malformed: its "params._meta" names a related task that is not an object with a string "taskId"',
  },
  'method-not-string': {
    code: -32600,
    message: 'The request is malformed: its "method" is a JSON number, not a string',
  },
  'extra-member': {
    code: -32600,
    message: 'The ping request is malformed: it has a member "extra", which a request has not',
  },
  'id-fraction': {
    code: -32600,
    message: 'The ping request is malformed: its "id" is 1.5, not a string or an integer',
  },
  'id-null': {
    code: -32600,
    message: 'The ping request is malformed: its "id" is null, not a string or an integer',
  },
  'id-object': {
    code: -32600,
    message: 'The roots/list request is malformed: its "id" is a JSON object, not a string or an integer',
  },
  'id-boolean': {
    code: -32600,
    message: 'The ping request is malformed: its "id" is true, not a string or an integer',
  },
  'jsonrpc-1.0': {
    code: -32600,
    message: 'The ping request is malformed: its "jsonrpc" is "1.0", not "2.0"',
  },
  'jsonrpc-missing': {
    code: -32600,
    message: 'The roots/list request is malformed: its "jsonrpc" is missing, not "2.0"',
  },
  'unknown-method': { code: -32601, message: 'Method not found' },
  'unknown-method-params-null': {
    code: -32602,
    message: 'The no/such/method request is malformed: its "params" is null, not an object',
  },
  ping: { result: {} },
  roots: { result: { roots: [] } },
};

/**
 * What a 2026-07-28 connection answers: a malformed request as at any revision, any other "method not
 * found" saying why (at 2026-07-28 a server sends no requests).
 */
const EXPECTED_MODERN: Expected = Object.fromEntries(
  [
    ...Object.entries(EXPECTED),
    ...Object.keys(MODERN_REQUESTS).map((name) => [name, { result: {} }] as const),
  ].map(([name, expected]) => {
    if (
      'code' in expected &&
      typeof expected.message === 'string' &&
      expected.message.includes('is malformed')
    ) {
      return [name, expected];
    }
    const method = { ...SERVER_REQUESTS, ...MODERN_REQUESTS }[name] as { method: string };
    return [
      name,
      {
        code: -32601,
        message: `The ${method.method} request is not served: at protocol version 2026-07-28 a server sends the client no requests, it asks for input with an input_required result`,
      },
    ];
  }),
);

/** Has the raw server's `ask` send each of its requests, and returns the daemon's answers by name. */
async function askAll(d: TestDaemon, serverId: string): Promise<Record<string, any>> {
  // The raw server sends each request, waits up to 2 s for the answers, and returns what came (null: none).
  const asked = await d.api('POST', '/api/mcp/tools/execute', { serverId, toolName: 'ask' });
  expect(asked.status, JSON.stringify(asked.body)).toBe(200);
  return JSON.parse(asked.body.result.content[0].text) as Record<string, any>;
}

function expectAnswers(answers: Record<string, any>, expected: Expected): void {
  expect(Object.keys(answers).sort()).toEqual(Object.keys(expected).sort());
  for (const [name, want] of Object.entries(expected)) {
    const answer = answers[name];
    expect(answer, `${name} got no answer`).not.toBeNull();
    if ('result' in want) {
      expect(answer, name).toMatchObject({ result: want.result });
    } else {
      expect(answer.error?.code, name).toBe(want.code);
      expect(answer.error?.message, name).toMatch(want.message);
    }
  }
}

/** The JSON-RPC messages of the daemon's log with a server, either way. */
const logged = (d: TestDaemon, serverId: string) =>
  d.daemon.bus
    .since(0)
    .filter((entry): entry is RpcMessageEntry => entry.type === 'rpc' && entry.serverId === serverId);

/** The connection is still there and serves the next call; the daemon is up. */
async function expectServing(d: TestDaemon, serverId: string): Promise<void> {
  expect((await d.api('GET', `/api/mcp/servers/${serverId}`)).body.status).toBe('connected');
  const listed = await d.api('POST', '/api/mcp/tools/list', { serverId });
  expect(listed.status).toBe(200);
  expect(listed.body.tools.map((tool: { name: string }) => tool.name)).toContain('ask');
  expect((await d.api('GET', '/api/mcp/health')).status).toBe(200);
}

describe('requests a server sends the daemon', () => {
  it('answers every one, a malformed one with an error saying what is wrong, and keeps the connection', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    const put = await d.api('PUT', '/api/mcp/servers/raw', { config: fixtureStdio('raw-server.ts') });
    expect(put.status).toBe(201);
    const answers = await askAll(d, 'raw');
    expectAnswers(answers, EXPECTED);
    expect(answers['elicitation-params-null'].error.data).toEqual({
      reason: 'malformed-request',
      problem: 'its "params" is null, not an object',
    });
    // The log shows the request as the server sent it, and the daemon's answer.
    const entries = logged(d, 'raw');
    expect(entries).toContainEqual(
      expect.objectContaining({
        direction: 'receive',
        message: {
          jsonrpc: '2.0',
          id: 'ask-elicitation-params-null',
          method: 'elicitation/create',
          params: null,
        },
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ direction: 'send', message: answers['elicitation-params-null'] }),
    );
    // A request whose id cannot be answered with is answered with id null (JSON-RPC 2.0), and logged so.
    for (const name of ['id-null', 'id-object', 'id-boolean']) {
      expect(answers[name].id, name).toBeNull();
      expect(entries).toContainEqual(expect.objectContaining({ direction: 'send', message: answers[name] }));
    }
    expect(entries).toContainEqual(
      expect.objectContaining({
        direction: 'receive',
        message: { jsonrpc: '2.0', id: { n: 1 }, method: 'roots/list' },
      }),
    );
    // A request of another JSON-RPC version is a request, not a stray line of output.
    expect(entries).toContainEqual(
      expect.objectContaining({
        direction: 'receive',
        message: { jsonrpc: '1.0', id: 'ask-jsonrpc-1.0', method: 'ping' },
      }),
    );
    await expectServing(d, 'raw');
  });

  it('answers every request of a 2026-07-28 server, where a server sends none, "method not found" saying why', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    const config = { ...fixtureStdio('raw-server.ts', { RAW_ERA: 'modern' }), era: 'modern' as const };
    const connected = await registerAndConnect(d, 'raw', config);
    expect(connected.body).toMatchObject({ status: 'connected', protocolVersion: '2026-07-28' });
    const answers = await askAll(d, 'raw');
    expectAnswers(answers, EXPECTED_MODERN);
    expect(answers.elicitation.error.data).toEqual({
      reason: 'server-request-not-in-protocol',
      protocolVersion: '2026-07-28',
    });
    // Nothing was put to the person; the log shows the request and the answer.
    expect(d.daemon.executions.activeExecution).toBeUndefined();
    const entries = logged(d, 'raw');
    expect(entries).toContainEqual(
      expect.objectContaining({
        direction: 'receive',
        message: expect.objectContaining({ id: 'ask-elicitation' }),
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ direction: 'send', message: answers.elicitation }),
    );
    await expectServing(d, 'raw');
  });
});
