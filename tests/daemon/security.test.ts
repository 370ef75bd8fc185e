import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createDaemon, StartupError } from '../../daemon/app.ts';
import { defaultOptions } from '../../daemon/options.ts';
import { allowedHostSet, hostCheck } from '../../daemon/security/host-check-middleware.ts';
import { AuthFailureLimiter } from '../../daemon/security/auth-failure-limiter.ts';
import { rawRequest, startDaemon, type TestDaemon } from './helpers.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request through node:http, which (unlike fetch) lets a test set Host and Origin freely. */
async function raw(
  d: TestDaemon,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const { status, headers, text } = await rawRequest(new URL(path, d.url), options);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status, headers, body };
}

async function daemon(overrides: Parameters<typeof startDaemon>[0] = {}): Promise<TestDaemon> {
  const d = await startDaemon(overrides);
  onTestFinished(() => d.close());
  return d;
}

const portOf = (d: TestDaemon): string => new URL(d.url).port;
const EXTENSION = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

describe('token', () => {
  const protectedRoutes: Array<[string, string]> = [
    ['GET', '/api/mcp/servers/'],
    ['POST', '/api/mcp/tools/list'],
    ['GET', '/api/mcp/rpc-logs'],
    ['GET', '/api/mcp/no-such-route'],
    ['PUT', '/api/mcp/servers/x'],
    // Not a cross-origin preflight (no Origin): it tells nothing of a route, such as its methods.
    ['OPTIONS', '/api/mcp/servers/'],
    ['OPTIONS', '/api/mcp/tools/execute'],
  ];

  it.each(protectedRoutes)('answers 401 Unauthorized to %s %s without a token', async (method, path) => {
    const d = await daemon();
    const response = await raw(d, path, { method });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'Unauthorized', code: 'unauthorized' });
  });

  it.each(protectedRoutes)('answers 401 Unauthorized to %s %s with a wrong token', async (method, path) => {
    const d = await daemon();
    const wrongHeader = await raw(d, path, { method, headers: { 'X-Inspector-Token': `${d.token}x` } });
    expect(wrongHeader.status).toBe(401);
    expect(wrongHeader.body).toEqual({ error: 'Unauthorized', code: 'unauthorized' });
    const wrongQuery = await raw(d, `${path}?token=nope`, { method });
    expect(wrongQuery.status).toBe(401);
  });

  it('lets health answer without a token', async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/health');
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('ok');
  });

  it('accepts the token in the X-Inspector-Token header', async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/servers/', { headers: { 'X-Inspector-Token': d.token } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ servers: [] });
  });

  const API_ROUTE = [401, /X-Inspector-Token header; \?token= is accepted only by/] as const;
  // A widget page answers 400 before the token is even compared: widget code could read its address.
  const WIDGET_PAGE = [
    400,
    /^token: widget pages take the token in the X-Inspector-Token header only/,
  ] as const;
  it.each([
    ['GET', '/api/mcp/servers/', ...API_ROUTE],
    ['POST', '/api/mcp/tools/list', ...API_ROUTE],
    ['GET', '/api/mcp/resources/widget/some-widget', ...WIDGET_PAGE],
    ['GET', '/api/mcp/openai/widget-content/some-widget', ...WIDGET_PAGE],
    ['GET', '/api/mcp/openai/widget/some-widget', ...WIDGET_PAGE],
  ])(
    'refuses the token as ?token= on %s %s, saying where it goes instead',
    async (method, path, status, error) => {
      const d = await daemon();
      const response = await raw(d, `${path}?token=${d.token}`, { method });
      expect(response.status).toBe(status);
      expect(response.body.error).toMatch(error);
    },
  );

  it('accepts the token as ?token= on the log stream', async () => {
    const d = await daemon();
    const controller = new AbortController();
    onTestFinished(() => controller.abort());
    const response = await fetch(`${d.url}/api/mcp/rpc-logs?token=${d.token}`, { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });

  it('needs no token when auth is off on loopback, from the daemon page or an extension', async () => {
    const d = await daemon({ token: null });
    expect(d.daemon.token).toBeNull();
    const own = await raw(d, '/api/mcp/servers/', { headers: { Origin: `http://127.0.0.1:${portOf(d)}` } });
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ servers: [] });
    const extension = await raw(d, '/api/mcp/servers/', { headers: { Origin: EXTENSION } });
    expect(extension.status).toBe(200);
    // The web page's own GETs carry no Origin, but browsers mark them same-origin.
    const samePage = await raw(d, '/api/mcp/servers/', { headers: { 'Sec-Fetch-Site': 'same-origin' } });
    expect(samePage.status).toBe(200);
  });

  it('refuses API requests without Origin when auth is off, and says what to send', async () => {
    const d = await daemon({ token: null });
    for (const [method, path] of [
      ['GET', '/api/mcp/servers/'],
      ['PUT', '/api/mcp/servers/x'],
      ['GET', '/api/mcp/rpc-logs'],
    ] as const) {
      const response = await raw(d, path, { method });
      expect(response.status).toBe(403);
      expect(response.body.error).toMatch(/no Origin header.*--no-auth/);
    }
    const crossSite = await raw(d, '/api/mcp/servers/', { headers: { 'Sec-Fetch-Site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    // Health needs no credential at all, so it needs no Origin either.
    expect((await raw(d, '/api/mcp/health')).status).toBe(200);
  });

  it('refuses to start without auth on a non-loopback address', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'inspector-test-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const starting = createDaemon(
      defaultOptions({ port: 0, host: '0.0.0.0', token: null, dataDir, log: () => {} }),
    );
    await expect(starting).rejects.toBeInstanceOf(StartupError);
    await expect(starting).rejects.toThrow(/--no-auth is refused/);
  });

  it('creates a 256-bit token file with mode 0600 and reuses it on the next start', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'inspector-test-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const first = await daemon({ token: undefined, dataDir });
    expect(first.token).toMatch(/^[0-9a-f]{64}$/);
    const file = join(dataDir, 'token');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(first.token);
    await first.close();

    const second = await daemon({ token: undefined, dataDir });
    expect(second.token).toBe(first.token);
    expect((await second.api('GET', '/api/mcp/servers/')).status).toBe(200);
  });
});

describe('Host header check', () => {
  it('answers 403 to a rebinding Host even with a valid token', async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/servers/', {
      headers: { Host: 'evil.example', 'X-Inspector-Token': d.token },
    });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatch(/Host/);
  });

  it('answers 403 to a rebinding Host on health too', async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/health', { headers: { Host: `evil.example:${portOf(d)}` } });
    expect(response.status).toBe(403);
    expect(typeof response.body.error).toBe('string');
  });

  it.each(['localhost', '127.0.0.1', '[::1]'])('lets the loopback name %s through', async (name) => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/servers/', {
      headers: { Host: `${name}:${portOf(d)}`, 'X-Inspector-Token': d.token },
    });
    expect(response.status).toBe(200);
  });

  it.each([
    '127.0.0.1.evil.example',
    '127.evil.example',
    '127.0.0.1.nip.io',
    'localhost.evil.example',
    'sub.localhost',
    '0.0.0.0',
    'a@127.0.0.1',
    '127.0.0.1:99999',
    '[::2]',
  ])('answers 403 to the Host %s, which is no loopback address', async (host) => {
    const d = await daemon();
    for (const path of ['/api/mcp/servers/', '/api/mcp/rpc-logs', '/api/mcp/health']) {
      const response = await raw(d, path, { headers: { Host: host, 'X-Inspector-Token': d.token } });
      expect(response.status).toBe(403);
      expect(response.body.error).toMatch(/^Forbidden Host header/);
    }
  });

  it('names the flag that allows a host in its 403', async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/servers/', {
      headers: { Host: `Inspector.Example:${portOf(d)}`, 'X-Inspector-Token': d.token },
    });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatch(/start it with --allowed-host inspector\.example$/);
  });

  it.each(['127.0.0.2', '127.1', '0x7f.0.0.1', '[0:0:0:0:0:0:0:1]', '[::ffff:127.0.0.1]', 'LOCALHOST'])(
    'lets the loopback literal %s through however it is written',
    async (host) => {
      const d = await daemon();
      const response = await raw(d, '/api/mcp/servers/', {
        headers: { Host: `${host}:${portOf(d)}`, 'X-Inspector-Token': d.token },
      });
      expect(response.status).toBe(200);
    },
  );

  it('does not take a rebinding Host as the origin of its own page, with auth off', async () => {
    const d = await daemon({ token: null });
    const host = `127.0.0.1.evil.example:${portOf(d)}`;
    const response = await raw(d, '/api/mcp/servers/', { headers: { Host: host, Origin: `http://${host}` } });
    expect(response.status).toBe(403);
  });

  it('gives the same answer for a Host header it remembers, past the number of headers it keeps', () => {
    const allowed = hostCheck(allowedHostSet(['inspector.internal']));
    for (let i = 0; i < 200; i++) {
      expect(allowed(`127.0.0.${i % 250}:6274`)).toBe(true);
      expect(allowed(`127.0.0.${i % 250}.evil.example`)).toBe(false);
    }
    expect(allowed('127.0.0.1.evil.example')).toBe(false);
    expect(allowed('Inspector.Internal:80')).toBe(true);
    expect(allowed('inspector.internal.evil.example')).toBe(false);
    expect(allowed(undefined)).toBe(false);
  });

  it('lets a host given in allowedHosts through', async () => {
    const d = await daemon({ allowedHosts: ['inspector.internal'] });
    const allowed = await raw(d, '/api/mcp/servers/', {
      headers: { Host: `inspector.internal:${portOf(d)}`, 'X-Inspector-Token': d.token },
    });
    expect(allowed.status).toBe(200);
    const other = await raw(d, '/api/mcp/servers/', {
      headers: { Host: `other.internal:${portOf(d)}`, 'X-Inspector-Token': d.token },
    });
    expect(other.status).toBe(403);
  });
});

describe('Origin check', () => {
  it('answers 403 to a foreign web origin before any handler runs', async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/servers/', {
      headers: { Origin: 'https://evil.example', 'X-Inspector-Token': d.token },
    });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatch(/Origin/);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers 403 to a foreign web origin on health too', async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/health', { headers: { Origin: 'https://evil.example' } });
    expect(response.status).toBe(403);
  });

  it('answers 403 to the opaque origin of a sandboxed frame', async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/servers/', {
      headers: { Origin: 'null', 'X-Inspector-Token': d.token },
    });
    expect(response.status).toBe(403);
  });

  it.each([EXTENSION, 'moz-extension://0a1b2c3d-4e5f-6789-abcd-ef0123456789'])(
    'lets the extension origin %s through with CORS headers',
    async (origin) => {
      const d = await daemon();
      const response = await raw(d, '/api/mcp/servers/', {
        headers: { Origin: origin, 'X-Inspector-Token': d.token },
      });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(origin);
    },
  );

  it('still wants the token from an extension origin', async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/servers/', { headers: { Origin: EXTENSION } });
    expect(response.status).toBe(401);
  });

  it('answers an extension preflight with 204 and the token header allowed, without a token', async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/tools/execute', {
      method: 'OPTIONS',
      headers: {
        Origin: EXTENSION,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-inspector-token',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(EXTENSION);
    expect(String(response.headers['access-control-allow-headers']).toLowerCase()).toContain(
      'x-inspector-token',
    );
  });

  it('refuses the dev server origin in production', async () => {
    const d = await daemon({ mode: 'production' });
    const response = await raw(d, '/api/mcp/servers/', {
      headers: { Origin: 'http://localhost:5173', 'X-Inspector-Token': d.token },
    });
    expect(response.status).toBe(403);
  });

  it('lets the dev server origin through in development', async () => {
    const d = await daemon({ mode: 'development' });
    const response = await raw(d, '/api/mcp/servers/', {
      headers: { Origin: 'http://localhost:5173', 'X-Inspector-Token': d.token },
    });
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('lets the dev server devServerUrl names through in development only', async () => {
    const devServer = 'http://localhost:5999';
    const dev = await daemon({ mode: 'development', devServerUrl: `${devServer}/` });
    const asked = (d: TestDaemon, origin: string) =>
      raw(d, '/api/mcp/servers/', { headers: { Origin: origin, 'X-Inspector-Token': d.token } });
    const allowed = await asked(dev, devServer);
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(devServer);
    expect((await asked(dev, 'http://localhost:5998')).status).toBe(403);
    expect((await asked(dev, 'http://localhost:5173')).status).toBe(200);

    const production = await daemon({ mode: 'production', devServerUrl: `${devServer}/` });
    expect((await asked(production, devServer)).status).toBe(403);
  });

  it("lets the daemon's own origin through", async () => {
    const d = await daemon();
    const response = await raw(d, '/api/mcp/servers/', {
      headers: { Origin: d.url, 'X-Inspector-Token': d.token },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ servers: [] });
  });
});

describe('failed authentication', () => {
  it('answers 429 with Retry-After once a client has failed the token too often, even with the right token', async () => {
    const d = await daemon({ authFailuresPerMinute: 5 });
    for (let i = 0; i < 5; i++) {
      expect(
        (await raw(d, '/api/mcp/servers/', { headers: { 'X-Inspector-Token': `guess-${i}` } })).status,
      ).toBe(401);
    }
    const blocked = await raw(d, '/api/mcp/servers/', { headers: { 'X-Inspector-Token': d.token } });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body.error).toMatch(/Too many failed attempts/);
  });

  it('keeps serving another client (another Origin) while one is blocked', async () => {
    const d = await daemon({ authFailuresPerMinute: 2 });
    for (let i = 0; i < 3; i++)
      await raw(d, '/api/mcp/servers/', { headers: { 'X-Inspector-Token': 'guess' } });
    const extension = await raw(d, '/api/mcp/servers/', {
      headers: { Origin: EXTENSION, 'X-Inspector-Token': d.token },
    });
    expect(extension.status).toBe(200);
  });

  it("keeps a web page's token-less requests (no Origin) apart from a program's", async () => {
    const d = await daemon({ authFailuresPerMinute: 2 });
    // An image or a frame of another site: a browser sends Sec-Fetch-Site, and no Origin on a GET.
    const fromPage = { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' };
    for (let i = 0; i < 3; i++) await raw(d, '/api/mcp/servers/', { headers: fromPage });
    const page = await raw(d, '/api/mcp/servers/', {
      headers: { ...fromPage, 'X-Inspector-Token': d.token },
    });
    expect(page.status).toBe(429);
    const program = await raw(d, '/api/mcp/servers/', { headers: { 'X-Inspector-Token': d.token } });
    expect(program.status).toBe(200);
    // The daemon's own page (same-origin GETs carry no Origin either) is not held up by the other site.
    const ownPage = await raw(d, '/api/mcp/servers/', {
      headers: { 'Sec-Fetch-Site': 'same-origin', 'X-Inspector-Token': d.token },
    });
    expect(ownPage.status).toBe(200);
  });

  it('counts the Origins a program makes up, alike but for their end, as one client', async () => {
    const d = await daemon({ authFailuresPerMinute: 2 });
    // Long extension Origins that differ only after their first 300 characters.
    const origin = (i: number) => `chrome-extension://${'a'.repeat(400)}${i}`;
    for (let i = 0; i < 2; i++) {
      const guess = await raw(d, '/api/mcp/servers/', {
        headers: { Origin: origin(i), 'X-Inspector-Token': 'guess' },
      });
      expect(guess.status).toBe(401);
    }
    const third = await raw(d, '/api/mcp/servers/', {
      headers: { Origin: origin(2), 'X-Inspector-Token': d.token },
    });
    expect(third.status).toBe(429);
  });

  it('forgets ended windows when a new one opens, and keeps at most maxClients', () => {
    const limiter = new AuthFailureLimiter({ limit: 1, windowMs: 1000, maxClients: 3 });
    for (const key of ['a', 'b', 'c']) limiter.fail(key, 0);
    expect(limiter.blockedFor('a', 10)).toBe(1);
    limiter.fail('d', 10);
    // Past the cap the oldest window goes.
    expect(limiter.blockedFor('a', 10)).toBeUndefined();
    expect(limiter.blockedFor('b', 10)).toBe(1);
    // A failure after the first three ended sweeps them: only d and e are tracked.
    limiter.fail('e', 1005);
    expect(limiter.tracking).toBe(true);
    expect(limiter.trackedClients).toBe(2);
    expect(limiter.blockedFor('d', 1005)).toBe(1);
  });

  it('never counts good requests', async () => {
    const d = await daemon({ authFailuresPerMinute: 2 });
    for (let i = 0; i < 50; i++) expect((await d.api('GET', '/api/mcp/servers/')).status).toBe(200);
  });
});
