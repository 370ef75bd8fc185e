/**
 * Where a widget can be shown, for both kinds (Apps-SDK widgets and MCP Apps): inline under its result, in a
 * dialog over the panel (fullscreen) or docked right (picture in picture). The names a widget reads are the
 * Apps SDK's and MCP Apps' own, which agree: `inline`, `fullscreen`, `pip`.
 */
import { type HostDisplayMode, INLINE_MAX_HEIGHT } from './apps-sdk/widget-host';

export {
  APPS_SDK_MODE_NAMES as MODE_NAMES,
  HOST_DISPLAY_MODES,
  type HostDisplayMode,
} from './apps-sdk/widget-host';

export const MODE_LABELS: Record<HostDisplayMode, string> = {
  inline: 'Inline',
  modal: 'Fullscreen',
  sidebar: 'PiP',
};

export const MODE_TITLES: Record<HostDisplayMode, string> = {
  inline: 'Inline, under the result',
  modal: 'Fullscreen: in a dialog over the panel',
  sidebar: 'Picture in picture: docked right',
};

/** The bar above the frame in fullscreen and picture-in-picture mode, in pixels. */
export const SHELL_BAR = 28;

/** The docked sidebar's width, as CSS (the page's right padding while it is shown). */
export const SIDEBAR_WIDTH = 'min(440px, 45vw)';

/** The most height a widget has in a mode, in pixels: what it is told as `maxHeight`. */
export function maxHeightFor(mode: HostDisplayMode): number {
  if (mode === 'inline') return INLINE_MAX_HEIGHT;
  const height = mode === 'modal' ? Math.round(window.innerHeight * 0.85) : window.innerHeight;
  return Math.max(height - SHELL_BAR, 0);
}

/** The panel's place for a mode an MCP App asks for: `fullscreen` and `pip` have one, anything else is inline. */
export function placeForMcpAppMode(mode: 'inline' | 'fullscreen' | 'pip'): HostDisplayMode {
  if (mode === 'fullscreen') return 'modal';
  if (mode === 'pip') return 'sidebar';
  return 'inline';
}
