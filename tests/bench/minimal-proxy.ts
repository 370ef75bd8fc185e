/**
 * The least a daemon could do for a tool call, as a yardstick beside it in the echo benchmark: an HTTP
 * request in, `tools/call` through the MCP SDK client the daemon uses (SDK v2, over STDIO to its own
 * server-everything), the result out. No Host, Origin or token check, no validation, no lock, no log.
 * What the daemon adds beyond this is its own work; what this adds beyond the floor is the cost of a
 * process between the caller and the server at all.
 *
 * Run in its own process: `node tests/bench/minimal-proxy.ts <command> [args…]` (the server to spawn).
 */
import { createServer } from 'node:http';
import { Client, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

type AnyResult = Record<string, unknown>;
/** Any result object, unchecked: as the daemon's own pass-through schema. */
const ANY_RESULT: StandardSchemaV1<AnyResult, AnyResult> = {
  '~standard': { version: 1, vendor: 'bench', validate: (value) => ({ value: value as AnyResult }) },
};

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error('usage: minimal-proxy.ts <command> [args…]');
const client = new Client({ name: 'minimal-proxy', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      toolName: string;
      parameters: Record<string, unknown>;
    };
    client
      .request(
        { method: 'tools/call', params: { name: body.toolName, arguments: body.parameters } },
        ANY_RESULT,
      )
      .then((result) => {
        const reply = JSON.stringify({ status: 'completed', executionId: 'minimal', result });
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(reply),
        });
        res.end(reply);
      })
      .catch((error: unknown) => {
        res.writeHead(502).end(String(error));
      });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => {
  server.close(() => void client.close().finally(() => process.exit(0)));
  server.closeAllConnections();
});
