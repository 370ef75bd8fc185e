import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension } from './support/daemon.ts';
import { byTestId, PanelPage, waitForText } from './support/pages.ts';

const SHOTS = '/tmp/shots-tools';

// Tool titles and annotation hints, results with resource links and images, and a link followed to the
// Resources view, in the panel page with server-everything. Each test goes on where the one before it
// stopped, as a user would.
describe('tool titles, hints and rich results in the panel', () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let panel: PanelPage;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.pair(daemon.url, daemon.token);
    await panel.waitUntilPaired();
    await panel.addStdioServer('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await panel.connect('everything');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it("shows each tool's title with its name, and its annotation hints as explained badges", async () => {
    await panel.selectTool('get-resource-links');
    expect(await panel.page.$eval(byTestId('tool-display-title'), (el) => el.textContent)).toBe(
      'Get Resource Links Tool',
    );
    const listed = await panel.page.$eval(
      `${byTestId('tool-get-resource-links')} .tool-name`,
      (el) => (el as HTMLElement).innerText,
    );
    expect(listed).toContain('Get Resource Links Tool');
    expect(listed).toContain('get-resource-links');
    expect(
      await panel.page.$$eval(`${byTestId('tool-hints')} .badge`, (els) => els.map((el) => el.textContent)),
    ).toEqual(['read-only', 'closed world']);
    expect(await panel.page.$eval(byTestId('hint-readOnly'), (el) => el.getAttribute('title'))).toContain(
      'does not change its environment',
    );
    // The explanations open from the badges, by keyboard too.
    await panel.page.focus(`${byTestId('tool-hints')} summary`);
    await panel.page.keyboard.press('Enter');
    await waitForText(panel.page, `${byTestId('tool-hints')} ul`, 'nothing checks or enforces them');
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/tools-badges.png` });
  });

  it('shows resource links as links to the Resources view', async () => {
    await panel.run();
    await panel.resultWith('resource links');
    const links = await panel.page.$$eval(
      `${byTestId('tool-result')} ${byTestId('resource-link-open')}`,
      (els) => els.map((el) => ({ tag: el.tagName, uri: el.textContent?.trim() })),
    );
    expect(links).toEqual([
      { tag: 'BUTTON', uri: 'demo://resource/dynamic/blob/1' },
      { tag: 'BUTTON', uri: 'demo://resource/dynamic/text/2' },
      { tag: 'BUTTON', uri: 'demo://resource/dynamic/blob/3' },
    ]);
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/result-resource-links.png` });
  });

  it('opens a clicked resource link in the Resources view and reads it', async () => {
    const second = (await panel.page.$$(`${byTestId('tool-result')} ${byTestId('resource-link-open')}`))[1]!;
    await second.click();
    await panel.page.waitForSelector(`${byTestId('tab-resources')}[aria-selected="true"]`);
    await waitForText(panel.page, byTestId('resource-title'), 'demo://resource/dynamic/text/2', true);
    await waitForText(
      panel.page,
      `${byTestId('resource-content')} ${byTestId('resource-text')}`,
      'Resource 2',
    );
    expect(await panel.page.$eval(byTestId('resource-uri'), (el) => (el as HTMLInputElement).value)).toBe(
      'demo://resource/dynamic/text/2',
    );
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/resource-from-link.png` });
  });

  it('shows an image result decoded by the browser', async () => {
    await panel.openTab('tools');
    await panel.selectTool('get-tiny-image');
    await panel.run();
    await panel.result();
    const image = await panel.page.waitForSelector(
      `${byTestId('tool-result')} ${byTestId('content-image')} img`,
    );
    await panel.page.waitForFunction((img) => (img as HTMLImageElement).complete, {}, image);
    expect(await image!.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    expect(
      await image!.evaluate((img) => img.getAttribute('src')?.startsWith('data:image/png;base64,')),
    ).toBe(true);
  });
});
