/**
 * The host toolbar above a widget, in the DevTools panel at 1400 px: the frame takes its pane's width,
 * and the theme, locale, device and safe area a developer picks reach an Apps-SDK widget as
 * `window.openai` globals (and `openai:set_globals`) and an MCP App as its host context (`ui/initialize`,
 * `ui/notifications/host-context-changed`); the choice is kept. The fixture widgets print what they see.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Frame, Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import type { ExtensionBrowser } from './support/browser.ts';
import { openContextPanel as openPanel, showContextWidget as showWidget } from './support/context-panel.ts';
import { byTestId } from './support/pages/dom.ts';
import type { PanelPage } from './support/pages/panel.ts';
import type { WidgetView } from './support/pages/widget.ts';
import { USER_FLOW } from './support/user-flow.ts';

const SHOTS = '/tmp/shots-widgets';
async function shot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  await page.bringToFront();
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** Widths of the frame, the widget's stage (its pane) and what the widget's own window measures. */
async function widths(page: Page, frame: Frame): Promise<{ frame: number; pane: number; inside: number }> {
  const outside = await page.$eval(byTestId('widget-frame'), (el) => {
    const stage = el.closest('.stage') as HTMLElement;
    return { frame: el.getBoundingClientRect().width, pane: stage.clientWidth };
  });
  return { ...outside, inside: await frame.evaluate(() => window.innerWidth) };
}

describe('Host context of an Apps-SDK widget in the panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let panel: PanelPage;
  let widget: WidgetView;
  let frame: Frame;

  beforeAll(async () => {
    ({ ext, daemon, panel } = await openPanel());
    widget = panel.widget;
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('fills the width of its pane at 1400 px, and the widget sees the panel light theme, desktop and no insets', async () => {
    frame = await showWidget(panel, 'context-widget');
    const measured = await widths(panel.page, frame);
    expect(measured.pane).toBeGreaterThan(700);
    // The frame has the pane's width, less the shell's border.
    expect(measured.frame).toBeGreaterThanOrEqual(measured.pane - 2);
    expect(measured.inside).toBe(Math.round(measured.frame));
    expect(await widget.waitInFrame(frame, '#theme', 'light')).toBe('light');
    expect(await widget.waitInFrame(frame, '#device', 'desktop')).toBe('desktop');
    expect(await widget.waitInFrame(frame, '#input', '{"hover":true,"touch":false}')).toBeTruthy();
    expect(await widget.waitInFrame(frame, '#mode', 'inline')).toBe('inline');
    expect(
      await widget.waitInFrame(frame, '#insets', '{"top":0,"bottom":0,"left":0,"right":0}'),
    ).toBeTruthy();
    await shot(panel.page, 'apps-sdk-light-desktop');
  });

  it('switches the widget to dark, another locale, a phone and notch insets through openai:set_globals', async () => {
    await widget.setHost('theme', 'dark');
    expect(await widget.waitInFrame(frame, '#theme', 'dark')).toBe('dark');
    expect(await widget.waitInFrame(frame, '#updates', '1')).toBe('1');
    await shot(panel.page, 'apps-sdk-dark-desktop');

    await widget.typeLocale('de-de');
    expect((await widget.locale()).value).toBe('de-DE');
    expect(await widget.waitInFrame(frame, '#locale', 'de-DE')).toBe('de-DE');
    expect(await widget.waitInFrame(frame, '#formatted', '1.234.567,5')).toBe('1.234.567,5');

    await widget.setHost('device', 'mobile');
    expect(await widget.waitInFrame(frame, '#device', 'mobile')).toBe('mobile');
    expect(await widget.waitInFrame(frame, '#input', '{"hover":false,"touch":true}')).toBeTruthy();
    expect(await widget.waitInFrame(frame, '#width', '375')).toBe('375');
    await widget.setHost('safe-area', 'notch');
    expect(
      await widget.waitInFrame(frame, '#insets', '{"top":47,"bottom":34,"left":0,"right":0}'),
    ).toBeTruthy();

    const globals = await widget.expandLast('openai:set_globals');
    expect(globals).toEqual({
      type: 'openai:set_globals',
      globals: { safeArea: { insets: { top: 47, bottom: 34, left: 0, right: 0 } } },
    });
    await shot(panel.page, 'apps-sdk-dark-mobile');
  });

  it('refuses a locale that is not BCP 47 and keeps the last good one', async () => {
    await widget.typeLocale('not a locale!');
    expect(await widget.localeProblem()).toContain('is not a BCP 47 locale');
    expect((await widget.locale()).invalid).toBe(true);
    expect(await widget.waitInFrame(frame, '#locale', 'de-DE')).toBe('de-DE');
  });

  it('keeps the choice: after a reload the next widget starts dark, in German, on a phone', async () => {
    await panel.reload();
    await panel.pairing.waitUntilPaired();
    frame = await showWidget(panel, 'context-widget');
    // From the first render, not by an update.
    expect(await widget.waitInFrame(frame, '#theme', 'dark')).toBe('dark');
    expect(await widget.waitInFrame(frame, '#locale', 'de-DE')).toBe('de-DE');
    expect(await widget.waitInFrame(frame, '#device', 'mobile')).toBe('mobile');
    expect(
      await widget.waitInFrame(frame, '#insets', '{"top":47,"bottom":34,"left":0,"right":0}'),
    ).toBeTruthy();
    expect(await widget.waitInFrame(frame, '#updates', '0')).toBe('0');
    expect(await widget.host('device')).toBe('mobile');
    // Back to desktop: the frame takes the pane's width again.
    await widget.setHost('device', 'desktop');
    expect(await widget.waitInFrame(frame, '#device', 'desktop')).toBe('desktop');
    const measured = await widths(panel.page, frame);
    expect(measured.frame).toBeGreaterThanOrEqual(measured.pane - 2);
  });
});

describe('Host context of an MCP App in the panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let panel: PanelPage;
  let widget: WidgetView;
  let frame: Frame;

  beforeAll(async () => {
    ({ ext, daemon, panel } = await openPanel());
    widget = panel.widget;
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('fills the width of its pane and sends the chosen context in ui/initialize', async () => {
    frame = await showWidget(panel, 'context-app');
    const measured = await widths(panel.page, frame);
    expect(measured.pane).toBeGreaterThan(700);
    expect(measured.frame).toBe(measured.pane);
    expect(await widget.waitInFrame(frame, '#theme', 'light')).toBe('light');
    expect(await widget.waitInFrame(frame, '#device', 'web')).toBe('web');
    expect(await widget.waitInFrame(frame, '#mode', 'inline of ["inline","fullscreen","pip"]')).toBeTruthy();
    const init = (await widget.expandLast('ui/initialize:result')) as {
      result: { hostContext: Record<string, unknown> };
    };
    expect(init.result.hostContext).toMatchObject({
      theme: 'light',
      platform: 'web',
      deviceCapabilities: { hover: true, touch: false },
      safeAreaInsets: { top: 0, bottom: 0, left: 0, right: 0 },
      displayMode: 'inline',
      availableDisplayModes: ['inline', 'fullscreen', 'pip'],
      containerDimensions: { maxHeight: 640, width: measured.pane },
    });
    expect(typeof init.result.hostContext.locale).toBe('string');
  });

  it('tells the app of each change in ui/notifications/host-context-changed', async () => {
    await widget.setHost('theme', 'dark');
    expect(await widget.waitInFrame(frame, '#theme', 'dark')).toBe('dark');
    await widget.typeLocale('fr-FR');
    expect(await widget.waitInFrame(frame, '#locale', 'fr-FR')).toBe('fr-FR');
    await widget.setHost('device', 'mobile');
    expect(await widget.waitInFrame(frame, '#device', 'mobile')).toBe('mobile');
    expect(await widget.waitInFrame(frame, '#width', '375')).toBe('375');
    expect(await widget.expandLast('ui/notifications/host-context-changed')).toMatchObject({
      params: {
        platform: 'mobile',
        deviceCapabilities: { hover: false, touch: true },
        containerDimensions: { maxHeight: 640, width: 375 },
      },
    });
    await widget.setHost('safe-area', 'home-bar');
    expect(
      await widget.waitInFrame(frame, '#insets', '{"top":0,"bottom":34,"left":0,"right":0}'),
    ).toBeTruthy();
    await widget.collapseMessages();
    await shot(panel.page, 'mcp-app-dark-mobile');
  });
});
