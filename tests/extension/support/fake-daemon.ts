/**
 * The panel paired with a daemon that is only `fetch` stubbed: each API path (`/tools/list`, …) answers
 * the JSON given for it, any other path 404, until the test ends.
 */
import { onTestFinished, vi } from 'vitest';
import { useConnectionStore } from '../../../extension/app/connection-store';

export function answerPaths(answers: Record<string, unknown>): void {
  vi.stubGlobal('fetch', async (input: string | URL) => {
    const path = new URL(String(input)).pathname.replace(/^\/api\/mcp/, '');
    const body = Object.hasOwn(answers, path) ? answers[path] : undefined;
    return body === undefined
      ? new Response(JSON.stringify({ error: `no ${path}` }), { status: 404 })
      : new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
  onTestFinished(() => {
    vi.unstubAllGlobals();
  });
  useConnectionStore().pairing = { url: 'http://127.0.0.1:6274', token: 'test-token' };
}
