import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startDaemon, type TestDaemon } from './helpers.ts';

/**
 * The daemon reads a plain `application/json` body of declared length itself and leaves every other
 * body (compressed, chunked, another charset or a charset in quotes) to body-parser. Whichever reads
 * it, the answer must be the same.
 */
const PLAIN = 'application/json';
/** The same type and charset, spelt so that only body-parser reads it. */
const GENERAL = 'application/json; charset="utf-8"';

async function daemon(log: (line: string) => void = () => {}): Promise<TestDaemon> {
  const d = await startDaemon({ log });
  onTestFinished(() => d.close());
  return d;
}

/**
 * Writes raw request bytes, in pieces with a pause between them, and collects what comes back until
 * the daemon closes the connection or has been quiet for `quietMs`. Date headers are dropped.
 */
async function exchange(
  d: TestDaemon,
  pieces: Array<string | Buffer>,
  options: { end?: boolean; destroy?: boolean; quietMs?: number } = {},
): Promise<string> {
  const { port } = new URL(d.url);
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  let closed = false;
  let last = Date.now();
  socket.on('data', (chunk) => {
    text += chunk.toString();
    last = Date.now();
  });
  socket.on('close', () => {
    closed = true;
  });
  socket.on('error', () => {});
  for (const piece of pieces) {
    socket.write(piece);
    await delay(20);
  }
  if (options.destroy) {
    socket.destroy();
    return '';
  }
  if (options.end) socket.end();
  const quietMs = options.quietMs ?? 300;
  while (!closed && Date.now() - last < quietMs) await delay(20);
  socket.destroy();
  return text.replace(/^Date: .*\r\n/gm, '');
}

function head(d: TestDaemon, type: string, length: number, extra = ''): string {
  const { host } = new URL(d.url);
  return (
    `POST /api/mcp/tools/list HTTP/1.1\r\nHost: ${host}\r\nX-Inspector-Token: ${d.token}\r\n` +
    `Content-Type: ${type}\r\nContent-Length: ${length}\r\n${extra}\r\n`
  );
}

describe('JSON bodies', () => {
  it.each([
    ['an object', '{"serverId":"nope"}'],
    ['an empty body', ''],
    ['whitespace alone', ' \n'],
    ['a string instead of an object', '"serverId"'],
    ['an array', '[1]'],
    ['malformed JSON', '{"serverId": '],
    ['an object after a byte order mark', '\uFEFF{"serverId":"nope"}'],
    ['a byte order mark alone', '\uFEFF'],
    ['invalid UTF-8 inside a string', Buffer.from([...Buffer.from('{"serverId":"'), 0xff, 0x22, 0x7d])],
    ['nesting past the limit', `${'['.repeat(300)}${']'.repeat(300)}`],
  ])('answers %s the same whichever parser reads it', async (_name, body) => {
    const d = await daemon();
    const plain = await d.api('POST', '/api/mcp/tools/list', body);
    const general = await d.api('POST', '/api/mcp/tools/list', body, { 'Content-Type': GENERAL });
    expect(plain.status).toBeGreaterThanOrEqual(400);
    expect({ status: plain.status, body: plain.body }).toEqual({
      status: general.status,
      body: general.body,
    });
  });

  it('reads a plain body that arrives in several pieces', async () => {
    const d = await daemon();
    const body = '{"serverId":"in-pieces"}';
    const answer = await exchange(d, [
      head(d, PLAIN, body.length),
      body.slice(0, 5),
      body.slice(5, 12),
      body.slice(12),
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(answer).toContain('in-pieces');
  });

  it.each([
    ['application/json; charset=UTF-8', 404],
    ['Application/JSON', 404],
    ['application/json; charset=latin1', 415],
    ['text/plain', 400],
  ])('answers Content-Type %s with %i', async (type, status) => {
    const d = await daemon();
    const response = await d.api('POST', '/api/mcp/tools/list', '{"serverId":"typed"}', {
      'Content-Type': type,
    });
    expect(response.status).toBe(status);
    if (status === 404) expect(response.body.error).toContain('typed');
  });

  it('refuses a JSON body in UTF-16 or UTF-32 with 415, also one whose brackets UTF-16 hides from the depth count', async () => {
    const d = await daemon();
    // U+2200 is the bytes 00 22 in UTF-16LE: a scan of the bytes took the 22 for a quote and missed the rest.
    const hidden = `{"serverId":"\u2200","x":${'['.repeat(300)}${']'.repeat(300)}}`;
    for (const [charset, text] of [
      ['utf-16le', '{"serverId":"wide"}'],
      ['UTF-16LE', hidden],
      ['utf-16', '{"serverId":"wide"}'],
      ['utf-32', '{"serverId":"wide"}'],
    ] as const) {
      const response = await fetch(`${d.url}/api/mcp/tools/list`, {
        method: 'POST',
        headers: { 'X-Inspector-Token': d.token, 'Content-Type': `application/json; charset=${charset}` },
        body: Buffer.from(text, 'utf16le'),
      });
      expect(response.status, charset).toBe(415);
      expect(await response.json(), charset).toEqual({
        error: `body: charset "${charset.toLowerCase()}" is not read: send JSON in UTF-8`,
        code: 'unsupported_encoding',
      });
    }
  });

  it('reads a compressed body', async () => {
    const d = await daemon();
    const body = gzipSync('{"serverId":"zipped"}');
    for (const type of [PLAIN, GENERAL]) {
      const answer = await exchange(d, [head(d, type, body.length, 'Content-Encoding: gzip\r\n'), body]);
      expect(answer).toMatch(/^HTTP\/1\.1 404 /);
      expect(answer).toContain('zipped');
    }
  });

  it('reads a chunked body', async () => {
    const d = await daemon();
    const { host } = new URL(d.url);
    for (const type of [PLAIN, GENERAL]) {
      const answer = await exchange(d, [
        `POST /api/mcp/tools/list HTTP/1.1\r\nHost: ${host}\r\nX-Inspector-Token: ${d.token}\r\n` +
          `Content-Type: ${type}\r\nTransfer-Encoding: chunked\r\n\r\n`,
        '8\r\n{"server\r\n',
        'e\r\nId":"chunked"}\r\n0\r\n\r\n',
      ]);
      expect(answer).toMatch(/^HTTP\/1\.1 404 /);
      expect(answer).toContain('chunked');
    }
  });

  it('reads no more than the declared length: the bytes after it are the next request', async () => {
    const d = await daemon();
    const { host } = new URL(d.url);
    const next = `GET /api/mcp/servers/ HTTP/1.1\r\nHost: ${host}\r\nX-Inspector-Token: ${d.token}\r\n\r\n`;
    const answers = [];
    for (const type of [PLAIN, GENERAL]) {
      // Content-Length 5 takes `{"ser` as the body: malformed.
      answers.push(await exchange(d, [`${head(d, type, 5)}{"ser${next}`]));
    }
    expect(answers[0]).toMatch(
      /^HTTP\/1\.1 400 [^]*\{"error":"body: malformed JSON","code":"malformed_request"\}HTTP\/1\.1 200 /,
    );
    expect(answers[0]).toBe(answers[1]);
  });

  it('answers a declared length longer than the body, the client then done sending, as body-parser does', async () => {
    const d = await daemon();
    const body = '{"serverId":"long"}';
    const answers = [];
    for (const type of [PLAIN, GENERAL]) {
      answers.push(await exchange(d, [head(d, type, body.length + 10), body], { end: true }));
    }
    expect(answers[0]).not.toMatch(/^HTTP\/1\.1 [25]/);
    expect(answers[0]).toBe(answers[1]);
  });

  it('lets a client abort in the middle of a body, and keeps serving', async () => {
    const logged: string[] = [];
    const d = await daemon((line) => logged.push(line));
    for (const type of [PLAIN, GENERAL]) {
      await exchange(d, [head(d, type, 100), '{"serverId":'], { destroy: true });
    }
    await delay(100);
    const after = await d.api('POST', '/api/mcp/tools/list', { serverId: 'after' });
    expect(after.status).toBe(404);
    expect(logged).toEqual([]);
  });
});
