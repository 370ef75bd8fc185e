import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer as createViteServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startDaemon, type TestDaemon } from '../daemon/helpers.ts';
import { launchBrowser } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonWithWebPage } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';
import type { Browser } from 'puppeteer';

// The daemon in production mode serves the built web page from its own origin; the flow of the panel
// test runs there, with localStorage in place of the extension's storage.
describe('the web page served by the daemon', USER_FLOW, () => {
  let browser: Browser;
  let daemon: TestDaemon;
  let web: PanelPage;
  const message = 'hello from the e2e web test';

  beforeAll(async () => {
    daemon = await startDaemonWithWebPage();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await daemon?.close();
  });

  it('offers its own origin for pairing, explains a refused token and an absent daemon, then pairs', async () => {
    web = await PanelPage.open(browser, `${daemon.url}/`);
    expect(await web.page.title()).toBe('MCP Inspector');
    expect(await web.pairing.url()).toBe(daemon.url);
    await web.screenshot('web-pairing');

    await web.pairing.pair(daemon.url, 'not-the-token');
    expect(await web.pairing.problem('refused the token')).toContain('refused the token');

    const nobody = `http://127.0.0.1:${await freePort()}`;
    await web.pairing.pair(nobody, daemon.token);
    expect(await web.pairing.problem('No daemon answers')).toContain(nobody);
    await web.screenshot('web-pairing-no-daemon');

    await web.pairing.pair(daemon.url, daemon.token);
    expect(await web.pairing.waitUntilPaired()).toContain('daemon');
  });

  it('cannot be shown in a frame of another site', async () => {
    // Another origin (another port): a page that frames the inspector, as a clickjacking page would.
    const framing = createServer((_req, res) =>
      res.setHeader('Content-Type', 'text/html').end(`<iframe src="${daemon.url}/"></iframe>`),
    );
    framing.listen(0, '127.0.0.1');
    await once(framing, 'listening');
    const page = await browser.newPage();
    try {
      const { port } = framing.address() as AddressInfo;
      await page.goto(`http://127.0.0.1:${port}/`);
      const frame = await (await page.waitForSelector('iframe'))?.contentFrame();
      await frame?.waitForFunction(() => document.readyState === 'complete');
      expect(await frame?.evaluate(() => document.querySelector('#app, [data-testid]') === null)).toBe(true);
      expect(await frame?.evaluate(() => document.title)).not.toBe('MCP Inspector');
    } finally {
      await page.close();
      framing.close();
    }
  });

  it("counts another site's token-less requests against web pages only: the command line stays in", async () => {
    const guarded = await startDaemonWithWebPage({ authFailuresPerMinute: 5 });
    // A page of another site that loads API addresses as images: no Origin, no token, ten failures.
    const attacker = createServer((_req, res) =>
      res
        .setHeader('Content-Type', 'text/html')
        .end(
          Array.from({ length: 10 }, (_, i) => `<img src="${guarded.url}/api/mcp/servers?i=${i}">`).join(''),
        ),
    );
    attacker.listen(0, '127.0.0.1');
    await once(attacker, 'listening');
    const page = await browser.newPage();
    try {
      await page.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
      await page.waitForFunction(() => Array.from(document.images).every((image) => image.complete));
      const asked = (headers: Record<string, string>) =>
        fetch(`${guarded.url}/api/mcp/servers`, {
          headers: { 'X-Inspector-Token': guarded.token, ...headers },
        }).then((answer) => answer.status);
      // The page's requests were counted: another one from a page of another site is refused...
      expect(await asked({ 'Sec-Fetch-Site': 'cross-site' })).toBe(429);
      // ...but a program (the command line sends neither Origin nor Sec-Fetch-Site) is not held up.
      expect(await asked({})).toBe(200);
    } finally {
      await page.close();
      attacker.close();
      await guarded.close();
    }
  });

  it('adds server-everything over STDIO, connects and runs echo', async () => {
    await web.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await web.servers.connect('everything');
    await web.tools.select('echo');
    await web.tools.fill('message', message);
    await web.tools.run();
    expect(await web.tools.resultWith(`Echo: ${message}`)).toContain(`Echo: ${message}`);
    await web.screenshot('web-tools-echo');
  });

  it('answers an elicitation and shows the completed result', async () => {
    await web.tools.select('trigger-elicitation-request');
    await web.tools.run();
    expect(await web.elicitation.message()).toBe('Please provide inputs for the following fields:');
    await web.elicitation.answer({ name: 'Grace Hopper' });
    expect(await web.tools.resultWith('- Name: Grace Hopper')).toContain(
      'User provided the requested information',
    );
  });

  it('keeps a saved request in localStorage across a reload and loads it back', async () => {
    await web.tools.select('echo');
    await web.savedRequests.save('Web greeting');
    await web.screenshot('web-saved-requests');

    await web.reload();
    expect(await web.pairing.waitUntilPaired()).toContain('daemon');
    expect(await web.savedRequests.titles()).toEqual(['Web greeting']);
    const stored = await web.page.evaluate(() => Object.keys(localStorage));
    expect(stored.some((key) => key.includes('savedRequests:everything'))).toBe(true);

    await web.tools.select('get-structured-content');
    await web.savedRequests.load('Web greeting');
    await web.tools.waitForSelected('echo');
    expect(await web.tools.fieldValue('message')).toBe(message);
  });

  it('keeps a title in sight beside a long description, and asks for a title a rename leaves blank', async () => {
    await web.savedRequests.renameByClick('Web greeting', {
      title: 'Web greeting',
      description: 'A description long enough to fill the row by itself. '.repeat(20),
    });
    await waitForText(web.page, byTestId('saved-item'), 'A description long enough');
    expect(await web.savedRequests.titleWidth('Web greeting')).toBeGreaterThan(50);
    await web.screenshot('web-saved-request-described');
    // OK on a blank title: the page says what is needed (not the browser's own bubble), the form stays.
    await web.savedRequests.renameByClick('Web greeting', { title: '   ' });
    expect(await web.savedRequests.problem('needs a title')).toContain('A saved request needs a title');
    await web.savedRequests.cancelRename();
    expect(await web.savedRequests.titles()).toEqual(['Web greeting']);
  });

  it('says so when an import does not fit in the storage, and lists only what is saved', async () => {
    // localStorage keeps about 5 MB an origin: a request of 6 million characters cannot be written.
    const file = join(await mkdtemp(join(tmpdir(), 'inspector-e2e-import-')), 'too-big.json');
    const big = { title: 'Too big', toolName: 'echo', parameters: { message: 'x'.repeat(6_000_000) } };
    await writeFile(file, JSON.stringify({ version: 1, serverId: 'everything', requests: [big] }));
    await web.savedRequests.importFile(file);
    expect(await web.savedRequests.problem('Not saved')).toBe(
      "Not saved: the browser's storage for saved requests is full. Export the ones you need, delete some, and try again.",
    );
    expect(await web.savedRequests.titles()).toEqual(['Web greeting']);
    await web.reload();
    expect(await web.pairing.waitUntilPaired()).toContain('daemon');
    expect(await web.savedRequests.titles()).toEqual(['Web greeting']);
  });
});

// `npm run dev:web` and `npm run dev`: the page on the Vite dev server, from source with hot reload, calls a
// development daemon across origins. The dev server is on a free port here; the daemon is told its address
// (devServerUrl), as `npm run dev` knows port 5173.
describe('the web page on the Vite dev server', USER_FLOW, () => {
  let browser: Browser;
  let daemon: TestDaemon;
  let vite: ViteDevServer;
  let web: PanelPage;

  beforeAll(async () => {
    const port = await freePort();
    const daemonUrl = `http://127.0.0.1:${port}`;
    const before = process.env.INSPECTOR_DAEMON_URL;
    process.env.INSPECTOR_DAEMON_URL = daemonUrl;
    try {
      vite = await createViteServer({
        configFile: fileURLToPath(new URL('../../vite.web.config.ts', import.meta.url)),
        server: { port: 0, strictPort: false },
        logLevel: 'silent',
      });
      await vite.listen();
    } finally {
      if (before === undefined) delete process.env.INSPECTOR_DAEMON_URL;
      else process.env.INSPECTOR_DAEMON_URL = before;
    }
    const pageUrl = vite.resolvedUrls?.local[0];
    if (!pageUrl) throw new Error('the Vite dev server did not say its address');
    daemon = await startDaemon({ mode: 'development', port, devServerUrl: pageUrl });
    browser = await launchBrowser();
    web = await PanelPage.open(browser, pageUrl);
  });

  afterAll(async () => {
    await browser?.close();
    await vite?.close();
    await daemon?.close();
  });

  it('offers the development daemon for pairing, pairs across origins and goes live', async () => {
    expect(await web.page.title()).toBe('MCP Inspector');
    expect(new URL(web.page.url()).port).not.toBe(new URL(daemon.url).port);
    expect(await web.pairing.url()).toBe(daemon.url);
    await web.pairing.pair(daemon.url, daemon.token);
    expect(await web.pairing.waitUntilPaired()).toContain('daemon');
    expect(await web.waitForLive()).toBe('live');
  });

  it('runs echo on server-everything through the development daemon', async () => {
    await web.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await web.servers.connect('everything');
    await web.tools.select('echo');
    await web.tools.fill('message', 'from the dev server');
    await web.tools.run();
    expect(await web.tools.resultWith('Echo: from the dev server')).toContain('Echo: from the dev server');
    await web.screenshot('web-dev-server-echo');
  });
});
