/**
 * Signing in to an OAuth-protected server from the panel, in Chromium, against real parts: the daemon,
 * `oidc-provider` as the authorization server on loopback and a fixture MCP server protected with the
 * SDK's bearer auth. The sign-in page opens in a real tab, which ends on the daemon's callback page.
 */
import type { Page } from 'puppeteer';
import { beforeAll, describe, expect, it } from 'vitest';
import { RESOURCE_SCOPE } from '../fixtures/authorization-server.ts';
import { stepKinds, useOAuthParts } from './support/oauth-parts.ts';
import { byTestId } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

describe('signing in to an OAuth server from the panel, with the auth debugger', USER_FLOW, () => {
  const parts = useOAuthParts();
  let panel: PanelPage;

  beforeAll(async () => {
    const put = await parts.daemon.api('PUT', '/api/mcp/servers/protected', {
      name: 'protected',
      config: { transport: 'http', url: parts.mcp.url, auth: {} },
    });
    expect(put.status).toBe(201);
  });

  it('shows each step up to the sign-in page, which a tab passes, and the server connects', async () => {
    panel = await PanelPage.openPaired(
      parts.ext.browser,
      parts.ext.pageUrl('devtools-panel.html'),
      parts.daemon,
    );
    expect(await panel.waitForLive()).toBe('live');
    // Selecting the server lists its tools, which connects: the server answers 401.
    await panel.servers.select('protected');
    await panel.page.waitForSelector(byTestId('server-failure-auth'));
    await panel.page.locator(byTestId('server-failure-auth')).click();
    await panel.waitForTab('auth');
    const asked = await panel.auth.waitForStep('authorization', 'ok');
    expect(stepKinds(asked)).toEqual(
      expect.arrayContaining(['challenge', 'resource-metadata', 'server-metadata', 'registration']),
    );
    const challenge = asked.find((step) => step.kind === 'challenge');
    expect(challenge?.text).toContain('401');
    const signIn = await panel.auth.signInUrl();
    expect(signIn.startsWith(`${parts.as.issuer}/`)).toBe(true);
    await panel.screenshot('auth-debugger-sign-in');

    const opened = new Promise<Page>((resolve) => {
      parts.ext.browser.on('targetcreated', async (target) => {
        const page = target.type() === 'page' ? await target.page() : null;
        if (page) resolve(page);
      });
    });
    await panel.auth.openSignInPage();
    const tab = await opened;
    const outcome = await tab.waitForSelector('h1[data-outcome]', { timeout: 30_000 });
    expect(tab.url().startsWith(`${parts.daemon.url}/oauth/callback?`)).toBe(true);
    expect(await outcome!.evaluate((el) => el.textContent)).toBe('Signed in to protected');
    await tab.close();

    await panel.page.bringToFront();
    const done = await panel.auth.waitForStep('outcome', 'ok');
    expect(stepKinds(done)).toEqual(expect.arrayContaining(['callback', 'token']));
    const token = done.find((step) => step.kind === 'token');
    expect(token?.outcome).toBe('ok');
    await panel.page.waitForFunction(
      (sel: string) => document.querySelector(sel)?.textContent?.startsWith('Authorized'),
      {},
      byTestId('auth-state'),
    );
    expect(await panel.auth.state()).toContain(RESOURCE_SCOPE);
    await panel.servers.waitForStatus('protected', 'connected');
    await panel.screenshot('auth-debugger-signed-in');
  });

  it('steps through a sign-in: each request waits for Next and shows what will be sent', async () => {
    await panel.page.locator(byTestId('auth-clear')).click();
    await panel.page.waitForSelector(byTestId('auth-empty'));
    await panel.auth.stepThrough();
    const held = await panel.auth.held();
    expect(held).toContain('Held: this request is sent when you press Next.');
    expect(held).toContain('/.well-known/oauth-protected-resource');
    await panel.screenshot('auth-debugger-guided');
    let presses = 0;
    while (presses < 20) {
      const steps = await panel.auth.steps();
      if (steps.some((step) => step.kind === 'authorization')) break;
      if (await panel.auth.hasNext()) {
        await panel.auth.next();
        presses++;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const steps = await panel.auth.steps();
    expect(stepKinds(steps)).toContain('authorization');
    // Discovery of the protected resource and of its authorization server, each held once (the client
    // registered at the first sign-in, so no registration this time).
    expect(presses).toBeGreaterThanOrEqual(2);
    expect(stepKinds(steps)).not.toContain('registration');
    expect(steps.filter((step) => step.outcome === 'waiting')).toEqual([]);
  });
});
