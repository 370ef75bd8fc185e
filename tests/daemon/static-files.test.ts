import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startDaemon } from './helpers.ts';

async function webBuild(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inspector-client-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>Inspector web app</title>');
  await writeFile(join(dir, 'app.js'), 'console.log("app")');
  return dir;
}

describe('web app files', () => {
  it('serves the built web app in production, with index.html for unknown non-API paths', async () => {
    const d = await startDaemon({ staticDir: await webBuild() });
    onTestFinished(() => d.close());
    const index = await fetch(`${d.url}/`);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('Inspector web app');
    const script = await fetch(`${d.url}/app.js`);
    expect(await script.text()).toBe('console.log("app")');
    const deepLink = await fetch(`${d.url}/servers/everything/tools`);
    expect(deepLink.status).toBe(200);
    expect(await deepLink.text()).toContain('Inspector web app');
  });

  it('answers well-known metadata addresses with a JSON 404, not the page', async () => {
    const d = await startDaemon({ staticDir: await webBuild() });
    onTestFinished(() => d.close());
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '//.well-known/oauth-authorization-server',
    ]) {
      const answer = await fetch(`${d.url}${path}`);
      expect(answer.status, path).toBe(404);
      expect(await answer.json()).toEqual({ error: `Not found: GET ${path}`, code: 'route_not_found' });
    }
  });

  it('lets no other site frame the web page, its files or its fallback', async () => {
    const d = await startDaemon({ staticDir: await webBuild() });
    onTestFinished(() => d.close());
    for (const path of ['/', '/index.html', '/app.js', '/servers/everything/tools']) {
      const { headers } = await fetch(`${d.url}${path}`);
      expect(headers.get('content-security-policy'), path).toBe("frame-ancestors 'none'");
      expect(headers.get('x-frame-options'), path).toBe('DENY');
    }
  });

  it('keeps unknown API paths a JSON 404 and still asks them for the token', async () => {
    const d = await startDaemon({ staticDir: await webBuild() });
    onTestFinished(() => d.close());
    const unknown = await d.api('GET', '/api/mcp/no-such-route');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain('/no-such-route');
    expect((await fetch(`${d.url}/api/mcp/no-such-route`)).status).toBe(401);
  });

  it('serves no files in development mode, where the dev server has the front end', async () => {
    const d = await startDaemon({ staticDir: await webBuild(), mode: 'development' });
    onTestFinished(() => d.close());
    const page = await fetch(`${d.url}/`);
    expect(page.status).toBe(404);
    expect(await page.json()).toEqual({
      error:
        'Not found: GET / (in development the web page is served by the Vite dev server: npm run dev:web, then open http://localhost:5173)',
      code: 'route_not_found',
    });
  });

  it('answers 404 for pages when the web app has not been built', async () => {
    const d = await startDaemon({ staticDir: join(tmpdir(), 'inspector-no-such-build') });
    onTestFinished(() => d.close());
    expect((await fetch(`${d.url}/`)).status).toBe(404);
  });
});
