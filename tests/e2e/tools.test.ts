import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdio, type TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

const SHOTS = '/tmp/shots-tools';

// Tool titles and annotation hints, results with resource links and images, and a link followed to the
// Resources view, in the panel page with server-everything. Each test goes on where the one before it
// stopped, as a user would.
describe('tool titles, hints and rich results in the panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let panel: PanelPage;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    await panel.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await panel.servers.connect('everything');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it("shows each tool's title with its name, and its annotation hints as explained badges", async () => {
    await panel.tools.select('get-resource-links');
    expect(await panel.tools.displayTitle()).toBe('Get Resource Links Tool');
    const listed = await panel.tools.listedName('get-resource-links');
    expect(listed).toContain('Get Resource Links Tool');
    expect(listed).toContain('get-resource-links');
    expect(await panel.tools.hintBadges()).toEqual(['read-only', 'closed world']);
    expect(await panel.tools.hintTitle('readOnly')).toContain('does not change its environment');
    // The explanations open from the badges, by keyboard too.
    await panel.tools.openHintsByKeyboard('nothing checks or enforces them');
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/tools-badges.png` });
  });

  it('keeps the keyboard on Run while the call runs and after it ends', async () => {
    await panel.page.focus('[data-testid="tool-run"]');
    await panel.page.keyboard.press('Enter');
    await panel.tools.resultWith('resource links');
    // A button disabled while focused hands the focus to the page: the next Enter would do nothing.
    expect(await panel.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'tool-run',
    );
  });

  it('gives the keyboard back to Run once a call it cancelled has ended', async () => {
    const { page } = panel;
    await panel.tools.select('trigger-long-running-operation');
    await panel.tools.fill('duration', '30');
    await page.focus('[data-testid="tool-run"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid="run-cancel"]');
    await page.focus('[data-testid="run-cancel"]');
    await page.keyboard.press('Enter');
    await waitForText(page, '[data-testid="run-status"]', 'Cancelled');
    // The Cancel pressed went with the call: the keyboard is on Run again, not on the page.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tool-run');
    await panel.tools.select('get-resource-links');
  });

  it('holds Run back while a number box holds what is no number, and says which', async () => {
    const { page } = panel;
    await panel.tools.select('trigger-long-running-operation');
    await page.locator('[data-testid="field-duration"]').fill('');
    await page.locator('[data-testid="field-duration"]').click();
    await page.keyboard.type('e');
    expect(await waitForText(page, '[data-testid="error-duration"]', 'Must')).toBe('Must be a number');
    await page.locator('[data-testid="tool-run"]').click();
    expect(await waitForText(page, '[data-testid="tool-unreadable"]', 'no number')).toBe(
      'What is typed in field “duration” is no number: fix it first.',
    );
    // Nothing went: Run took the keyboard to the box instead.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'field-duration',
    );
    await page.bringToFront();
    await page.screenshot({ path: `${SHOTS}/tools-not-a-number.png` });
    const status = () =>
      page.$eval('[data-testid="run-status"]', (el) => el.textContent ?? '').catch(() => '');
    expect(await status()).not.toContain('Running');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('1');
    await page.waitForSelector('[data-testid="tool-unreadable"]', { hidden: true });
    await panel.tools.select('get-resource-links');
  });

  it('shows resource links as links to the Resources view', async () => {
    await panel.tools.run();
    await panel.tools.resultWith('resource links');
    expect(await panel.tools.resourceLinks()).toEqual([
      { tag: 'BUTTON', uri: 'demo://resource/dynamic/blob/1' },
      { tag: 'BUTTON', uri: 'demo://resource/dynamic/text/2' },
      { tag: 'BUTTON', uri: 'demo://resource/dynamic/blob/3' },
    ]);
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/result-resource-links.png` });
  });

  it('opens a clicked resource link in the Resources view and reads it', async () => {
    await panel.tools.openResourceLink(1);
    await panel.waitForTab('resources');
    await panel.resources.waitForTitle('demo://resource/dynamic/text/2');
    await panel.resources.content('resource-text', 'Resource 2');
    expect(await panel.resources.uriInput()).toBe('demo://resource/dynamic/text/2');
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/resource-from-link.png` });
  });

  it('shows an image result decoded by the browser', async () => {
    await panel.openTab('tools');
    await panel.tools.select('get-tiny-image');
    await panel.tools.run();
    await panel.tools.result();
    const image = await panel.tools.image();
    expect(await image.evaluate((img) => img.naturalWidth)).toBeGreaterThan(0);
    expect(await image.evaluate((img) => img.getAttribute('src')?.startsWith('data:image/png;base64,'))).toBe(
      true,
    );
  });

  it('shows where the blocks "Show N more" adds begin: the first has the focus ring, after a click too', async () => {
    const added = await daemon!.api('PUT', '/api/mcp/servers/output', {
      config: fixtureStdio('output-server.ts'),
    });
    expect(added.status).toBe(201);
    await panel.servers.waitFor('output');
    await panel.servers.connect('output');
    await panel.tools.select('many-blocks');
    await panel.tools.fill('count', '150');
    await panel.tools.run();
    await panel.tools.result();
    await panel.page.locator(byTestId('result-show-more')).click();
    await panel.page.waitForFunction(() => document.activeElement?.textContent?.includes('block 101'));
    const focused = await panel.page.evaluate(() => document.activeElement!.matches(':focus-visible'));
    expect(focused).toBe(true);
  });
});
