/**
 * The log view under load: fills the panel's live log with 100,000 JSON-RPC entries in real Chromium and
 * measures the frame time while scrolling through them, then prints the popup bundle size.
 *
 *   npm run bench:logs          (builds the extension first; needs port 6274 free and Chromium)
 *   BENCH_LOG_ENTRIES=200000 npm run bench:logs
 *
 * The entries go through the real path: the daemon's log bus, the live channel, the extension's live
 * client and logs store. A mix like a busy session: tools/call requests with their responses (one row
 * each, paired) and progress notifications (a row each).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDaemon } from '../../daemon/app.ts';
import { defaultOptions } from '../../daemon/options.ts';
import { launchWithExtension } from '../e2e/support/browser.ts';
import { assertGrantedPortFree, GRANTED_PORT, GRANTED_URL } from '../e2e/support/daemon.ts';
import { byTestId } from '../e2e/support/pages/dom.ts';
import { PanelPage } from '../e2e/support/pages/panel.ts';
import { measurePopupBundle } from './popup-bundle.ts';

const ENTRIES = Number(process.env.BENCH_LOG_ENTRIES ?? 100_000);
const TOKEN = 'bench-token-0123456789abcdef';
const BATCH = 2000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

await assertGrantedPortFree();
const dataDir = await mkdtemp(join(tmpdir(), 'inspector-bench-'));
// Room for the whole burst in the socket buffer: this measures the view, not the slow-client guard.
const daemon = await createDaemon(
  defaultOptions({ port: GRANTED_PORT, dataDir, token: TOKEN, log: () => {}, sseMaxBufferedBytes: 1 << 30 }),
);
await daemon.listen();
const ext = await launchWithExtension();
try {
  const panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
  await panel.pairing.pair(GRANTED_URL, TOKEN);
  await panel.pairing.waitUntilPaired();
  await panel.page.locator(byTestId('tab-logs')).click();
  await panel.page.waitForSelector(byTestId('log-scroller'));
  await panel.page.waitForFunction(() =>
    document.querySelector('[data-testid="log-live-state"]')?.textContent?.includes('live'),
  );

  const started = performance.now();
  let rows = 0;
  for (let published = 0, id = 1; published < ENTRIES;) {
    for (let i = 0; i < BATCH && published < ENTRIES; i++, published++) {
      const timestamp = new Date().toISOString();
      const kind = published % 5;
      if (kind === 4) {
        daemon.bus.publish({
          type: 'rpc',
          serverId: 'bench',
          direction: 'receive',
          timestamp,
          message: {
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: id, progress: published },
          },
        });
        rows++;
      } else if (kind % 2 === 0) {
        daemon.bus.publish({
          type: 'rpc',
          serverId: 'bench',
          direction: 'send',
          timestamp,
          message: {
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name: 'echo', arguments: { message: `call ${id}` } },
          },
        });
        rows++;
      } else {
        daemon.bus.publish({
          type: 'rpc',
          serverId: 'bench',
          direction: 'receive',
          timestamp,
          message: { jsonrpc: '2.0', id: id++, result: { content: [{ type: 'text', text: 'Echo: ok' }] } },
        });
      }
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await panel.page.waitForFunction(
    (expected) =>
      document.querySelector('[data-testid="log-count"]')?.textContent?.replace(/\D/g, '') ===
      String(expected),
    { timeout: 300_000, polling: 100 },
    rows,
  );
  const ingestMs = performance.now() - started;
  console.log(
    `log view: ${ENTRIES} entries → ${rows} rows, all shown in the panel ${(ingestMs / 1000).toFixed(1)} s after the first was published`,
  );

  await panel.page.bringToFront();
  // Two ways through the list: a steady wheel scroll (60 px a frame) and a fling from the top to the
  // bottom in 600 frames (about 100 rows a frame, every frame renders new rows).
  for (const pass of [
    { name: 'wheel', stride: 60 },
    { name: 'fling', stride: 0 },
  ]) {
    const frames = await panel.page.evaluate(async (fixedStride) => {
      const scroller = document.querySelector<HTMLElement>('[data-testid="log-scroller"]');
      if (!scroller) throw new Error('no log scroller');
      scroller.scrollTop = 0;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const deltas: number[] = [];
      const steps = 600;
      const stride = fixedStride || (scroller.scrollHeight - scroller.clientHeight) / steps;
      let last = performance.now();
      for (let i = 1; i <= steps; i++) {
        scroller.scrollTop = stride * i;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        deltas.push(now - last);
        last = now;
      }
      return { deltas, rendered: document.querySelectorAll('[data-testid="log-row"]').length };
    }, pass.stride);
    const sorted = [...frames.deltas].sort((x, y) => x - y);
    const slow = frames.deltas.filter((d) => d > 1000 / 60 + 1).length;
    console.log(
      `${pass.name.padEnd(5)} scroll: frame time median ${percentile(sorted, 0.5).toFixed(1)} ms, p95 ${percentile(sorted, 0.95).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms; ${slow} of ${frames.deltas.length} frames over 16.7 ms; ${frames.rendered} row elements in the DOM`,
    );
  }
  await panel.screenshot('bench-logs-100k');
} finally {
  await ext.browser.close();
  await daemon.close();
  await rm(dataDir, { recursive: true, force: true });
}

const popup = await measurePopupBundle();
console.log(
  `popup bundle: ${popup.raw} B (${(popup.raw / 1024).toFixed(1)} KiB), gzip ${popup.gzip} B (${(popup.gzip / 1024).toFixed(1)} KiB) of JS and CSS loaded by popup.html`,
);
