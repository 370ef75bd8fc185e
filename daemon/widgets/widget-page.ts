import { type McpAppCsp, mcpAppCspDirectives } from '../../shared/mcp-apps.ts';
import { WIDGET_CSP_DIRECTIVES } from '../../shared/widgets.ts';

/** The widget policy as a `<meta>` carries it: without the directives a meta element ignores. */
export const WIDGET_META_CSP = WIDGET_CSP_DIRECTIVES.join('; ');

/**
 * The header policy adds what only a header can say. `sandbox allow-scripts` gives a widget page opened
 * by its URL the same opaque origin as in the host's sandboxed frame. `frame-ancestors 'none'`: no page
 * frames these URLs (they need the token in a header, which a frame cannot send); hosts fetch the HTML
 * and hand it to their own frame, where the `<meta>` copy of the policy applies.
 */
export const WIDGET_HEADER_CSP = [
  ...WIDGET_CSP_DIRECTIVES,
  'sandbox allow-scripts',
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every widget HTML answer: the page is untrusted, never cached, and leaks no address. */
export const WIDGET_HTML_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': WIDGET_HEADER_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

const HEAD_OPEN = /<head(?=[\s>/])[^>]*>/i;
const HTML_OPEN = /<html(?=[\s>/])[^>]*>/i;
const DOCTYPE = /^\s*<!doctype[^>]*>/i;

/**
 * Puts `snippet` first in the page's `<head>`, so it runs before any of the widget's scripts. Without a
 * head it goes right after `<html>` (the parser opens the head there), else after the doctype (before it
 * would switch the page to quirks mode), else at the very start.
 */
export function injectIntoHead(html: string, snippet: string): string {
  const anchor = HEAD_OPEN.exec(html) ?? HTML_OPEN.exec(html) ?? DOCTYPE.exec(html);
  if (!anchor) return snippet + html;
  const at = anchor.index + anchor[0].length;
  return html.slice(0, at) + snippet + html.slice(at);
}

/** The meta policy and the bridge, injected together: the policy then covers every script after it. */
export function widgetPage(html: string, bridge: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(WIDGET_META_CSP)}">`;
  return injectIntoHead(html, meta + bridge);
}

/**
 * An MCP App page: the app speaks the MCP Apps protocol itself, so no bridge goes in, only the policy
 * built from the domains the resource declares (`_meta.ui.csp`), as a `<meta>` first in `<head>`.
 */
export function mcpAppPage(html: string, csp: McpAppCsp | undefined): string {
  const policy = mcpAppCspDirectives(csp).join('; ');
  return injectIntoHead(
    html,
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(policy)}">`,
  );
}

/** The headers of an MCP App page: those of every widget page, with the app's own policy. */
export function mcpAppHtmlHeaders(csp: McpAppCsp | undefined): Record<string, string> {
  const policy = [...mcpAppCspDirectives(csp), 'sandbox allow-scripts', "frame-ancestors 'none'"].join('; ');
  return { ...WIDGET_HTML_HEADERS, 'Content-Security-Policy': policy };
}

export function escapeAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * GET /api/mcp/openai/widget/:toolId, a page for looking at a widget in a browser tab. Such a tab can
 * only authenticate with `?token=` in its address, and an `<iframe src>` to widget-content would need the
 * token in the frame's own address, where widget code reads `location`. So the widget page is built here
 * and embedded with `srcdoc` in `<iframe sandbox="allow-scripts">` (opaque origin, no
 * `allow-same-origin`): the frame cannot read its parent's address, `no-referrer` keeps
 * `document.referrer` empty, and no URL the widget sees carries the token. A srcdoc frame inherits this
 * page's policy, which is therefore the widget's. Nobody answers the bridge's messages here: callTool
 * waits and then rejects.
 */
export function containerPage(toolId: string, widgetHtml: string): string {
  const title = escapeAttribute(`Widget ${toolId}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>
  html, body { margin: 0; height: 100%; font: 13px system-ui, sans-serif; }
  header { padding: 6px 10px; border-bottom: 1px solid #8884; }
  iframe { display: block; width: 100%; height: calc(100% - 31px); border: 0; }
</style>
</head>
<body>
<header>${title}</header>
<iframe sandbox="allow-scripts" referrerpolicy="no-referrer" title="${title}" srcdoc="${escapeAttribute(widgetHtml)}"></iframe>
</body>
</html>
`;
}
