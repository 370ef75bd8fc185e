// @vitest-environment node
/**
 * The Page view's store. DevTools' `devtools.network.onRequestFinished` exists only inside real DevTools
 * (the e2e test drives that one); here a stand-in event hands it HAR entries as Chromium does, with a
 * `getContent` that answers by callback. "Add as server" goes to a real daemon, which then connects to
 * the real remote fixture server over Streamable HTTP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createPinia, setActivePinia } from 'pinia';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HarHeader } from '../../extension/page/page-traffic';
import {
  carriedHeaders,
  type FinishedRequest,
  serverIdFor,
  usePageTrafficStore,
} from '../../extension/page/page-traffic-store';
import { useServersStore } from '../../extension/servers/servers-store';
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

/** Stands in for `chrome.devtools.network.onRequestFinished`. */
function standInNetwork(): { fire: Listener; listeners: Set<Listener> } {
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
  return { listeners, fire: (request) => listeners.forEach((listener) => listener(request)) };
}

const headers = (record: Record<string, string>): HarHeader[] =>
  Object.entries(record).map(([name, value]) => ({ name, value }));

/** A finished POST whose body DevTools hands over after `delayMs`. */
function finished(
  url: string,
  sent: Record<string, unknown>,
  answer: Record<string, unknown>,
  requestHeaders: Record<string, string> = {},
  delayMs = 0,
): FinishedRequest {
  const text = JSON.stringify(answer);
  return {
    startedDateTime: new Date().toISOString(),
    time: 12,
    request: {
      method: 'POST',
      url,
      headers: headers({ 'Content-Type': 'application/json', ...requestHeaders }),
      postData: { mimeType: 'application/json', text: JSON.stringify(sent) },
    },
    response: {
      status: 200,
      statusText: 'OK',
      headers: headers({ 'Content-Type': 'application/json', 'Mcp-Session-Id': 'session-1' }),
      content: { mimeType: 'application/json', size: text.length },
    },
    getContent(callback) {
      setTimeout(() => callback?.(text, ''), delayMs);
    },
  };
}

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startDaemon();
});
afterAll(async () => {
  await daemon?.close();
});
beforeEach(() => {
  setActivePinia(createPinia());
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('page traffic store', () => {
  it('is unavailable, and listens to nothing, outside DevTools', () => {
    vi.stubGlobal('chrome', { runtime: {} });
    vi.stubGlobal('browser', { runtime: {} });
    const page = usePageTrafficStore();
    expect(page.available).toBe(false);
    expect(page.rowCount).toBe(0);
  });

  it('adds finished requests in the order they finished, whatever order their bodies come in', async () => {
    const network = standInNetwork();
    const page = usePageTrafficStore();
    expect(page.available).toBe(true);
    expect(network.listeners.size).toBe(1);
    const url = 'https://app.example.test/mcp';
    network.fire(
      finished(
        url,
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 1, result: {} },
        {},
        30,
      ),
    );
    // Not MCP: the page's script.
    network.fire({
      ...finished(url, { query: 1 }, { data: 1 }),
      request: { method: 'GET', url: 'https://app.example.test/app.js', headers: [] },
      response: {
        status: 200,
        headers: headers({ 'Content-Type': 'text/javascript' }),
        content: { mimeType: 'text/javascript' },
      },
    });
    network.fire(
      finished(
        url,
        { jsonrpc: '2.0', id: 2, method: 'tools/call' },
        { jsonrpc: '2.0', id: 2, error: { code: 1 } },
      ),
    );
    await vi.waitFor(() => expect(page.rowCount).toBe(2));
    await page.settled();
    expect(page.visibleRows.map((row) => [row.method, row.status])).toEqual([
      ['tools/list', 'ok'],
      ['tools/call', 'error'],
    ]);

    page.filter = 'CALL';
    expect(page.visibleRows.map((row) => row.method)).toEqual(['tools/call']);
    page.filter = 'app.example.test/mcp';
    expect(page.visibleRows).toHaveLength(2);
    page.filter = 'nothing like it';
    expect(page.visibleRows).toEqual([]);
    page.filter = '';

    const lines = page
      .exportJsonl()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => [line.direction, (line.message as { id: number }).id])).toEqual([
      ['send', 1],
      ['receive', 1],
      ['send', 2],
      ['receive', 2],
    ]);

    page.clear();
    expect(page.rowCount).toBe(0);
    expect(page.exportJsonl()).toBe('');
  });

  it('keeps going when DevTools never hands a body over, or getContent throws', async () => {
    const network = standInNetwork();
    const page = usePageTrafficStore();
    network.fire({
      ...finished('https://a.test/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' }, {}),
      getContent() {
        throw new Error('gone');
      },
    });
    await page.settled();
    // Its request is still listed; the answer's body is said to be missing.
    expect(page.visibleRows.map((row) => row.kind)).toEqual(['request', 'stderr']);
    expect(String(page.visibleRows[1]?.entry.message)).toContain('not recorded');
  });

  it('carries the request headers worth carrying, and picks an unused server id', () => {
    expect(
      carriedHeaders(
        headers({
          Authorization: 'Bearer x',
          'X-Api-Key': 'k',
          Cookie: 'a=b',
          Host: 'h',
          'Content-Length': '3',
          'Mcp-Session-Id': 's',
          'sec-ch-ua': '"x"',
          ':authority': 'h',
          'User-Agent': 'u',
          'bad name': 'v',
        }),
      ),
    ).toEqual({ Authorization: 'Bearer x', 'X-Api-Key': 'k' });
    expect(serverIdFor('https://app.example.test/api/mcp', new Set())).toBe('app.example.test-api-mcp');
    expect(serverIdFor('http://127.0.0.1:9/mcp', new Set(['127.0.0.1-mcp']))).toBe('127.0.0.1-mcp-2');
  });

  it('adds an endpoint as a Streamable HTTP server the daemon connects to, with its headers masked', async () => {
    const port = await freePort();
    const remote = await startRemote(port);
    try {
      await pairWith(daemon);
      const network = standInNetwork();
      const page = usePageTrafficStore();
      const url = `http://127.0.0.1:${port}/mcp`;
      network.fire(
        finished(
          url,
          { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} },
          { jsonrpc: '2.0', id: 0, result: {} },
          { Authorization: 'Bearer page-secret', Cookie: 'session=1', Host: `127.0.0.1:${port}` },
        ),
      );
      await vi.waitFor(() => expect(page.rowCount).toBe(1));
      const row = page.visibleRows[0]!;
      expect(page.candidate(row)).toEqual({
        ok: true,
        name: `127.0.0.1:${port}/mcp`,
        config: { transport: 'http', url, headers: { Authorization: 'Bearer page-secret' } },
      });
      const id = await page.addAsServer(row);
      expect(id).toBe('127.0.0.1-mcp');
      const servers = useServersStore();
      expect(servers.selectedId).toBe(id);
      const { body } = await daemon.api('GET', `/api/mcp/servers/${id}`);
      expect(body.config).toMatchObject({ transport: 'http', url });
      expect(JSON.stringify(body)).not.toContain('page-secret');
      expect(Object.keys((body.config as { headers: object }).headers)).toEqual(['Authorization']);

      await servers.setConnected(id, true);
      expect(servers.servers.find((s) => s.id === id)).toMatchObject({ status: 'connected' });
      await daemon.api('DELETE', `/api/mcp/servers/${id}`);
    } finally {
      await stopProcess(remote);
    }
  });
});

/** The remote fixture server (Streamable HTTP, JSON answers) on `port`, once it listens. */
async function startRemote(port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...TSX_LOADER, join(FIXTURES, 'remote-server.ts'), 'http-json', String(port)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
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
