/**
 * A Streamable HTTP server that answers the MCP handshake with an HTTP error status or a body that is not
 * JSON: the connect fails quoting what it said (secrets masked), and a later connect succeeds.
 */
import { describe, expect, it } from 'vitest';
import { daemonWith, flakyHttp, json, serverError } from '../fixtures/flaky-remote-server.ts';

describe('a Streamable HTTP server answering the handshake with no JSON-RPC answer', () => {
  it('fails the connect quoting what it said: an HTTP 500 with its body, a body that is not JSON', async () => {
    const server = await flakyHttp();
    const d = await daemonWith(server, 'http');
    server.handshakeFaults.push(serverError, json('<html>maintenance</html>'));
    const connect = () => d.api('POST', '/api/mcp/servers/flaky/connect');

    const failed = await connect();
    expect(failed.status).toBe(502);
    expect(failed.body.error).toBe(
      `The server answered HTTP 500 at ${server.url}: the server failed. It said: TypeError: cannot read 'rows' of undefined at query (db.js:12) with key ********`,
    );
    expect(failed.body.mcpError).toMatchObject({ code: 'HTTP_STATUS', data: { status: 500 } });

    const notJson = await connect();
    expect(notJson.body.error).toBe(
      `The server's answer of 24 bytes is not JSON: Unexpected token '<'; it begins: <html>maintenance</html> (the handshake at ${server.url}).`,
    );
    expect(notJson.body.mcpError).toMatchObject({ code: 'NOT_JSON', data: { bytes: 24 } });
    expect((await d.api('GET', '/api/mcp/servers/flaky')).body.lastError).toBe(notJson.body.error);

    expect((await connect()).body.status).toBe('connected');
  });

  it('says the same of the era probe, where a server answers server/discover that way', async () => {
    const server = await flakyHttp();
    const d = await daemonWith(server, 'http');
    server.discoverFaults = [serverError, json('<html>maintenance</html>')];
    const connect = () => d.api('POST', '/api/mcp/servers/flaky/connect');

    const failed = await connect();
    expect(failed.body.error).toBe(
      `The server answered HTTP 500 at ${server.url}: the server failed. It said: TypeError: cannot read 'rows' of undefined at query (db.js:12) with key ********`,
    );
    expect(failed.body.mcpError).toMatchObject({ code: 'HTTP_STATUS', data: { status: 500 } });

    const notJson = await connect();
    expect(notJson.body.mcpError).toMatchObject({ code: 'NOT_JSON', data: { bytes: 24 } });
    expect(notJson.body.error).toBe(
      `The server's answer of 24 bytes is not JSON: Unexpected token '<'; it begins: <html>maintenance</html> (the handshake at ${server.url}).`,
    );
    expect((await connect()).body.status).toBe('connected');
  });
});
