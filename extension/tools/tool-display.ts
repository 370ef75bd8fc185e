/** What the tools list and the tool's header show of a tool: its title, icon and annotation hints. */
import type { Icon, Tool } from '../../shared/mcp';
import { declaresMcpApp, outputTemplateOf } from '../widgets/apps-sdk/widget-host';

/** The tool's human title (`title`, else `annotations.title`), or undefined when it has none but its name. */
export function toolTitle(tool: Pick<Tool, 'name' | 'title' | 'annotations'>): string | undefined {
  const title = tool.title?.trim() || tool.annotations?.title?.trim();
  return title && title !== tool.name ? title : undefined;
}

const ICON_TYPES = /^data:image\/(png|jpeg|gif|webp|svg\+xml|x-icon|vnd\.microsoft\.icon)[;,]/i;

/**
 * Whether an icon's `src` may be shown: a data: URL of an image type, or an https: URL. Nothing else (no
 * http:, which would reach the daemon or the local network, no javascript:, no relative paths).
 */
export function isSafeIconSrc(src: unknown): src is string {
  if (typeof src !== 'string' || src.length > 200_000) return false;
  if (ICON_TYPES.test(src)) return true;
  try {
    return new URL(src).protocol === 'https:';
  } catch {
    return false;
  }
}

/** The largest side an icon's `sizes` declares (`"48x48 96x96"` → 96), `any` as very large, else 0. */
function largestSide(icon: Icon): number {
  const sides = (icon.sizes ?? []).flatMap((size) =>
    size === 'any' ? [Infinity] : size.split(/\s+/).map((part) => Number.parseInt(part, 10) || 0),
  );
  return sides.length ? Math.max(...sides) : 0;
}

/**
 * The icon to show at `px` pixels for the theme: the safe icons (of that theme first, then of none),
 * the smallest one at least `px` large, else the largest.
 */
export function pickIcon(icons: unknown, theme: 'light' | 'dark' = 'light', px = 16): Icon | undefined {
  if (!Array.isArray(icons)) return undefined;
  const safe = (icons as Icon[]).filter(
    (icon) => typeof icon === 'object' && icon !== null && isSafeIconSrc(icon.src),
  );
  const themed = safe.filter((icon) => icon.theme === theme);
  const pool = themed.length ? themed : safe.filter((icon) => !icon.theme).concat(safe);
  const sized = [...pool].sort((a, b) => largestSide(a) - largestSide(b));
  return sized.find((icon) => largestSide(icon) >= px) ?? sized.at(-1);
}

export interface HintBadge {
  key: string;
  label: string;
  explanation: string;
  tone: 'safe' | 'warn' | 'plain';
}

/**
 * The annotation hints the tool declares, as badges. Destructive and idempotent hints only mean
 * something for a tool that is not read-only (MCP spec), so they are left out for one that is.
 */
export function hintBadges(annotations: Tool['annotations']): HintBadge[] {
  if (!annotations) return [];
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = annotations;
  const badges: HintBadge[] = [];
  if (readOnlyHint === true) {
    badges.push({
      key: 'readOnly',
      label: 'read-only',
      explanation: 'readOnlyHint: the tool does not change its environment.',
      tone: 'safe',
    });
  } else if (readOnlyHint === false) {
    badges.push({
      key: 'readOnly',
      label: 'writes',
      explanation: 'readOnlyHint false: the tool may change its environment.',
      tone: 'plain',
    });
  }
  if (readOnlyHint !== true && destructiveHint !== undefined) {
    badges.push(
      destructiveHint
        ? {
            key: 'destructive',
            label: 'destructive',
            explanation: 'destructiveHint: the tool may delete or overwrite things.',
            tone: 'warn',
          }
        : {
            key: 'destructive',
            label: 'additive',
            explanation: 'destructiveHint false: the tool only adds, never deletes or overwrites.',
            tone: 'plain',
          },
    );
  }
  if (readOnlyHint !== true && idempotentHint !== undefined) {
    badges.push({
      key: 'idempotent',
      label: idempotentHint ? 'idempotent' : 'not idempotent',
      explanation: idempotentHint
        ? 'idempotentHint: calling it again with the same arguments has no further effect.'
        : 'idempotentHint false: each call with the same arguments may have a further effect.',
      tone: 'plain',
    });
  }
  if (openWorldHint !== undefined) {
    badges.push({
      key: 'openWorld',
      label: openWorldHint ? 'open world' : 'closed world',
      explanation: openWorldHint
        ? 'openWorldHint: the tool reaches outside entities (the web, other systems).'
        : 'openWorldHint false: the tool works in a closed domain (for example a local memory).',
      tone: openWorldHint ? 'warn' : 'plain',
    });
  }
  return badges;
}

/** The kind of widget the tool's `_meta` names, if any: an MCP App (`ui.resourceUri`) or an Apps SDK one. */
export function widgetKind(meta: unknown): 'mcp-app' | 'apps-sdk' | null {
  if (declaresMcpApp(meta)) return 'mcp-app';
  return outputTemplateOf(meta) ? 'apps-sdk' : null;
}
