/**
 * A 1,000-tool server in the panel: the web page (dist/client, the same Vue app as the extension's panel)
 * served by the compiled daemon, in headless Chromium driven by puppeteer. Two servers of
 * tests/fixtures/many-tools-server.ts (tools `alpha-0001`… and `beta-0001`…) are registered and
 * connected first; each round selects the other one in the sidebar, which opens its Tools view, and
 * times in the page from that click to the first frame in which the newly selected server's list of all
 * 1,000 tools shows (the list is virtual: only the rows in view are in the page, each saying in
 * aria-setsize how many there are): the tools/list request through the daemon to the server, the answer,
 * and the render.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer from 'puppeteer';
import { Client as HttpClient } from 'undici';
import { JSON_HEADERS, median, ROOT, startDaemon, TOKEN } from './support.ts';

const TOOLS = 1000;
const SERVERS = ['alpha', 'beta'];

export interface PanelResult {
  tools: number;
  times: number[];
  median: number;
  /** Median time from the click to the end of the tools/list answer, ms. */
  request: number;
}

function chromium(): string {
  const path = process.env.PUPPETEER_EXECUTABLE_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) throw new Error(`no Chromium at ${path} (set PUPPETEER_EXECUTABLE_PATH)`);
  return path;
}

export async function measurePanel(rounds: number): Promise<PanelResult> {
  if (!existsSync(join(ROOT, 'dist/client/index.html')))
    throw new Error('no web page in dist/client: npm run build:web');
  const daemon = await startDaemon();
  const http = new HttpClient(daemon.url);
  const browser = await puppeteer.launch({
    executablePath: chromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    defaultViewport: { width: 1280, height: 800 },
  });
  try {
    for (const prefix of SERVERS) {
      const config = {
        transport: 'stdio',
        command: process.execPath,
        args: [join(ROOT, 'tests/fixtures/many-tools-server.ts'), String(TOOLS), prefix],
      };
      for (const [method, path, body] of [
        ['PUT', `/api/mcp/servers/${prefix}`, { config }],
        ['POST', `/api/mcp/servers/${prefix}/connect`, {}],
      ] as const) {
        const response = await http.request({
          path,
          method,
          headers: JSON_HEADERS,
          body: JSON.stringify(body),
        });
        await response.body.dump();
        if (response.statusCode >= 300) throw new Error(`${method} ${path} answered ${response.statusCode}`);
      }
    }
    const page = await browser.newPage();
    // tsx names the functions it compiles with a helper the page does not have.
    await page.evaluateOnNewDocument('globalThis.__name = (fn) => fn;');
    await page.goto(daemon.url);
    await page.locator('[data-testid="pair-token"]').fill(TOKEN);
    await page.locator('[data-testid="pair-submit"]').click();
    for (const prefix of SERVERS) await page.waitForSelector(`[data-testid="server-${prefix}"]`);

    const times: number[] = [];
    const requests: number[] = [];
    // Two rounds untimed: the first loads and compiles the Tools view's code.
    for (let round = 0; round < rounds + 2; round++) {
      const prefix = SERVERS[round % SERVERS.length] as string;
      const elapsed = await page.evaluate(
        (prefix, count) =>
          new Promise<{ total: number; request: number }>((resolve, reject) => {
            const started = performance.now();
            const item = document.querySelector<HTMLElement>(`[data-testid="server-${prefix}"]`);
            if (!item) return reject(new Error(`no server ${prefix} in the sidebar`));
            item.click();
            const frame = (): void => {
              if (document.querySelector(`[data-testid^="tool-${prefix}-"][aria-setsize="${count}"]`)) {
                const total = performance.now() - started;
                // The tools/list request of this round, from the Resource Timing entries.
                const list = performance
                  .getEntriesByType('resource')
                  .filter((entry) => entry.name.endsWith('/api/mcp/tools/list') && entry.startTime >= started)
                  .at(-1) as PerformanceResourceTiming | undefined;
                resolve({ total, request: list ? list.responseEnd - started : Number.NaN });
              } else if (performance.now() - started > 30_000) {
                reject(new Error(`the ${count} tools of ${prefix} were not shown within 30 s`));
              } else {
                requestAnimationFrame(frame);
              }
            };
            requestAnimationFrame(frame);
          }),
        prefix,
        TOOLS,
      );
      if (round >= 2) {
        times.push(elapsed.total);
        requests.push(elapsed.request);
      }
    }
    return { tools: TOOLS, times, median: median(times), request: median(requests) };
  } finally {
    await browser.close();
    await http.close();
    await daemon.close();
  }
}

export function printPanel(result: PanelResult): void {
  const list = result.times.map((ms) => ms.toFixed(0)).join(', ');
  console.log(`\n${result.tools}-tool server listed and rendered in the web page (headless Chromium)`);
  console.log(
    `  from selecting the server to all tools in the list: median ${result.median.toFixed(0)} ms (${list}); ` +
      `the tools/list answer had arrived after ${result.request.toFixed(0)} ms`,
  );
}
