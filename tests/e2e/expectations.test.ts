import { mkdir } from 'node:fs/promises';
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './support/browser.ts';
import { EVERYTHING_COMMAND, startDaemonForExtension } from './support/daemon.ts';
import { byTestId, waitForText } from './support/pages/dom.ts';
import { PanelPage } from './support/pages/panel.ts';
import { USER_FLOW } from './support/user-flow.ts';

const SHOTS = '/tmp/shots-expectations';

/** The expectations under a tool's result (extension/saved-requests/ExpectationsPanel.vue). */
class ExpectationsPanel {
  constructor(readonly page: Page) {}

  /** Clicks one of the "Expect: …" buttons (`expect-snapshot`, `expect-success`, …). */
  async add(button: string): Promise<void> {
    await this.page.locator(byTestId(button)).click();
  }

  /** Picks `path` in the JSON path field, waits for its value to show and presses "Expect this value". */
  async expectValueAt(path: string, shown: string): Promise<void> {
    await this.page.locator(byTestId('expect-path')).fill(path);
    await waitForText(this.page, byTestId('expect-path-value'), shown);
    // The form submits with Enter, as the keyboard user adds it.
    await this.page.focus(byTestId('expect-path'));
    await this.page.keyboard.press('Enter');
  }

  /** Waits until the tally reads `text` (as "2 of 2 pass"). */
  tally(text: string): Promise<string> {
    return waitForText(this.page, byTestId('expectations-tally'), text);
  }

  /** Each expectation as shown: its outcome, label and (on failure) message. */
  rows(): Promise<Array<{ outcome: string | null; label: string; message: string | null }>> {
    return this.page.$$eval(byTestId('expectation'), (rows) =>
      rows.map((row) => ({
        outcome: row.getAttribute('data-outcome'),
        label: (row.querySelector('[data-testid="expectation-label"]') as HTMLElement).innerText,
        message:
          (row.querySelector('[data-testid="expectation-message"]') as HTMLElement | null)?.innerText ?? null,
      })),
    );
  }

  /** Whether the panel says the run shown used other parameters than the saved request's. */
  async saysOtherParameters(): Promise<boolean> {
    return (await this.page.$(byTestId('expectations-other-parameters'))) !== null;
  }

  /** The saved request the expectations belong to, as the heading names it. */
  owner(): Promise<string> {
    return waitForText(this.page, byTestId('expectations-request'), 'of');
  }
}

// Expectations added from a result with one click, kept with the saved request and checked on every
// run, in the panel page with server-everything. Each test goes on where the one before it stopped.
describe('expectations in the panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon | undefined;
  let panel: PanelPage;
  let expectations: ExpectationsPanel;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    expectations = new ExpectationsPanel(panel.page);
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    await panel.servers.addStdio('everything', EVERYTHING_COMMAND.command, EVERYTHING_COMMAND.args);
    await panel.servers.connect('everything');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('adds a snapshot from a result with one click, saving the request, and it passes on the next run', async () => {
    await panel.tools.select('echo');
    await panel.tools.fill('message', 'hello');
    await panel.tools.run();
    await panel.tools.resultWith('Echo: hello');
    await expectations.add('expect-snapshot');
    expect(await expectations.owner()).toContain('“echo”');
    expect(await panel.savedRequests.titles()).toEqual(['echo']);
    await expectations.expectValueAt('$.content[0].text', '"Echo: hello"');
    await expectations.tally('2 of 2 pass');

    await panel.tools.run();
    await panel.tools.resultWith('Echo: hello');
    await expectations.tally('2 of 2 pass');
    expect(await expectations.saysOtherParameters()).toBe(false);
    expect(await expectations.rows()).toEqual([
      { outcome: 'pass', label: 'Matches snapshot', message: null },
      { outcome: 'pass', label: '$.content[0].text equals "Echo: hello"', message: null },
    ]);
  });

  it('shows which expectation fails, and why, when a parameter changes the result', async () => {
    await panel.tools.fill('message', 'bye');
    await panel.tools.run();
    await panel.tools.resultWith('Echo: bye');
    await expectations.tally('0 of 2 pass');
    expect(await expectations.saysOtherParameters()).toBe(true);
    expect(await expectations.rows()).toEqual([
      {
        outcome: 'fail',
        label: 'Matches snapshot',
        message: 'Differs from the snapshot: $.content[0].text: expected "Echo: hello", got "Echo: bye"',
      },
      {
        outcome: 'fail',
        label: '$.content[0].text equals "Echo: hello"',
        message: '$.content[0].text: expected "Echo: hello", got "Echo: bye"',
      },
    ]);
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/expectations-failing.png` });
  });

  it('keeps the expectations with the saved request across a reload, and checks them when it is loaded and run', async () => {
    await panel.reload();
    // The server stays selected across the reload, and its tools are listed again.
    await panel.tools.select('echo');
    expect(await waitForText(panel.page, byTestId('saved-item-checks'), '2')).toBe('2 expectations');
    await panel.savedRequests.load('echo');
    expect(await panel.tools.fieldValue('message')).toBe('hello');
    await panel.tools.run();
    await panel.tools.resultWith('Echo: hello');
    await expectations.tally('2 of 2 pass');
    expect(await expectations.saysOtherParameters()).toBe(false);
    await expectations.add('expect-success');
    await expectations.tally('3 of 3 pass');
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: `${SHOTS}/expectations-passing.png` });
  });
});
