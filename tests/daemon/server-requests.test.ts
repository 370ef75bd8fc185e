/**
 * Requests a server sends the daemon (elicitation, sampling, roots, ping, anything else): every one is
 * answered, a malformed one with an error saying what is wrong, and the connection stays usable.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { SERVER_REQUESTS } from '../fixtures/raw-server.ts';
import { fixtureStdio, startDaemon } from './helpers.ts';

/** What the daemon answers each request of the raw server's `ask` with: an error's code and message, or a result. */
const EXPECTED: Record<string, { code: number; message: string | RegExp } | { result: object }> = {
  'elicitation-params-null': {
    code: -32602,
    message: 'The elicitation/create request is malformed: its "params" is null, not an object',
  },
  'elicitation-params-missing': { code: -32602, message: /^Invalid elicitation request: .*expected object/s },
  'elicitation-params-string': {
    code: -32602,
    message: 'The elicitation/create request is malformed: its "params" is a JSON string, not an object',
  },
  'elicitation-params-array': {
    code: -32602,
    message: 'The elicitation/create request is malformed: its "params" is a JSON array, not an object',
  },
  'elicitation-message-missing': { code: -32602, message: /^Invalid elicitation request: .*"message"/s },
  'elicitation-schema-not-object': {
    code: -32602,
    message: /^Invalid elicitation request: .*"requestedSchema"/s,
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
  'sampling-messages-not-array': { code: -32602, message: /^Invalid sampling request: .*"messages"/s },
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
  'unknown-method': { code: -32601, message: 'Method not found' },
  'unknown-method-params-null': {
    code: -32602,
    message: 'The no/such/method request is malformed: its "params" is null, not an object',
  },
  ping: { result: {} },
  roots: { result: { roots: [] } },
};

describe('requests a server sends the daemon', () => {
  it('answers every one, a malformed one with an error saying what is wrong, and keeps the connection', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    const put = await d.api('PUT', '/api/mcp/servers/raw', { config: fixtureStdio('raw-server.ts') });
    expect(put.status).toBe(201);
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(SERVER_REQUESTS).sort());
    // The raw server sends each request, waits up to 2 s for the answers, and returns what came (null: none).
    const asked = await d.api('POST', '/api/mcp/tools/execute', { serverId: 'raw', toolName: 'ask' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const answers = JSON.parse(asked.body.result.content[0].text) as Record<string, any>;
    for (const [name, expected] of Object.entries(EXPECTED)) {
      const answer = answers[name];
      expect(answer, `${name} got no answer`).not.toBeNull();
      if ('result' in expected) {
        expect(answer, name).toMatchObject({ result: expected.result });
      } else {
        expect(answer.error?.code, name).toBe(expected.code);
        expect(answer.error?.message, name).toMatch(expected.message);
      }
    }
    expect(answers['elicitation-params-null'].error.data).toEqual({
      reason: 'malformed-request',
      problem: 'its "params" is null, not an object',
    });
    // The log shows the request as the server sent it, and the daemon's answer.
    const entries = d.daemon.bus.since(0).filter((entry) => entry.type === 'rpc');
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
    // The connection is still there and serves the next call; the daemon is up.
    expect((await d.api('GET', '/api/mcp/servers/raw')).body.status).toBe('connected');
    const listed = await d.api('POST', '/api/mcp/tools/list', { serverId: 'raw' });
    expect(listed.status).toBe(200);
    expect(listed.body.tools.map((tool: { name: string }) => tool.name)).toContain('ask');
    expect((await d.api('GET', '/api/mcp/health')).status).toBe(200);
  });
});
