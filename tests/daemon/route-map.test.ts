/** The typed route map the front end calls the daemon by (shared/routes.ts) against the real daemon. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_NAMES, routeRequest } from '../../shared/routes.ts';
import { startDaemon, type TestDaemon } from './helpers.ts';

let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon();
});
afterAll(() => d?.close());

describe('the route map', () => {
  it('fills path parameters percent-encoded and splits the method', () => {
    expect(routeRequest('PUT /servers/:id/roots', { id: 'a b/c' })).toEqual({
      method: 'PUT',
      path: '/servers/a%20b%2Fc/roots',
    });
    expect(routeRequest('GET /tools/active', {})).toEqual({ method: 'GET', path: '/tools/active' });
  });

  it('names only routes the daemon has', async () => {
    for (const route of ROUTE_NAMES) {
      const { method, path } = routeRequest(route, { id: 'nobody', seq: '0' } as never);
      const response = await d.api(
        method,
        `/api/mcp${path}`,
        method === 'GET' || method === 'DELETE' ? undefined : {},
      );
      // An unknown server, a bad body or a missing execution: but never an unknown route.
      expect(`${route} → ${response.status} ${JSON.stringify(response.body)}`).not.toMatch(/No API route/);
      expect(response.status, route).toBeLessThan(500);
    }
  });

  it('finds every route whatever the letter case of its path, as express routes match', async () => {
    for (const route of ROUTE_NAMES) {
      const { method, path } = routeRequest(route, { id: 'nobody', seq: '0' } as never);
      const shouted = `/API/MCP${path.toUpperCase()}`;
      const response = await d.api(method, shouted, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(`${route} → ${response.status} ${JSON.stringify(response.body)}`).not.toMatch(/No API route/);
    }
  });
});
