/**
 * The host context a developer picks above a widget, so it sees the widget as a chat host would show
 * it: theme, locale, device (its width and input) and safe-area insets. One choice for every widget,
 * kept in the panel's storage. From it come the Apps-SDK `window.openai` globals and the MCP Apps host
 * context (`ui/initialize`, `ui/notifications/host-context-changed`); the display mode is each widget's own.
 */
import type { WidgetGlobals, WidgetTheme } from '../../shared/widgets';

/** `panel` follows the panel's own light or dark theme. */
export type ThemeChoice = 'panel' | WidgetTheme;
export type DeviceChoice = 'desktop' | 'tablet' | 'mobile';
export type SafeAreaChoice = 'none' | 'notch' | 'home-bar';

export interface HostContextOptions {
  theme: ThemeChoice;
  /** A BCP 47 tag; `''` is the browser's own language. */
  locale: string;
  device: DeviceChoice;
  safeArea: SafeAreaChoice;
}

export interface Insets {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

export const DEFAULT_HOST_CONTEXT: HostContextOptions = {
  theme: 'panel',
  locale: '',
  device: 'desktop',
  safeArea: 'none',
};

/** Where the choice is kept (extension storage, or the web page's localStorage). */
export const HOST_CONTEXT_KEY = 'widgetHostContext';

export const THEME_CHOICES: ReadonlyArray<{ value: ThemeChoice; label: string }> = [
  { value: 'panel', label: 'Panel' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/** The frame's width per device, in CSS pixels; desktop takes the whole width of the pane. */
export const DEVICE_WIDTHS: Record<DeviceChoice, number | null> = { desktop: null, tablet: 768, mobile: 375 };

export const DEVICE_CHOICES: ReadonlyArray<{ value: DeviceChoice; label: string }> = [
  { value: 'desktop', label: 'Desktop (full width)' },
  { value: 'tablet', label: 'Tablet (768 px)' },
  { value: 'mobile', label: 'Mobile (375 px)' },
];

export const SAFE_AREAS: Record<SafeAreaChoice, Insets> = {
  none: { top: 0, bottom: 0, left: 0, right: 0 },
  // A phone with a notch or island above and the home indicator below, held upright.
  notch: { top: 47, bottom: 34, left: 0, right: 0 },
  'home-bar': { top: 0, bottom: 34, left: 0, right: 0 },
};

export const SAFE_AREA_CHOICES: ReadonlyArray<{ value: SafeAreaChoice; label: string }> = [
  { value: 'none', label: 'None' },
  { value: 'notch', label: 'Notch (47 top, 34 bottom)' },
  { value: 'home-bar', label: 'Home bar (34 bottom)' },
];

/** Locales offered in the locale field's list; any valid BCP 47 tag may be typed. */
export const SUGGESTED_LOCALES = ['en-US', 'en-GB', 'fr-FR', 'de-DE', 'es-ES', 'ja-JP', 'zh-CN', 'ar-SA'];

/** The longest locale the daemon stores for a widget's first render. */
const MAX_LOCALE_LENGTH = 35;

/** The canonical form of a BCP 47 tag (`en-us` → `en-US`), or null when it is not one. */
export function canonicalLocale(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed || trimmed.length > MAX_LOCALE_LENGTH) return null;
  try {
    return Intl.getCanonicalLocales(trimmed)[0] ?? null;
  } catch {
    return null;
  }
}

function oneOf<T extends string>(value: unknown, choices: readonly T[], fallback: T): T {
  return (choices as readonly unknown[]).includes(value) ? (value as T) : fallback;
}

/** The stored choice, each field checked: anything unknown takes its default. */
export function hostContextOptions(stored: unknown): HostContextOptions {
  const value = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  const locale = typeof value.locale === 'string' ? (canonicalLocale(value.locale) ?? '') : '';
  return {
    theme: oneOf(value.theme, ['panel', 'light', 'dark'], DEFAULT_HOST_CONTEXT.theme),
    locale,
    device: oneOf(value.device, ['desktop', 'tablet', 'mobile'], DEFAULT_HOST_CONTEXT.device),
    safeArea: oneOf(value.safeArea, ['none', 'notch', 'home-bar'], DEFAULT_HOST_CONTEXT.safeArea),
  };
}

/** What the widget is told about the host, resolved: the panel's theme and the browser's language filled in. */
export interface ResolvedHostContext {
  theme: WidgetTheme;
  locale: string;
  device: DeviceChoice;
  /** The frame's width in pixels; null takes the pane's. */
  width: number | null;
  insets: Insets;
  /** A desktop has a pointer that hovers; a phone or tablet a touch screen. */
  capabilities: { hover: boolean; touch: boolean };
}

export function resolveHostContext(
  options: HostContextOptions,
  panelTheme: WidgetTheme,
  browserLocale: string,
): ResolvedHostContext {
  const desktop = options.device === 'desktop';
  return {
    theme: options.theme === 'panel' ? panelTheme : options.theme,
    locale: options.locale || canonicalLocale(browserLocale) || 'en-US',
    device: options.device,
    width: DEVICE_WIDTHS[options.device],
    insets: { ...SAFE_AREAS[options.safeArea] },
    capabilities: { hover: desktop, touch: !desktop },
  };
}

/** The Apps-SDK globals the host context sets (`window.openai`; display mode and height are the widget's). */
export function appsSdkGlobals(
  context: ResolvedHostContext,
): Pick<WidgetGlobals, 'theme' | 'locale' | 'safeArea' | 'userAgent'> {
  return {
    theme: context.theme,
    locale: context.locale,
    safeArea: { insets: { ...context.insets } },
    userAgent: { device: { type: context.device }, capabilities: { ...context.capabilities } },
  };
}

/**
 * The MCP Apps host context fields the choice sets (ext-apps `McpUiHostContext`): a desktop is the
 * `web` platform (a chat host in a browser), a tablet or phone `mobile`.
 */
export function mcpAppContextFields(context: ResolvedHostContext): {
  theme: WidgetTheme;
  locale: string;
  platform: 'web' | 'mobile';
  deviceCapabilities: { hover: boolean; touch: boolean };
  safeAreaInsets: Insets;
} {
  return {
    theme: context.theme,
    locale: context.locale,
    platform: context.device === 'desktop' ? 'web' : 'mobile',
    deviceCapabilities: { ...context.capabilities },
    safeAreaInsets: { ...context.insets },
  };
}

/** The fields of `next` whose value differs from `previous` (compared as JSON). */
export function changedFields<T extends object>(previous: T, next: T): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(next) as Array<keyof T>) {
    if (JSON.stringify(previous[key]) !== JSON.stringify(next[key])) changed[key] = next[key];
  }
  return changed;
}
