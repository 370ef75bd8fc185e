// @vitest-environment node
/**
 * "Replay through daemon" in the Page view's store: a request the page sent (handed over by a stand-in
 * `devtools.network.onRequestFinished`, as Chromium hands HAR entries; the e2e test drives the real
 * one) is sent again through a real daemon to the real remote fixture server registered for the page's
 * endpoint, and its answer is set beside the page's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createPinia, setActivePinia } from 'pinia';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sameAnswer, serverForEndpoint } from '../../extension/page/page-replay';
import { type FinishedRequest, usePageTrafficStore } from '../../extension/page/page-traffic-store';
import {
  FIXTURES,
  freePort,
  ROOT,
  startDaemon,
  stopProcess,
  TSX_LOADER,
  type TestDaemon,
} from '../daemon/helpers';
import { pairWith } from './daemon-pairing';

type Listener = (request: FinishedRequest) => void;

function standInNetwork(): Listener {
  const listeners = new Set<Listener>();
  vi.stubGlobal('chrome', {
    devtools: {
      network: {
        onRequestFinished: {
          addListener: (listener: Listener) => listeners.add(listener),
          removeListener: (listener: Listener) => listeners.delete(listener),
        },
      },
    },
  });
  return (request) => listeners.forEach((listener) => listener(request));
}

/** A finished POST of the page's own client, answered with JSON. */
function finished(url: string, sent: object, answer: object): FinishedRequest {
  const text = JSON.stringify(answer);
  return {
    startedDateTime: new Date().toISOString(),
    time: 5,
    request: {
      method: 'POST',
      url,
      headers: [
        { name: 'Content-Type', value: 'application/json' },
        { name: 'Authorization', value: 'Bearer replay-secret' },
      ],
      postData: { mimeType: 'application/json', text: JSON.stringify(sent) },
    },
    response: {
      status: 200,
      statusText: 'OK',
      headers: [
        { name: 'Content-Type', value: 'application/json' },
        { name: 'Mcp-Session-Id', value: 'replay-session' },
      ],
      content: { mimeType: 'application/json', size: text.length },
    },
    getContent: (callback) => callback?.(text, ''),
  };
}

/** The remote fixture server (Streamable HTTP, JSON answers) on `port`, once it listens. */
async function startRemote(port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...TSX_LOADER, join(FIXTURES, 'remote-server.ts'), 'http-json', String(port)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('listening on')) resolve();
    });
    child.once('exit', () => reject(new Error('the remote fixture exited before listening')));
  });
  return child;
}

let daemon: TestDaemon;
let remote: ChildProcess;
let url: string;

beforeAll(async () => {
  daemon = await startDaemon();
  const port = await freePort();
  remote = await startRemote(port);
  url = `http://127.0.0.1:${port}/mcp`;
});
afterAll(async () => {
  await daemon?.close();
  if (remote) await stopProcess(remote);
});
beforeEach(() => {
  setActivePinia(createPinia());
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('replaying a page request through the daemon', () => {
  it('asks for the server first, then answers beside the page: the same, or not', async () => {
    await pairWith(daemon);
    const fire = standInNetwork();
    const page = usePageTrafficStore();
    const waited = (ms: number) => ({ content: [{ type: 'text', text: `waited ${ms} ms` }] });
    const listed = {
      tools: [
        {
          name: 'wait',
          description: 'Answers after ms milliseconds',
          inputSchema: {
            type: 'object',
            properties: { ms: { type: 'number' }, progress: { type: 'boolean' } },
            required: ['ms'],
          },
        },
      ],
    };
    fire(
      finished(
        url,
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 1, result: listed },
      ),
    );
    fire(
      finished(
        url,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait', arguments: { ms: 5 } } },
        { jsonrpc: '2.0', id: 2, result: waited(5) },
      ),
    );
    // What the page says it got is not what the server answers.
    fire(
      finished(
        url,
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait', arguments: { ms: 1 } } },
        { jsonrpc: '2.0', id: 3, result: waited(999) },
      ),
    );
    fire(
      finished(
        url,
        { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'file:///nothing' } },
        { jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'Method not found' } },
      ),
    );
    fire(finished(url, { jsonrpc: '2.0', id: 5, method: 'ping' }, { jsonrpc: '2.0', id: 5, result: {} }));
    await vi.waitFor(() => expect(page.rowCount).toBe(5));
    await page.settled();
    const [list, call, lied, read, ping] = page.visibleRows;

    // No server has the page's address yet: Add as server comes first.
    expect(page.replayTarget(call!)).toEqual({
      ok: false,
      needsServer: true,
      reason: `No server in the daemon has the address ${url}: add it as a server first.`,
    });
    expect(page.replayTarget(ping!)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('ping is not replayed'),
    });
    await expect(page.replay(call!)).rejects.toThrow('add it as a server first');

    const id = await page.addAsServer(call!);
    expect(page.replayTarget(call!)).toEqual({ ok: true, serverId: id, method: 'tools/call' });

    const replayedCall = await page.replay(call!);
    expect(replayedCall).toEqual({ running: false, serverId: id, ok: true, result: waited(5) });
    expect(page.replays.get(call!.key)).toEqual(replayedCall);
    expect(sameAnswer((call!.response!.message as { result: unknown }).result, waited(5))).toBe(true);

    const replayedList = await page.replay(list!);
    expect(replayedList).toMatchObject({ ok: true, result: listed });
    expect(sameAnswer(listed, (replayedList as { result: unknown }).result)).toBe(true);

    const replayedLie = await page.replay(lied!);
    expect(replayedLie).toMatchObject({ ok: true, result: waited(1) });
    expect(sameAnswer(waited(999), waited(1))).toBe(false);

    // The fixture has no resources: the daemon's error is the answer, with its status.
    const replayedRead = await page.replay(read!);
    expect(replayedRead).toMatchObject({ running: false, ok: false, status: 502 });

    page.clear();
    expect(page.replays.size).toBe(0);
    await daemon.api('DELETE', `/api/mcp/servers/${id}`);
  });

  it('finds the server by the exact address of the endpoint, never a STDIO one', () => {
    const record = (id: string, config: object) =>
      ({ id, name: id, status: 'disconnected', config }) as never;
    const servers = [
      record('local', { transport: 'stdio', command: 'x' }),
      record('other', { transport: 'http', url: 'http://127.0.0.1:1/mcp/' }),
      record('this', { transport: 'sse', url: 'http://127.0.0.1:1/mcp' }),
    ];
    expect(serverForEndpoint(servers, 'http://127.0.0.1:1/mcp')?.id).toBe('this');
    expect(serverForEndpoint(servers, 'http://127.0.0.1:2/mcp')).toBeUndefined();
    expect(sameAnswer({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
    expect(sameAnswer({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  });
});
