import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, TSX_LOADER, type TestDaemon } from '../daemon/helpers.ts';
import { type ExtensionBrowser, launchWithTestExtension, VIEWPORT } from './support/browser.ts';
import { startDaemonForExtension } from './support/daemon.ts';
import { byTestId, PanelPage, waitForText } from './support/pages.ts';

/** Screenshots of the forms and the dialog, for a person to look at. */
const SHOTS = '/tmp/shots-forms';
const TOOL_FORM = 'section.split-detail';
const DIALOG = byTestId('elicitation-dialog');

// One browser with the built extension and one daemon run the schema fixture's tools through the panel,
// each test starting where the one before it stopped, as a user would.
describe('forms generated from JSON Schema in the DevTools panel', () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let panel: PanelPage;

  const field = (path: string) => `${TOOL_FORM} ${byTestId(`field-${path}`)}`;
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
    await panel.pair(daemon.url, daemon.token);
    await panel.waitUntilPaired();
    await panel.addStdioServer(
      'schemas',
      process.execPath,
      [...TSX_LOADER, join(FIXTURES, 'schema-server.ts')],
      ROOT,
    );
    await panel.connect('schemas');
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('runs a tool with a titled pick list, a date-time, a $ref object and a type union', async () => {
    await panel.selectTool('order');

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
    const sentAt = await waitForText(panel.page, `${TOOL_FORM} ${byTestId('sent-deliverAt')}`, 'Sent as');
    const deliverAt = sentAt.replace('Sent as ', '').trim();
    expect(deliverAt).toMatch(/^2026-05-04T09:15:00(Z|[+-]\d{2}:\d{2})$/);
    expect(await panel.page.evaluate((text) => new Date(text).getTime(), deliverAt)).toBe(
      await panel.page.evaluate(() => new Date(2026, 4, 4, 9, 15).getTime()),
    );

    // The $ref'd Address is a group of its own fields, its country a $ref'd enum with enumNames.
    await panel.fill('shipTo.city', 'Oslo');
    expect(
      await panel.page.$$eval(`${field('shipTo.country')} option`, (options) =>
        options.map((o) => o.textContent?.trim()),
      ),
    ).toEqual(['—', 'Norway', 'Sweden', 'Denmark']);
    await panel.page.select(field('shipTo.country'), 'SE');

    // The union starts as its first type (a checkbox); picking `string` gives a text box.
    expect(await panel.page.$eval(field('giftWrap'), (el) => (el as HTMLInputElement).type)).toBe('checkbox');
    await panel.page.select(`${TOOL_FORM} ${byTestId('type-giftWrap')}`, '1');
    await panel.page.waitForSelector(`${field('giftWrap')}[type="text"]`);
    await panel.fill('giftWrap', 'gold paper');

    // Long free text is a textarea; the recursive Category stops at a depth and leaves the rest to JSON.
    expect(await panel.page.$eval(field('note'), (el) => el.tagName)).toBe('TEXTAREA');
    expect(await panel.page.$(field('category.name'))).not.toBeNull();
    expect(await panel.fieldValue('quantity')).toBe('1');
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
    await panel.page.locator(`${TOOL_FORM} ${byTestId('mode-json')}`).click();
    const raw = await panel.page.$eval(`${TOOL_FORM} ${byTestId('raw-json')}`, (el) =>
      JSON.parse((el as HTMLTextAreaElement).value),
    );
    expect(raw).toEqual(expected);
    await shoot('order-json');
    await panel.page.locator(`${TOOL_FORM} ${byTestId('mode-form')}`).click();
    expect(await panel.fieldValue('giftWrap')).toBe('gold paper');
    expect(await panel.fieldValue('shipTo.city')).toBe('Oslo');

    await panel.run();
    const result = await panel.resultWith('Order: ');
    const sent = JSON.parse(result.slice(result.indexOf('Order: ') + 'Order: '.length).split('\n')[0]!);
    expect(sent).toEqual(expected);
  });

  it('answers an elicitation with titled enums, the invalid answer blocked until corrected', async () => {
    await panel.selectTool('survey');
    await panel.run();
    expect(await panel.elicitation()).toBe('A few questions about your order');
    const inDialog = (testid: string) => `${DIALOG} ${byTestId(testid)}`;

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
    await panel.page.locator(inDialog('field-email')).fill('not-an-address');
    for (const index of [0, 1, 2]) await panel.page.locator(inDialog(`option-toppings-${index}`)).click();
    await panel.page.locator(inDialog('field-seats')).fill('12');
    expect(await waitForText(panel.page, inDialog('error-email'), 'e-mail')).toBe('Not an e-mail address');
    expect(await waitForText(panel.page, inDialog('error-toppings'), 'Pick')).toBe('Pick at most 2');
    expect(await waitForText(panel.page, inDialog('error-seats'), 'Must')).toBe('Must be at most 8');
    expect(await panel.elicitationAcceptEnabled()).toBe(false);
    expect(await waitForText(panel.page, inDialog('elicit-blocked'), "Can't accept yet")).toContain(
      'email: Not an e-mail address',
    );
    await panel.page.bringToFront();
    await mkdir(SHOTS, { recursive: true });
    await panel.page.screenshot({ path: join(SHOTS, 'elicitation-invalid.png') });
    await panel.page.setViewport({ ...VIEWPORT, width: 400 });
    await panel.page.screenshot({ path: join(SHOTS, 'elicitation-invalid-400.png') });
    await panel.page.setViewport(VIEWPORT);
    // Enter in a field submits the form: nothing is sent while the answer is invalid.
    await panel.page.locator(inDialog('field-email')).click();
    await panel.page.keyboard.press('Enter');
    expect(await panel.page.$(`${DIALOG}[open]`)).not.toBeNull();

    // Corrected, it goes through with the const values of the picks.
    await panel.page.locator(inDialog('field-email')).fill('ada@example.com');
    await panel.page.locator(inDialog('option-toppings-0')).click();
    await panel.page.locator(inDialog('field-seats')).fill('2');
    await panel.page.select(inDialog('field-plan'), 'pro');
    await panel.page.waitForSelector(`${inDialog('elicit-accept')}:enabled`);
    expect(await panel.page.$(inDialog('error-email'))).toBeNull();
    await panel.page.locator(inDialog('elicit-accept')).click();
    await panel.page.waitForSelector(DIALOG, { hidden: true });

    const result = await panel.resultWith('Survey: ');
    const answer = JSON.parse(result.slice(result.indexOf('Survey: ') + 'Survey: '.length).split('\n')[0]!);
    expect(answer).toEqual({
      action: 'accept',
      // legacyTier was left at its first member, shown selected (the SPEC's default for an enum).
      content: {
        email: 'ada@example.com',
        plan: 'pro',
        toppings: ['egg', 'kale'],
        seats: 2,
        legacyTier: 'b',
      },
    });
  });
});
