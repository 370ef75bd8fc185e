/**
 * The server editor's OAuth section, in Chromium, against real parts: the daemon, `oidc-provider` as the
 * authorization server on loopback with a pre-registered machine client, and a fixture MCP server that
 * takes only its tokens. A user types the client in, saves, and the server connects with no sign-in page;
 * editing it again shows the secret masked, and saving that keeps the stored secret.
 */
import { describe, expect, it } from 'vitest';
import { MACHINE_CLIENT, RESOURCE_SCOPE } from '../fixtures/authorization-server.ts';
import { stepKinds, useOAuthParts } from './support/oauth-parts.ts';
import { byTestId } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

describe('OAuth settings typed into the server editor', USER_FLOW, () => {
  const parts = useOAuthParts();
  let panel: PanelPage;

  const field = (name: string) => panel.page.locator(byTestId(`editor-oauth-${name}`));
  const valueOf = (name: string) =>
    panel.page.$eval(byTestId(`editor-oauth-${name}`), (el) => ({
      value: (el as HTMLInputElement).value,
      type: el.getAttribute('type'),
    }));
  const problems = () =>
    panel.page.$$eval(`${byTestId('editor-problems')} li`, (items) => items.map((li) => li.textContent));

  it('connects a server with a pre-registered client by client credentials, no sign-in page', async () => {
    panel = await PanelPage.openPaired(
      parts.ext.browser,
      parts.ext.pageUrl('devtools-panel.html'),
      parts.daemon,
    );
    expect(await panel.waitForLive()).toBe('live');
    await panel.page.locator(byTestId('server-add')).click();
    await panel.page.locator(byTestId('editor-mode-http')).click();
    await panel.page.locator(byTestId('editor-id')).fill('machine');
    await panel.page.locator(byTestId('editor-url')).fill(parts.mcp.url);
    // Off, the section shows only its switch; on, the grant's fields.
    expect(await panel.page.$(byTestId('editor-oauth-grant'))).toBeNull();
    await field('enabled').click();
    // The grant with the most settings, for a look at the section at its tallest.
    await panel.page.select(byTestId('editor-oauth-grant'), 'token_exchange');
    await field('privateKey').fill('-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----');
    await panel.page.$eval(byTestId('editor-save'), (el) => el.scrollIntoView({ block: 'end' }));
    await panel.screenshot('server-editor-oauth-token-exchange');
    // Cleared as a person does: all of it selected, then deleted.
    await field('privateKey').click();
    await panel.page.keyboard.down('Control');
    await panel.page.keyboard.press('KeyA');
    await panel.page.keyboard.up('Control');
    await panel.page.keyboard.press('Backspace');
    await panel.page.select(byTestId('editor-oauth-grant'), 'client_credentials');
    expect(await panel.page.$(byTestId('editor-oauth-clientMetadataUrl'))).toBeNull();
    // What the grant lacks is said before anything is sent.
    await panel.page.locator(byTestId('editor-save')).click();
    await panel.page.waitForSelector(byTestId('editor-problems'));
    expect(await problems()).toEqual([
      'Client id is required for client_credentials',
      'Client secret is required for client_credentials (or Private key for private_key_jwt)',
    ]);
    await field('clientId').fill(MACHINE_CLIENT.clientId);
    await field('clientSecret').fill(MACHINE_CLIENT.clientSecret);
    await field('scopes').fill(RESOURCE_SCOPE);
    expect(await valueOf('clientSecret')).toEqual({ value: MACHINE_CLIENT.clientSecret, type: 'password' });
    await panel.page.$eval(byTestId('editor-save'), (el) => el.scrollIntoView({ block: 'end' }));
    await panel.screenshot('server-editor-oauth');
    await panel.page.locator(byTestId('editor-save')).click();
    await panel.page.waitForSelector(byTestId('server-editor'), { hidden: true });

    const stored = await parts.daemon.api('GET', '/api/mcp/servers/machine');
    expect(stored.body.config.auth).toEqual({
      grant: 'client_credentials',
      clientId: MACHINE_CLIENT.clientId,
      clientSecret: '********',
      scopes: [RESOURCE_SCOPE],
    });
    const interactions = parts.as.interactions;
    await panel.servers.connect('machine');
    await panel.openTab('auth');
    const steps = await panel.auth.waitForStep('client-credentials', 'ok');
    expect(stepKinds(steps)).toEqual(
      expect.arrayContaining(['challenge', 'resource-metadata', 'server-metadata']),
    );
    expect(stepKinds(steps)).not.toContain('authorization');
    expect(await panel.auth.state()).toContain(RESOURCE_SCOPE);
    expect(parts.as.interactions).toBe(interactions);
    await panel.screenshot('server-editor-oauth-connected');
  });

  it('shows the stored secret masked on editing, and saving it untouched keeps the secret', async () => {
    await panel.page.locator(`${byTestId('server-machine')} ${byTestId('server-edit')}`).click();
    await panel.page.waitForSelector(byTestId('editor-oauth-grant'));
    expect(
      await panel.page.$eval(byTestId('editor-oauth-grant'), (el) => (el as HTMLSelectElement).value),
    ).toBe('client_credentials');
    expect(await valueOf('clientId')).toEqual({ value: MACHINE_CLIENT.clientId, type: null });
    expect(await valueOf('clientSecret')).toEqual({ value: '********', type: 'password' });
    expect(await valueOf('scopes')).toMatchObject({ value: RESOURCE_SCOPE });
    await panel.page.waitForSelector(byTestId('editor-oauth-masked'));
    await panel.screenshot('server-editor-oauth-masked', { theme: 'dark' });
    // Another client would not get the stored secret: the editor says so before saving.
    await field('clientId').fill('someone-else');
    await panel.page.locator(byTestId('editor-save')).click();
    await panel.page.waitForSelector(byTestId('editor-problems'));
    expect(await problems()).toEqual([
      'Client secret: type it again: the stored one is kept only with the same server address and client id',
    ]);
    await field('clientId').fill(MACHINE_CLIENT.clientId);
    await panel.page.locator(byTestId('editor-save')).click();
    await panel.page.waitForSelector(byTestId('server-editor'), { hidden: true });

    // A fresh token needs the real secret: the daemon kept it.
    await panel.openTab('auth');
    await panel.page.locator(byTestId('auth-clear')).click();
    await panel.page.waitForSelector(byTestId('auth-empty'));
    await panel.page.locator(byTestId('auth-quick')).click();
    const steps = await panel.auth.waitForStep('client-credentials', 'ok');
    expect(steps.filter((step) => step.outcome === 'failed')).toEqual([]);
    await panel.auth.waitForStep('outcome', 'ok');
    // The outcome is noted before the server reconnects: its status goes by disconnected and connecting.
    await panel.servers.waitForStatus('machine', 'connected');
  });
});
