/**
 * The bare HTTP server of the echo benchmark's floor: parses the JSON body and answers a JSON object of
 * about the daemon's size, nothing else. Run in its own process: `node tests/bench/bare-server.ts`
 * (plain JavaScript apart from type-free syntax, so it needs no tsx and starts like the compiled daemon).
 */
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    const reply = JSON.stringify({ status: 'completed', executionId: 'bare', result: body });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
    res.end(reply);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
