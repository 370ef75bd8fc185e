/**
 * Display modes of an MCP App in the DevTools panel at 1400 px: the panel's buttons and the app's own
 * `ui/request-display-mode` move it inline, fullscreen (a modal dialog) or picture in picture (docked
 * right) without reloading its frame, and the app hears each move in `ui/notifications/host-context-changed`
 * with the room it now has. The fixture app prints the context it sees.
 */
import { join } from 'node:path';
import type { Frame } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../daemon/helpers.ts';
import type { ExtensionBrowser } from './support/browser.ts';
import {
  CONTEXT_VIEWPORT as VIEWPORT,
  openContextPanel,
  showContextWidget,
} from './support/context-panel.ts';
import { byTestId } from './support/pages/dom.ts';
import type { PanelPage } from './support/pages/panel.ts';
import type { WidgetView } from './support/pages/widget.ts';
import { USER_FLOW } from './support/user-flow.ts';

const SHOTS = '/tmp/shots-widgets';

/** The room the app was last told it has: `containerDimensions` as the page prints it. */
async function room(frame: Frame): Promise<{ maxHeight: number; width?: number }> {
  return JSON.parse(await frame.$eval('#room', (el) => el.textContent ?? '{}')) as {
    maxHeight: number;
    width?: number;
  };
}

describe('Display modes of an MCP App in the panel', USER_FLOW, () => {
  let ext: ExtensionBrowser;
  let daemon: TestDaemon;
  let panel: PanelPage;
  let widget: WidgetView;
  let frame: Frame;
  /** Set in the app's window: a reloaded frame would lose it. */
  const MARK = '__inspectorModesMark';

  beforeAll(async () => {
    ({ ext, daemon, panel } = await openContextPanel());
    widget = panel.widget;
    frame = await showContextWidget(panel, 'context-app');
    await frame.evaluate((mark) => ((window as unknown as Record<string, boolean>)[mark] = true), MARK);
  });

  afterAll(async () => {
    await ext?.browser.close();
    await daemon?.close();
  });

  it('starts inline and offers the three modes', async () => {
    await widget.waitForMode('inline');
    expect(await widget.waitInFrame(frame, '#mode', 'inline of ["inline","fullscreen","pip"]')).toBeTruthy();
    expect((await room(frame)).maxHeight).toBe(640);
    expect(await widget.shellPlacement()).toMatchObject({ open: true, modal: false, position: 'static' });
  });

  it("goes fullscreen from the panel's button, in a modal dialog, and the app is told", async () => {
    await panel.page.locator(byTestId('widget-mode-modal')).click();
    await widget.waitForMode('modal');
    expect(
      await widget.waitInFrame(frame, '#mode', 'fullscreen of ["inline","fullscreen","pip"]'),
    ).toBeTruthy();
    const placement = await widget.shellPlacement();
    expect(placement).toMatchObject({ open: true, modal: true });
    // The app is told the dialog's room: taller than inline, as wide as the dialog's inside.
    const told = await room(frame);
    expect(told.maxHeight).toBeGreaterThan(640);
    expect(told.width).toBeGreaterThan(VIEWPORT.width / 2);
    expect(told.width).toBeLessThanOrEqual(Math.ceil(placement.rect.width));
    await panel.page.bringToFront();
    await panel.page.screenshot({ path: join(SHOTS, 'mcp-app-fullscreen.png') });
  });

  it('docks right as picture in picture, and goes back inline from the bar above it', async () => {
    await widget.switchMode('sidebar');
    await widget.waitForMode('sidebar');
    expect(await widget.waitInFrame(frame, '#mode', 'pip of ["inline","fullscreen","pip"]')).toBeTruthy();
    const placement = await widget.shellPlacement();
    expect(placement).toMatchObject({ open: true, modal: false, position: 'fixed' });
    expect(Math.round(placement.rect.right)).toBe(VIEWPORT.width);
    await widget.switchMode('inline');
    await widget.waitForMode('inline');
    expect(await widget.waitInFrame(frame, '#mode', 'inline of ["inline","fullscreen","pip"]')).toBeTruthy();
  });

  it("follows the app's own ui/request-display-mode and answers the mode it is shown in", async () => {
    await frame.click('#go-fullscreen');
    expect(await widget.waitInFrame(frame, '#answered', 'fullscreen')).toBe('fullscreen');
    await widget.waitForMode('modal');
    expect(
      await widget.waitInFrame(frame, '#mode', 'fullscreen of ["inline","fullscreen","pip"]'),
    ).toBeTruthy();
    // Escape leaves fullscreen for inline rather than closing the app.
    await panel.page.keyboard.press('Escape');
    await widget.waitForMode('inline');
    expect(await widget.waitInFrame(frame, '#mode', 'inline of ["inline","fullscreen","pip"]')).toBeTruthy();
    // The traffic view has the request and the host's answer.
    expect(await widget.expandLast('ui/request-display-mode:result')).toMatchObject({
      result: { mode: 'fullscreen' },
    });
  });

  it('moved the app without reloading its frame', async () => {
    expect(
      await frame.evaluate((mark) => (window as unknown as Record<string, boolean>)[mark] === true, MARK),
    ).toBe(true);
  });
});
