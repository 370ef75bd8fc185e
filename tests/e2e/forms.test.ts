import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, TSX_LOADER, type TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension, VIEWPORT } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { PanelPage } from './support/pages/panel.ts';
import { PopupPage } from './support/pages/popup.ts';
import { byTestId } from './support/pages/dom.ts';
import { USER_FLOW } from './support/user-flow.ts';

/** Screenshots of the forms and the dialog, for a person to look at. */
const SHOTS = '/tmp/shots-forms';

// One browser with the built extension and one daemon run the schema fixture's tools through the panel,
// each test starting where the one before it stopped, as a user would.
describe('forms generated from JSON Schema in the DevTools panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let panel: PanelPage;

  const field = (path: string) => panel.tools.field(path);
  const shoot = async (name: string, width = VIEWPORT.width) => {
    await mkdir(SHOTS, { recursive: true });
    await panel.page.setViewport({ ...VIEWPORT, width });
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    await panel.page.setViewport(VIEWPORT);
  };

  beforeAll(async () => {
    ext = await launchWithTestExtension();
    daemon = await startDaemonForExtension();
    panel = await PanelPage.open(ext.browser, ext.pageUrl('devtools-panel.html'));
    await panel.pairing.pair(daemon.url, daemon.token);
    await panel.pairing.waitUntilPaired();
    await panel.servers.addStdio(
      'schemas',
      process.execPath,
      [...TSX_LOADER, join(FIXTURES, 'schema-server.ts')],
      ROOT,
    );
    await panel.servers.connect('schemas');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('runs a tool with a titled pick list, a date-time, a $ref object and a type union', async () => {
    await panel.tools.select('order');

    // The oneOf pick list shows titles and holds the const values; required, so no empty choice.
    const sizes = await panel.page.$$eval(`${field('size')} option`, (options) =>
      options.map((o) => [(o as HTMLOptionElement).value, o.textContent?.trim()]),
    );
    expect(sizes).toEqual([
      ['s', 'Small'],
      ['m', 'Medium'],
      ['l', 'Large'],
    ]);
    await panel.page.select(field('size'), 'l');

    // The date-time is a local date-time input; what is sent is RFC 3339.
    expect(await panel.page.$eval(field('deliverAt'), (el) => (el as HTMLInputElement).type)).toBe(
      'datetime-local',
    );
    await panel.page.locator(field('deliverAt')).fill('2026-05-04T09:15');
    const sentAt = await panel.tools.sentAs('deliverAt');
    const deliverAt = sentAt.replace('Sent as ', '').trim();
    expect(deliverAt).toMatch(/^2026-05-04T09:15:00(Z|[+-]\d{2}:\d{2})$/);
    expect(await panel.page.evaluate((text) => new Date(text).getTime(), deliverAt)).toBe(
      await panel.page.evaluate(() => new Date(2026, 4, 4, 9, 15).getTime()),
    );

    // The $ref'd Address is a group of its own fields, its country a $ref'd enum with enumNames.
    await panel.tools.fill('shipTo.city', 'Oslo');
    expect(
      await panel.page.$$eval(`${field('shipTo.country')} option`, (options) =>
        options.map((o) => o.textContent?.trim()),
      ),
    ).toEqual(['—', 'Norway', 'Sweden', 'Denmark']);
    await panel.page.select(field('shipTo.country'), 'SE');

    // The union starts as its first type (a checkbox); picking `string` gives a text box.
    expect(await panel.page.$eval(field('giftWrap'), (el) => (el as HTMLInputElement).type)).toBe('checkbox');
    await panel.page.select(panel.tools.inForm('type-giftWrap'), '1');
    await panel.page.waitForSelector(`${field('giftWrap')}[type="text"]`);
    await panel.tools.fill('giftWrap', 'gold paper');

    // Long free text is a textarea; the recursive Category stops at a depth and leaves the rest to JSON.
    expect(await panel.page.$eval(field('note'), (el) => el.tagName)).toBe('TEXTAREA');
    expect(await panel.page.$(field('category.name'))).not.toBeNull();
    expect(await panel.tools.fieldValue('quantity')).toBe('1');
    await shoot('order-form');
    await shoot('order-form-400', 400);

    const expected = {
      size: 'l',
      deliverAt,
      shipTo: { city: 'Oslo', country: 'SE' },
      giftWrap: 'gold paper',
      quantity: 1,
    };
    // The JSON view shows exactly what will be sent, and switching back keeps the values.
    expect(await panel.tools.showJson()).toEqual(expected);
    await shoot('order-json');
    await panel.tools.showForm();
    expect(await panel.tools.fieldValue('giftWrap')).toBe('gold paper');
    expect(await panel.tools.fieldValue('shipTo.city')).toBe('Oslo');

    await panel.tools.run();
    const result = await panel.tools.resultWith('Order: ');
    const sent = JSON.parse(result.slice(result.indexOf('Order: ') + 'Order: '.length).split('\n')[0]!);
    expect(sent).toEqual(expected);
  });

  it('answers an elicitation with titled enums, the invalid answer blocked until corrected', async () => {
    await panel.tools.select('survey');
    await panel.tools.run();
    expect(await panel.elicitation.message()).toBe('A few questions about your order');
    const inDialog = (testid: string) => panel.elicitation.inDialog(testid);
    // The keyboard starts in the first field, not on the box the fields scroll in.
    expect(await panel.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'field-email',
    );

    expect(
      await panel.page.$$eval(`${inDialog('field-plan')} option`, (options) =>
        options.map((o) => o.textContent?.trim()),
      ),
    ).toEqual(['Free tier', 'Professional']);
    expect(
      await panel.page.$$eval(`${inDialog('field-toppings')} label`, (labels) =>
        labels.map((l) => l.textContent?.trim()),
      ),
    ).toEqual(['Ham', 'Egg', 'Kale']);
    expect(
      await panel.page.$$eval(`${inDialog('field-legacyTier')} option`, (options) =>
        options.map((o) => o.textContent?.trim()),
      ),
    ).toEqual(['—', 'Bronze', 'Gold']);

    // An invalid answer: a bad address, too many toppings, too many seats.
    await panel.elicitation.fill('email', 'not-an-address');
    for (const index of [0, 1, 2]) await panel.page.locator(inDialog(`option-toppings-${index}`)).click();
    await panel.elicitation.fill('seats', '12');
    expect(await panel.elicitation.error('email', 'e-mail')).toBe('Not an e-mail address');
    expect(await panel.elicitation.error('toppings', 'Pick')).toBe('Pick at most 2');
    expect(await panel.elicitation.error('seats', 'Must')).toBe('Must be at most 8');
    expect(await panel.elicitation.acceptEnabled()).toBe(false);
    expect(await panel.elicitation.blocked("Can't accept yet")).toContain('email: Not an e-mail address');
    await panel.page.bringToFront();
    await mkdir(SHOTS, { recursive: true });
    await panel.page.screenshot({ path: join(SHOTS, 'elicitation-invalid.png') });
    await panel.page.setViewport({ ...VIEWPORT, width: 400 });
    await panel.page.screenshot({ path: join(SHOTS, 'elicitation-invalid-400.png') });
    await panel.page.setViewport(VIEWPORT);
    // Enter in a field submits the form: nothing is sent while the answer is invalid.
    await panel.page.locator(inDialog('field-email')).click();
    await panel.page.keyboard.press('Enter');
    expect(await panel.elicitation.isOpen()).toBe(true);

    // Typed and no number, the seats are not taken for an empty box: the field says so.
    await panel.elicitation.fill('seats', '');
    await panel.page.locator(inDialog('field-seats')).click();
    await panel.page.keyboard.type('e');
    expect(await panel.elicitation.error('seats', 'Must')).toBe('Must be a number');
    expect(await panel.elicitation.acceptEnabled()).toBe(false);

    // Corrected, it goes through with the const values of the picks.
    await panel.elicitation.fill('email', 'ada@example.com');
    await panel.page.locator(inDialog('option-toppings-0')).click();
    await panel.elicitation.fill('seats', '2');
    await panel.page.select(inDialog('field-plan'), 'pro');
    await panel.elicitation.waitForAcceptEnabled();
    expect(await panel.elicitation.hasError('email')).toBe(false);
    await panel.elicitation.press('accept');

    const result = await panel.tools.resultWith('Survey: ');
    const answer = JSON.parse(result.slice(result.indexOf('Survey: ') + 'Survey: '.length).split('\n')[0]!);
    expect(answer).toEqual({
      action: 'accept',
      // legacyTier, optional and without a default, was left unset ("—"): not sent as an answer.
      content: {
        email: 'ada@example.com',
        plan: 'pro',
        toppings: ['egg', 'kale'],
        seats: 2,
      },
    });
  });

  it('keeps a form nine objects deep within a narrow panel and within the popup', async () => {
    const within = async (page: typeof panel.page) =>
      page.evaluate(() => {
        const groups = Array.from(document.querySelectorAll('.schema-form fieldset'), (el) =>
          el.getBoundingClientRect(),
        );
        // Each input and button within the group that holds it.
        const controls = Array.from(
          document.querySelectorAll('.schema-form fieldset :is(input, textarea, button)'),
        );
        const outside = controls.filter(
          (el) =>
            el.getBoundingClientRect().right > el.closest('fieldset')!.getBoundingClientRect().right + 0.5,
        );
        return {
          groups: groups.length,
          pageScrolls: document.documentElement.scrollWidth > document.documentElement.clientWidth,
          past: groups.filter((box) => box.right > document.documentElement.clientWidth + 0.5).length,
          controlsOutside: outside.length,
        };
      });
    await panel.tools.select('nested');
    // A DevTools panel docked beside the page can be as narrow as this.
    await panel.page.setViewport({ ...VIEWPORT, width: 320 });
    try {
      await panel.page.waitForFunction(() => document.querySelectorAll('.schema-form fieldset').length === 9);
      // Polled: the split's widths follow a resize a frame or two later.
      await expect
        .poll(() => within(panel.page))
        .toEqual({ groups: 9, pageScrolls: false, past: 0, controlsOutside: 0 });
      await shoot('nested-320', 320);
    } finally {
      await panel.page.setViewport(VIEWPORT);
    }
    const popup = await PopupPage.open(ext.browser, ext.pageUrl('popup.html'));
    try {
      await popup.selectServer('schemas');
      await popup.selectTool('nested');
      await popup.page.waitForFunction(() => document.querySelectorAll('.schema-form fieldset').length === 9);
      await expect
        .poll(() => within(popup.page))
        .toEqual({ groups: 9, pageScrolls: false, past: 0, controlsOutside: 0 });
      await popup.page.bringToFront();
      await popup.page.screenshot({ path: join(SHOTS, 'popup-nested.png') });
    } finally {
      await popup.close();
    }
    await panel.page.bringToFront();
  });

  it('stays responsive with a schema that expands exponentially and an outputSchema pattern that backtracks', async () => {
    // The schema's $refs expand to 6^12 fields: the arguments are edited as JSON, saying why.
    await panel.tools.select('ref-bomb');
    expect(await panel.page.$eval(byTestId('schema-too-large'), (el) => (el as HTMLElement).innerText)).toBe(
      'The schema expands to more than 5,000 fields; edit the arguments as JSON.',
    );

    // A text that matches nothing: the pattern worker answers in time, with the problem.
    await panel.tools.select('backtrack');
    await panel.tools.fill('text', 'b');
    await panel.tools.run();
    await panel.tools.resultWith('x has 1 characters');
    await panel.page.waitForSelector(byTestId('validation-problem'));
    expect(
      await panel.page.$eval(byTestId('validation-problem'), (el) => (el as HTMLElement).innerText),
    ).toContain('does not match pattern');

    // Forty a's and a '!': the worker is stopped after its budget and the pattern reported unchecked.
    await panel.tools.fill('text', `${'a'.repeat(40)}!`);
    await panel.tools.run();
    await panel.tools.resultWith('x has 41 characters');
    await panel.page.waitForFunction(
      (selector: string) =>
        document.querySelector<HTMLElement>(selector)?.innerText ===
        'outputSchema pattern not checked: it took longer than 1,000 ms',
      {},
      byTestId('validation-patterns-not-checked'),
    );
    await shoot('backtracking-pattern');
    // The page answers at once: it never ran the pattern itself.
    expect(await panel.page.evaluate(() => 1 + 1)).toBe(2);
    await panel.tools.select('order');
    await panel.tools.waitForSelected('order');
  });
});
