import { request as httpRequest } from 'node:http';
import { runInContext, createContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { BRIDGE_ATTRIBUTE, bridgeScript } from '../../daemon/widgets/bridge-script.ts';
import { type DaemonAddress, namesDaemon } from '../../daemon/widgets/widget-csp.ts';
import { injectAtStart } from '../../daemon/widgets/widget-page.ts';
import { WidgetStore } from '../../daemon/widgets/widget-store.ts';
import {
  DEFAULT_WIDGET_GLOBALS,
  WIDGET_CSP_DIRECTIVES,
  widgetCspDirectives,
  type WidgetPageData,
  type WidgetRecord,
} from '../../shared/widgets.ts';
import { fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';

const HOUR = 60 * 60_000;
const MINUTE = 60_000;
const COUNTER_URI = 'ui://widget/counter.html';
const HOSTILE_URI = 'ui://widget/hostile.html';
const DECLARED_URI = 'ui://widget/declared.html';
const LISTED_URI = 'ui://widget/listed.html';
const HOSTILE = '</script><script>window.pwned = true</script><!-- \u2028 & >';
const ROUTE_FAMILIES = [
  { store: '/api/mcp/resources/widget/store', page: '/api/mcp/resources/widget/' },
  { store: '/api/mcp/openai/widget/store', page: '/api/mcp/openai/widget-content/' },
];

/** Every route that serves HTML a widget can read. */
const HTML_ROUTES = [
  '/api/mcp/openai/widget-content/',
  '/api/mcp/resources/widget/',
  '/api/mcp/openai/widget/',
];
const META_CSP = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/;
/** What only a header can say; the `<meta>` copy of a widget's policy has the rest. */
const HEADER_ONLY = ['sandbox allow-scripts', "frame-ancestors 'none'"];

const count = (text: string, part: string): number => text.split(part).length - 1;
/** The directives of a policy by name, each with its sources; a repeated directive fails the test. */
const directives = (policy: string): Map<string, string> => {
  const byName = new Map<string, string>();
  for (const directive of policy.split(';').map((part) => part.trim())) {
    const [name = '', ...sources] = directive.split(/\s+/);
    expect(byName.has(name), `directive ${name} appears twice`).toBe(false);
    byName.set(name, sources.join(' '));
  }
  return byName;
};
const unescapeAttribute = (value: string): string =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const bridgeOf = (html: string): string => {
  const match = new RegExp(`<script ${BRIDGE_ATTRIBUTE}>([\\s\\S]*?)</script>`).exec(html);
  if (!match?.[1]) throw new Error('no bridge in the page');
  return match[1];
};

// ---------------------------------------------------------------------------------------------------

describe('widget store', () => {
  const record = (toolId: string): Omit<WidgetRecord, 'timestamp'> => ({
    serverId: 's',
    uri: COUNTER_URI,
    toolInput: {},
    toolOutput: null,
    toolId,
  });
  const fakeClock = (): void => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'], now: 1_000_000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
  };

  it('keeps a record until its TTL and misses it from then on, before any sweep', () => {
    fakeClock();
    const store = new WidgetStore({ ttlMs: HOUR, sweepIntervalMs: 10 * HOUR });
    onTestFinished(() => store.close());
    const { expiresAt } = store.put(record('a'));
    expect(expiresAt.getTime()).toBe(1_000_000 + HOUR);
    vi.setSystemTime(1_000_000 + HOUR - 1);
    expect(store.get('a')?.toolId).toBe('a');
    vi.setSystemTime(1_000_000 + HOUR);
    expect(store.get('a')).toBeUndefined();
  });

  it('sweeps expired records on its interval', () => {
    fakeClock();
    const store = new WidgetStore({ ttlMs: 1000, sweepIntervalMs: 500 });
    onTestFinished(() => store.close());
    store.put(record('old'));
    vi.advanceTimersByTime(600);
    store.put(record('young'));
    expect(store.size).toBe(2);
    vi.advanceTimersByTime(500);
    expect(store.size).toBe(1);
    expect(store.get('young')).toBeDefined();
  });

  it('restarts the TTL of a record stored again under the same toolId', () => {
    fakeClock();
    const store = new WidgetStore({ ttlMs: 1000 });
    onTestFinished(() => store.close());
    store.put(record('a'));
    vi.advanceTimersByTime(900);
    store.put({ ...record('a'), toolOutput: 2 });
    vi.advanceTimersByTime(900);
    expect(store.get('a')?.toolOutput).toBe(2);
  });

  it('drops the oldest records past maxRecords', () => {
    const store = new WidgetStore({ ttlMs: HOUR, maxRecords: 2 });
    onTestFinished(() => store.close());
    for (const id of ['a', 'b', 'c']) store.put(record(id));
    expect(store.get('a')).toBeUndefined();
    expect([store.get('b')?.toolId, store.get('c')?.toolId]).toEqual(['b', 'c']);
  });

  it('stops its sweep timer when closed', () => {
    fakeClock();
    const store = new WidgetStore({ ttlMs: HOUR });
    expect(vi.getTimerCount()).toBe(1);
    store.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('issues view codes of 256 random bits that open their one widget once', () => {
    const store = new WidgetStore({ ttlMs: HOUR });
    onTestFinished(() => store.close());
    const first = store.issueViewCode('a');
    const second = store.issueViewCode('a');
    expect(first.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second.code).not.toBe(first.code);
    expect(store.redeemViewCode('a', first.code)).toBe(true);
    expect(store.redeemViewCode('a', first.code)).toBe(false);
    // A code shown for another widget is spent all the same.
    expect(store.redeemViewCode('b', second.code)).toBe(false);
    expect(store.redeemViewCode('a', second.code)).toBe(false);
    expect(store.redeemViewCode('a', 'guessed')).toBe(false);
  });

  it('lets a view code expire after a minute, or its configured viewCodeTtlMs, and sweeps it', () => {
    fakeClock();
    const store = new WidgetStore({ ttlMs: HOUR, sweepIntervalMs: 10 * HOUR });
    onTestFinished(() => store.close());
    const { code, expiresAt } = store.issueViewCode('a');
    expect(expiresAt.getTime()).toBe(1_000_000 + MINUTE);
    vi.setSystemTime(1_000_000 + MINUTE - 1);
    expect(store.redeemViewCode('a', code)).toBe(true);
    const late = store.issueViewCode('a');
    vi.setSystemTime(Date.now() + MINUTE);
    expect(store.redeemViewCode('a', late.code)).toBe(false);

    const short = new WidgetStore({ ttlMs: HOUR, viewCodeTtlMs: 5000, sweepIntervalMs: 10 * HOUR });
    onTestFinished(() => short.close());
    short.issueViewCode('a');
    expect(short.viewCodeCount).toBe(1);
    vi.setSystemTime(Date.now() + 5000);
    short.sweep();
    expect(short.viewCodeCount).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('widget routes', () => {
  let d: TestDaemon;
  let next = 0;
  const store = (body: Record<string, unknown> = {}, path = ROUTE_FAMILIES[1]!.store) =>
    d.api('POST', path, {
      serverId: 'widgets',
      uri: COUNTER_URI,
      toolInput: { start: 41 },
      toolOutput: { count: 42 },
      toolId: `call-${++next}`,
      ...body,
    });
  const page = (path: string, headers?: Record<string, string>) => d.api('GET', path, undefined, headers);

  beforeAll(async () => {
    d = await startDaemon();
    await d.api('PUT', '/api/mcp/servers/widgets', { config: fixtureStdio('widget-server.ts') });
  });
  afterAll(() => d?.close());

  it('lists the tool whose outputTemplate names the widget', async () => {
    const listed = await d.api('POST', '/api/mcp/tools/list', { serverId: 'widgets' });
    expect(listed.body.toolsMetadata.counter).toEqual({
      'openai/outputTemplate': COUNTER_URI,
      'openai/widgetAccessible': true,
    });
  });

  it('stores a record for one hour and answers when it expires', async () => {
    const before = Date.now();
    const stored = await store({ toolId: 'stored-1' });
    const after = Date.now();
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual({ success: true, toolId: 'stored-1', expiresAt: expect.any(String) });
    const expiresAt = Date.parse(stored.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + HOUR);
    expect(expiresAt).toBeLessThanOrEqual(after + HOUR);
  });

  it('serves the resource HTML with its policy and the bridge injected once, before anything of its own, and the stored data', async () => {
    const { body } = await store({ toolId: 'page-1' });
    const served = await page(`/api/mcp/openai/widget-content/${body.toolId}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html: string = served.body;
    expect(count(html, BRIDGE_ATTRIBUTE)).toBe(1);
    expect(html).toMatch(
      new RegExp(
        `^<!doctype html><meta http-equiv="Content-Security-Policy"[^>]*><script ${BRIDGE_ATTRIBUTE}>[\\s\\S]*?</script>\\s*<html lang="en">\\s*<head>`,
      ),
    );
    expect(html).toContain('<title>Counter</title>');
    expect(html).toContain("openai.callTool('counter'");
    const bridge = bridgeOf(html);
    expect(bridge).toContain('"toolInput":{"start":41}');
    expect(bridge).toContain('"toolOutput":{"count":42}');
  });

  it('gives a widget that declares no domains a policy without connections, https:, loopback or self, with nosniff, no-referrer and no-store', async () => {
    const { body } = await store();
    const served = await page(`/api/mcp/openai/widget-content/${body.toolId}`);
    const csp = served.headers.get('content-security-policy') ?? '';
    expect(csp).toBe([...WIDGET_CSP_DIRECTIVES, ...HEADER_ONLY].join('; '));
    const policy = directives(csp);
    expect(policy.get('default-src')).toBe("'none'");
    expect(policy.get('connect-src')).toBe("'none'");
    expect(policy.get('frame-src')).toBe("'none'");
    expect(policy.get('script-src')).toBe("'unsafe-inline' 'unsafe-eval'");
    expect(policy.get('img-src')).toBe('data: blob:');
    expect(csp).not.toMatch(/https:|http:|localhost|127\.0\.0\.1|'self'|\*/);
    // The page carries the same policy, but for what only a header can say.
    const meta = unescapeAttribute(META_CSP.exec(served.body)?.[1] ?? '');
    expect([meta, ...HEADER_ONLY].join('; ')).toBe(csp);
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('referrer-policy')).toBe('no-referrer');
    expect(served.headers.get('cache-control')).toBe('no-store');
  });

  it('puts neither the token nor the daemon address in the page', async () => {
    const { body } = await store();
    for (const path of [
      `/api/mcp/openai/widget-content/${body.toolId}`,
      `/api/mcp/resources/widget/${body.toolId}`,
      `/api/mcp/openai/widget/${body.toolId}`,
    ]) {
      const served = await page(path);
      expect(served.status).toBe(200);
      expect(served.body).not.toContain(d.token);
      expect(served.body).not.toContain(d.url);
      expect(served.body).not.toContain('/api/mcp');
    }
  });

  it('keeps </script> in toolOutput escaped, and the bridge hands back the exact value', async () => {
    const { body } = await store({ toolInput: { note: HOSTILE }, toolOutput: { text: HOSTILE } });
    const html: string = (await page(`/api/mcp/openai/widget-content/${body.toolId}`)).body;
    // The widget's own script and the bridge: nothing in the data ends or opens an element.
    expect(count(html, '</script>')).toBe(2);
    expect(count(html, '<script')).toBe(2);
    expect(html).not.toContain('<!-- ');
    const { window } = runBridge(bridgeOf(html));
    expect(window.openai.toolOutput).toEqual({ text: HOSTILE });
    expect(window.openai.toolInput).toEqual({ note: HOSTILE });
    expect(window.pwned).toBeUndefined();
  });

  it('serves one store through both route families', async () => {
    for (const from of ROUTE_FAMILIES) {
      const { body } = await store({ toolOutput: { via: from.store } }, from.store);
      for (const to of ROUTE_FAMILIES) {
        const served = await page(`${to.page}${body.toolId}`);
        expect(served.status).toBe(200);
        expect(bridgeOf(served.body)).toContain(JSON.stringify({ via: from.store }));
      }
    }
  });

  it('answers 404 for an unknown toolId on every widget page', async () => {
    for (const path of [
      '/api/mcp/openai/widget-content/',
      '/api/mcp/resources/widget/',
      '/api/mcp/openai/widget/',
    ]) {
      const served = await page(`${path}nobody-stored-this`);
      expect(served.status).toBe(404);
      expect(served.body).toEqual({
        error: 'Unknown or expired widget "nobody-stored-this"',
        code: 'widget_not_found',
      });
      // An id no widget has is not quoted back: a token pasted into the path stays out of the answer.
      const pasted = await page(`${path}w1;token=${d.token}`);
      expect(pasted.status).toBe(404);
      expect(pasted.body.error).toBe('Unknown widget: a widget id is 1 to 128 letters, digits and . _ : -');
    }
  });

  it('answers 404 once the hour has passed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const storedAt = Date.now();
    const { body } = await store();
    expect(body.expiresAt).toBe(new Date(storedAt + HOUR).toISOString());
    vi.setSystemTime(storedAt + HOUR - 1);
    expect((await page(`/api/mcp/resources/widget/${body.toolId}`)).status).toBe(200);
    vi.setSystemTime(storedAt + HOUR);
    expect((await page(`/api/mcp/resources/widget/${body.toolId}`)).status).toBe(404);
    expect((await page(`/api/mcp/openai/widget-content/${body.toolId}`)).status).toBe(404);
  });

  it('answers 401 on every widget route without the token', async () => {
    const { body } = await store();
    const noToken = { 'X-Inspector-Token': '' };
    for (const family of ROUTE_FAMILIES) {
      const stored = await d.api('POST', family.store, { toolId: 'x' }, noToken);
      expect(stored.status).toBe(401);
    }
    const view = await d.api('POST', `/api/mcp/openai/widget/${body.toolId}/view`, undefined, noToken);
    expect(view).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    for (const path of HTML_ROUTES) {
      const served = await page(`${path}${body.toolId}`, noToken);
      expect(served).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    }
  });

  it('refuses the token in the address of every widget page, where widget code could read it, even beside the header', async () => {
    const { body } = await store();
    for (const path of HTML_ROUTES) {
      const address = `${d.url}${path}${body.toolId}?token=${d.token}`;
      for (const headers of [{}, { 'X-Inspector-Token': d.token }] as Record<string, string>[]) {
        const inQuery = await fetch(address, { headers });
        expect(inQuery.status, address).toBe(400);
        const answer = await inQuery.json();
        expect(answer.error).toMatch(
          /^token: widget pages take the token in the X-Inspector-Token header only/,
        );
        expect(JSON.stringify(answer)).not.toContain(d.token);
      }
    }
  });

  it('answers 400 with every problem of a bad store body', async () => {
    const bad = await d.api('POST', '/api/mcp/openai/widget/store', {
      serverId: 'widgets',
      uri: 'https://example.com/widget.html',
      toolInput: 'text',
      toolId: 'has spaces/and slashes',
    });
    expect(bad.status).toBe(400);
    for (const field of ['uri', 'toolInput', 'toolOutput', 'toolId'])
      expect(bad.body.error).toContain(`${field}: `);
    const tooLong = await store({ toolId: 'x'.repeat(129) });
    expect(tooLong.status).toBe(400);
  });

  it('answers 404 when storing for an unknown serverId', async () => {
    const stored = await store({ serverId: 'nobody' });
    expect(stored).toMatchObject({ status: 404, body: { error: 'Unknown server "nobody"' } });
  });

  it('answers 502 when the server has no such resource, or no HTML in it', async () => {
    for (const uri of ['ui://widget/missing.html', 'ui://widget/notes.txt']) {
      const { body } = await store({ uri });
      const served = await page(`/api/mcp/openai/widget-content/${body.toolId}`);
      expect(served.status).toBe(502);
      expect(served.body.mcpError).toBeDefined();
    }
  });

  it('decodes a blob resource and injects the bridge into a page without <head>', async () => {
    const { body } = await store({ uri: 'ui://widget/bare.html' });
    const served = await page(`/api/mcp/openai/widget-content/${body.toolId}`);
    expect(served.status).toBe(200);
    expect(served.body).toMatch(
      new RegExp(`^<meta [^>]+><script ${BRIDGE_ATTRIBUTE}>[\\s\\S]*</script><div id="bare">`),
    );
  });

  it('embeds the widget in the container page through srcdoc of a sandboxed frame', async () => {
    const { body } = await store({ toolOutput: { text: HOSTILE } });
    const served = await page(`/api/mcp/openai/widget/${body.toolId}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-security-policy')).toContain('sandbox allow-scripts');
    const html: string = served.body;
    const frames = [...html.matchAll(/<iframe ([^>]*)>/g)].map((m) => m[1] ?? '');
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatch(/^sandbox="allow-scripts" referrerpolicy="no-referrer" /);
    expect(frames[0]).not.toContain('allow-same-origin');
    expect(frames[0]).not.toMatch(/\ssrc=/);
    // The whole widget page sits in the attribute, so the container itself has no script at all.
    expect(count(html, '<script')).toBe(0);
    const srcdoc = /srcdoc="([^"]*)"/.exec(frames[0]!)?.[1] ?? '';
    expect(srcdoc).toContain(`&lt;script ${BRIDGE_ATTRIBUTE}&gt;`);
  });

  it('uses the configured widgetTtlMs', async () => {
    const short = await startDaemon({ widgetTtlMs: 5000 });
    onTestFinished(() => short.close());
    await short.api('PUT', '/api/mcp/servers/widgets', { config: fixtureStdio('widget-server.ts') });
    const before = Date.now();
    const { body } = await short.api('POST', '/api/mcp/openai/widget/store', {
      serverId: 'widgets',
      uri: COUNTER_URI,
      toolInput: {},
      toolOutput: null,
      toolId: 'short',
    });
    expect(Date.parse(body.expiresAt) - before).toBeLessThan(HOUR);
    expect(Date.parse(body.expiresAt)).toBeGreaterThanOrEqual(before + 5000);
  });
  describe('the container page in a browser tab', () => {
    const viewOf = async (toolId: string) => {
      const view = await d.api('POST', `/api/mcp/openai/widget/${toolId}/view`);
      expect(view.status).toBe(200);
      return view.body as { url: string; expiresAt: string };
    };
    /** A GET as a browser tab makes it: no token header, only the address. */
    const open = async (url: string) => {
      const response = await fetch(url);
      const text = await response.text();
      return { status: response.status, text, headers: response.headers };
    };

    it('answers POST …/view with the address of the container page, holding a view code good for a minute and no token', async () => {
      const { body } = await store();
      const before = Date.now();
      const view = await viewOf(body.toolId);
      expect(Object.keys(view).sort()).toEqual(['expiresAt', 'url']);
      const url = new URL(view.url);
      expect(url.origin).toBe(d.url);
      expect(url.pathname).toBe(`/api/mcp/openai/widget/${body.toolId}`);
      expect([...url.searchParams.keys()]).toEqual(['view']);
      expect(url.searchParams.get('view')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(view.url).not.toContain(d.token);
      const expiresAt = Date.parse(view.expiresAt);
      expect(expiresAt).toBeGreaterThanOrEqual(before + MINUTE);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + MINUTE);
    });

    it('opens the widget once with the view code and answers 401 to the same code again', async () => {
      const { body } = await store({ toolOutput: { count: 7 } });
      const { url } = await viewOf(body.toolId);
      const opened = await open(url);
      expect(opened.status).toBe(200);
      expect(opened.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(opened.text).toContain('<iframe sandbox="allow-scripts" referrerpolicy="no-referrer"');
      expect(opened.text).toContain('&quot;toolOutput&quot;:{&quot;count&quot;:7}');
      const again = await open(url);
      expect(again.status).toBe(401);
      expect(JSON.parse(again.text)).toEqual({
        error:
          'view: unknown, used or expired view code. A view code opens its one widget once, within a minute; POST /api/mcp/openai/widget/:toolId/view with the token gives a new address',
        code: 'invalid_view_code',
      });
    });

    it('serves a page that holds neither the token, nor the view code, nor the daemon address', async () => {
      const { body } = await store();
      const { url } = await viewOf(body.toolId);
      const code = new URL(url).searchParams.get('view')!;
      const opened = await open(url);
      expect(opened.status).toBe(200);
      for (const secret of [d.token, code, d.url, '/api/mcp']) expect(opened.text).not.toContain(secret);
      expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
      expect(opened.headers.get('cache-control')).toBe('no-store');
    });

    it('answers 401 to a view code after its minute', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      onTestFinished(() => {
        vi.useRealTimers();
      });
      const { body } = await store();
      const issuedAt = Date.now();
      const late = await viewOf(body.toolId);
      const inTime = await viewOf(body.toolId);
      expect(late.expiresAt).toBe(new Date(issuedAt + MINUTE).toISOString());
      vi.setSystemTime(issuedAt + MINUTE - 1);
      expect((await open(inTime.url)).status).toBe(200);
      vi.setSystemTime(issuedAt + MINUTE);
      expect((await open(late.url)).status).toBe(401);
    });

    it('answers 401 to the view code of another widget, and the code is spent', async () => {
      const { body: mine } = await store();
      const { body: other } = await store();
      const { url } = await viewOf(mine.toolId);
      const elsewhere = url.replace(`/widget/${mine.toolId}?`, `/widget/${other.toolId}?`);
      expect((await open(elsewhere)).status).toBe(401);
      expect((await open(url)).status).toBe(401);
    });

    it('answers 401 to a made-up, empty or repeated view code', async () => {
      const { body } = await store();
      const base = `${d.url}/api/mcp/openai/widget/${body.toolId}`;
      for (const query of ['?view=made-up', '?view=', '?view=a&view=b']) {
        const answer = await open(`${base}${query}`);
        expect(answer.status, query).toBe(401);
        expect(JSON.parse(answer.text).error).toMatch(/^view: /);
      }
    });

    it('answers 404 to a good view code when its widget expired meanwhile', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      onTestFinished(() => {
        vi.useRealTimers();
      });
      const storedAt = Date.now();
      const { body } = await store();
      vi.setSystemTime(storedAt + HOUR - 1000);
      const { url } = await viewOf(body.toolId);
      vi.setSystemTime(storedAt + HOUR);
      const opened = await open(url);
      expect(opened.status).toBe(404);
      expect(JSON.parse(opened.text)).toEqual({
        error: `Unknown or expired widget "${body.toolId}"`,
        code: 'widget_not_found',
      });
    });

    it('keeps the Host and Origin checks in front of the view code, which such a refusal does not spend', async () => {
      const { body } = await store();
      const { url } = await viewOf(body.toolId);
      const fromSite = await fetch(url, { headers: { Origin: 'https://evil.example' } });
      expect(fromSite.status).toBe(403);
      const rebound = await new Promise<number>((resolve, reject) => {
        const { port, pathname, search } = new URL(url);
        const request = httpRequest(
          { host: '127.0.0.1', port, path: pathname + search, headers: { Host: `evil.example:${port}` } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end();
      });
      expect(rebound).toBe(403);
      expect((await open(url)).status).toBe(200);
    });

    it('answers 404 to POST …/view for an unknown widget', async () => {
      const view = await d.api('POST', '/api/mcp/openai/widget/nobody-stored-this/view');
      expect(view).toMatchObject({
        status: 404,
        body: { error: 'Unknown or expired widget "nobody-stored-this"' },
      });
    });

    it('answers 400 to ?token= beside a good view code, and the page without a view code asks for the token header', async () => {
      const { body } = await store();
      const { url } = await viewOf(body.toolId);
      const withToken = await open(`${url}&token=${d.token}`);
      expect(withToken.status).toBe(400);
      expect(JSON.parse(withToken.text).error).toMatch(/^token: /);
      const bare = await open(`${d.url}/api/mcp/openai/widget/${body.toolId}`);
      expect(bare.status).toBe(401);
      expect(JSON.parse(bare.text)).toEqual({ error: 'Unauthorized', code: 'unauthorized' });
    });
  });

  describe('the policy of an Apps-SDK widget, from the domains its resource declares', () => {
    const served = async (uri: string, path = '/api/mcp/openai/widget-content/') => {
      const { body } = await store({ uri });
      const answer = await page(`${path}${body.toolId}`);
      expect(answer.status).toBe(200);
      const header = answer.headers.get('content-security-policy') ?? '';
      return { html: answer.body as string, header, policy: directives(header) };
    };

    it('allows exactly the hosts the read content declares, over those of its listing', async () => {
      const { html, header, policy } = await served(DECLARED_URI);
      expect(policy.get('connect-src')).toBe('https://api.example.com wss://live.example.com');
      expect(policy.get('script-src')).toBe(
        "'unsafe-inline' 'unsafe-eval' https://cdn.example.com https://*.fonts.example.net",
      );
      expect(policy.get('style-src')).toBe(
        "'unsafe-inline' https://cdn.example.com https://*.fonts.example.net",
      );
      expect(policy.get('img-src')).toBe('data: blob: https://cdn.example.com https://*.fonts.example.net');
      expect(policy.get('font-src')).toBe('data: https://cdn.example.com https://*.fonts.example.net');
      expect(policy.get('frame-src')).toBe('https://player.example.com');
      expect(policy.get('base-uri')).toBe("'none'");
      expect(policy.get('form-action')).toBe("'none'");
      expect(header).not.toContain('listed.example.com');
      expect(header).not.toMatch(/'self'|https:(?!\/\/)/);
      const meta = unescapeAttribute(META_CSP.exec(html)?.[1] ?? '');
      expect([meta, ...HEADER_ONLY].join('; ')).toBe(header);
    });

    it('falls back to the listing, and drops what is not a host source or could be the daemon', async () => {
      const { header, policy } = await served(LISTED_URI);
      expect(policy.get('connect-src')).toBe('https://listed.example.com http://localhost:5173');
      expect(policy.get('script-src')).toBe("'unsafe-inline' 'unsafe-eval' https://cdn.listed.example.com");
      expect(policy.get('img-src')).toBe('data: blob: https://cdn.listed.example.com');
      expect(policy.get('frame-src')).toBe("'none'");
      expect(header).not.toContain('127.0.0.1');
      expect(header).not.toContain('a.example.com;');
    });

    it('leaves nothing of a declaration that names the daemon and everything', async () => {
      const { header } = await served(HOSTILE_URI);
      expect(header).toBe([...WIDGET_CSP_DIRECTIVES, ...HEADER_ONLY].join('; '));
    });

    it('puts the widget policy on the container page, whose srcdoc frame inherits it', async () => {
      const { policy } = await served(DECLARED_URI, '/api/mcp/openai/widget/');
      expect(policy.get('connect-src')).toBe('https://api.example.com wss://live.example.com');
      expect(policy.get('sandbox')).toBe('allow-scripts');
    });
  });
});

// ---------------------------------------------------------------------------------------------------

interface Posted {
  message: any;
  targetOrigin: string;
}

/** Runs the bridge in a fresh VM context whose `window` is a fake frame with a fake parent. */
function runBridge(source: string, options: { localStorage?: unknown } = {}) {
  const posted: Posted[] = [];
  const parent = {
    postMessage: (message: unknown, targetOrigin: string) => posted.push({ message, targetOrigin }),
  };
  const listeners: Array<(event: unknown) => void> = [];
  const events: CustomEvent[] = [];
  const refuse = () => {
    throw new Error('SecurityError: opaque origin');
  };
  const window: any = createContext({
    parent,
    CustomEvent,
    setTimeout,
    clearTimeout,
    localStorage: options.localStorage ?? { getItem: refuse, setItem: refuse },
    addEventListener: (type: string, listener: (event: unknown) => void) => {
      if (type === 'message') listeners.push(listener);
    },
    dispatchEvent: (event: CustomEvent) => events.push(event),
  });
  window.window = window;
  runInContext(source, window);
  const deliver = (data: unknown, source: unknown = parent) => {
    for (const listener of listeners) listener({ source, data });
  };
  return { window, posted, events, deliver };
}

const pageData = (overrides: Partial<WidgetPageData> = {}): WidgetPageData => ({
  toolId: 'vm-1',
  callToolTimeoutMs: 60_000,
  globals: { ...DEFAULT_WIDGET_GLOBALS, toolInput: { start: 1 }, toolOutput: { count: 2 } },
  ...overrides,
});
const inVm = (overrides?: Partial<WidgetPageData>, options?: { localStorage?: unknown }) =>
  runBridge(bridgeOf(bridgeScript(pageData(overrides))), options);
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('widget bridge', () => {
  it('defines window.openai and window.webplus as one object with every member and global', () => {
    const { window } = inVm();
    expect(window.webplus).toBe(window.openai);
    for (const member of ['callTool', 'sendFollowupTurn', 'setWidgetState', 'requestDisplayMode']) {
      expect(typeof window.openai[member]).toBe('function');
    }
    expect(window.openai).toMatchObject({
      toolInput: { start: 1 },
      toolOutput: { count: 2 },
      displayMode: 'inline',
      theme: 'light',
      locale: 'en-US',
      maxHeight: null,
      widgetState: null,
    });
  });

  it('posts callTool to the parent and resolves with the result of the same requestId', async () => {
    const { window, posted, deliver } = inVm();
    const call = window.openai.callTool('counter', { start: 2 });
    expect(posted).toHaveLength(1);
    const [{ message, targetOrigin }] = posted as [Posted];
    expect(targetOrigin).toBe('*');
    expect(message).toEqual({
      type: 'openai:callTool',
      requestId: expect.any(String),
      toolName: 'counter',
      params: { start: 2 },
    });
    deliver({ type: 'openai:callTool:result', requestId: 'another', result: 'wrong' });
    deliver({
      type: 'openai:callTool:result',
      requestId: message.requestId,
      result: { structuredContent: { count: 3 } },
    });
    await expect(call).resolves.toEqual({ structuredContent: { count: 3 } });
  });

  it('rejects callTool when the host answers with an error', async () => {
    const { window, posted, deliver } = inVm();
    const call = window.openai.callTool('counter', {});
    deliver({
      type: 'openai:callTool:result',
      requestId: posted[0]!.message.requestId,
      error: 'Tool failed',
    });
    await expect(call).rejects.toThrow('Tool failed');
  });

  it('rejects callTool when the host never answers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { window } = inVm({ callToolTimeoutMs: 5000 });
    const call = window.openai.callTool('counter', {});
    const outcome = expect(call).rejects.toThrow('no answer from the host within 5000 ms');
    vi.advanceTimersByTime(5000);
    await outcome;
  });

  it('ignores messages from any window but the parent, and of unknown types', async () => {
    const { window, posted, deliver } = inVm();
    let answered = false;
    const call = window.openai.callTool('counter', {}).then((result: unknown) => {
      answered = true;
      return result;
    });
    const { requestId } = posted[0]!.message;
    const stranger = { postMessage: () => {} };
    deliver({ type: 'openai:callTool:result', requestId, result: 'forged' }, stranger);
    deliver({ type: 'openai:set_globals', globals: { theme: 'dark' } }, stranger);
    deliver({ type: 'openai:setWidgetState', state: 'forged' });
    deliver('openai:set_globals');
    await settled();
    expect(answered).toBe(false);
    expect(window.openai.theme).toBe('light');
    expect(window.openai.widgetState).toBeNull();
    deliver({ type: 'openai:callTool:result', requestId, result: 'real' });
    await expect(call).resolves.toBe('real');
  });

  it('updates the globals on openai:set_globals and dispatches the event', () => {
    const { window, events, deliver } = inVm();
    deliver({
      type: 'openai:set_globals',
      globals: { theme: 'dark', maxHeight: 480, callTool: 'not a global' },
    });
    expect(window.openai).toMatchObject({ theme: 'dark', maxHeight: 480 });
    expect(typeof window.openai.callTool).toBe('function');
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('openai:set_globals');
    expect(events[0]!.detail).toEqual({ globals: { theme: 'dark', maxHeight: 480 } });
  });

  it('posts sendFollowupTurn to the parent', async () => {
    const { window, posted } = inVm();
    await window.openai.sendFollowupTurn('Tell me more');
    await window.openai.sendFollowUpMessage({ prompt: 'And more' });
    expect(posted.map((p) => p.message)).toEqual([
      { type: 'openai:sendFollowupTurn', message: 'Tell me more' },
      { type: 'openai:sendFollowupTurn', message: 'And more' },
    ]);
    await expect(window.openai.sendFollowupTurn({})).rejects.toThrow('message must be a string');
  });

  it('sets widgetState, posts it for the host to keep, and survives a localStorage that throws', async () => {
    const { window, posted, events } = inVm();
    await window.openai.setWidgetState({ clicks: 1 });
    expect(window.openai.widgetState).toEqual({ clicks: 1 });
    expect(posted.map((p) => p.message)).toEqual([{ type: 'openai:setWidgetState', state: { clicks: 1 } }]);
    expect(events.map((e) => e.detail)).toEqual([{ globals: { widgetState: { clicks: 1 } } }]);
  });

  it('saves widgetState in localStorage where there is one, and starts from the host value', async () => {
    const saved = new Map<string, string>();
    const localStorage = {
      getItem: (k: string) => saved.get(k) ?? null,
      setItem: (k: string, v: string) => saved.set(k, v),
    };
    const first = inVm({}, { localStorage });
    await first.window.openai.setWidgetState({ clicks: 2 });
    expect(saved.get('openai-widget-state:vm-1')).toBe('{"clicks":2}');
    expect(inVm({}, { localStorage }).window.openai.widgetState).toEqual({ clicks: 2 });
    const fromHost = inVm(
      { globals: { ...pageData().globals, widgetState: { clicks: 9 } } },
      { localStorage },
    );
    expect(fromHost.window.openai.widgetState).toEqual({ clicks: 9 });
  });

  it('sets displayMode on requestDisplayMode, inline by default, and refuses unknown modes', async () => {
    const { window, posted } = inVm();
    await expect(window.openai.requestDisplayMode({ mode: 'modal' })).resolves.toEqual({ mode: 'modal' });
    expect(window.openai.displayMode).toBe('modal');
    await window.openai.requestDisplayMode({ mode: 'sidebar' });
    await window.openai.requestDisplayMode();
    expect(window.openai.displayMode).toBe('inline');
    await expect(window.openai.requestDisplayMode({ mode: 'everywhere' })).rejects.toThrow(
      'mode must be one of',
    );
    expect(posted.map((p) => p.message.mode)).toEqual(['modal', 'sidebar', 'inline']);
  });

  it('carries neither a token nor an address', () => {
    const script = bridgeScript(pageData());
    expect(script).not.toMatch(/token|https?:\/\//i);
  });
});

describe('injecting into a widget page', () => {
  it('goes right after a leading doctype, in any case and after leading white space', () => {
    expect(injectAtStart('<!DOCTYPE html><html lang="en"><head><title>t</title>', 'S')).toBe(
      '<!DOCTYPE html>S<html lang="en"><head><title>t</title>',
    );
    expect(injectAtStart('\uFEFF\n <!doctype html>\n<p>x</p>', 'S')).toBe(
      '\uFEFF\n <!doctype html>S\n<p>x</p>',
    );
  });

  it('goes first when the page starts with anything but a doctype', () => {
    expect(injectAtStart('<p>x</p>', 'S')).toBe('S<p>x</p>');
    expect(injectAtStart('<html><head><title>t</title></head>', 'S')).toBe(
      'S<html><head><title>t</title></head>',
    );
    expect(injectAtStart('<!-- c --><!doctype html><p>x</p>', 'S')).toBe(
      'S<!-- c --><!doctype html><p>x</p>',
    );
  });

  it('comes before a script ahead of <head> and before a <head> inside a comment', () => {
    const page = '<!doctype html><html><!-- <head> --><script>early()</script><head></head>';
    const injected = injectAtStart(page, 'S');
    expect(injected.indexOf('S')).toBeLessThan(injected.indexOf('<!-- <head>'));
    expect(injected.indexOf('S')).toBeLessThan(injected.indexOf('<script>'));
  });
});

describe('widget policy', () => {
  it('allows a widget that declares nothing inline content and data: or blob: media, and no host at all', () => {
    expect(widgetCspDirectives(undefined)).toEqual([
      "default-src 'none'",
      "script-src 'unsafe-inline' 'unsafe-eval'",
      "style-src 'unsafe-inline'",
      'img-src data: blob:',
      'font-src data:',
      'media-src data: blob:',
      "connect-src 'none'",
      "frame-src 'none'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
    ]);
    expect(widgetCspDirectives({})).toEqual(WIDGET_CSP_DIRECTIVES);
  });

  it('takes plain host sources from a declaration and drops keywords, wildcards, schemes and directives', () => {
    const policy = directives(
      widgetCspDirectives({
        connect_domains: [
          'https://api.example.com',
          '*',
          'https:',
          "'self'",
          'https://a.example.com; script-src *',
        ],
        resource_domains: ["'unsafe-hashes'", 'data:', 'https://cdn.example.com'],
        frame_domains: 'https://player.example.com' as unknown as string[],
      }).join('; '),
    );
    expect(policy.get('connect-src')).toBe('https://api.example.com');
    expect(policy.get('media-src')).toBe('data: blob: https://cdn.example.com');
    expect(policy.get('frame-src')).toBe("'none'");
    expect([...policy.keys()]).toEqual(WIDGET_CSP_DIRECTIVES.map((directive) => directive.split(' ')[0]));
  });

  it('knows a declared source that could reach the daemon from one that cannot', () => {
    const daemon: DaemonAddress = { port: 6274, hostname: '127.0.0.1' };
    for (const source of [
      'http://127.0.0.1:6274',
      'http://127.0.0.1:*',
      'ws://localhost:6274',
      'localhost:*',
      'http://127.9.9.9:6274',
      'http://0.0.0.0:6274',
      'http://app.localhost:*',
      'https://*.localhost:*',
      'http://*.0.0.1:*',
      // Other spellings of loopback addresses, as a browser reads them.
      '0x7f000001:6274',
      '127.1:6274',
      'http://2130706433:6274',
      'http://0:6274',
    ]) {
      expect(namesDaemon(source, daemon), source).toBe(true);
    }
    for (const source of [
      'http://localhost:5173',
      'http://127.0.0.1',
      'https://api.example.com',
      'https://*.example.com:*',
      'localhost',
    ]) {
      expect(namesDaemon(source, daemon), source).toBe(false);
    }
    const named: DaemonAddress = { port: 80, hostname: 'inspector.internal' };
    expect(namesDaemon('http://inspector.internal', named)).toBe(true);
    expect(namesDaemon('*.internal', named)).toBe(true);
    expect(namesDaemon('https://other.internal:8443', named)).toBe(false);
  });
});
