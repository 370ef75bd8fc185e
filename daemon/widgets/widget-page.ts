/**
 * The headers of every widget HTML answer: the page is untrusted, never cached, and leaks no address.
 * The policy is the page's own (`policy`, which its `<meta>` copy carries too) plus what only a header
 * can say: `sandbox allow-scripts` gives a page opened by its URL the same opaque origin as in the host's
 * sandboxed frame, and `frame-ancestors 'none'` lets no page frame these URLs (hosts fetch the HTML and
 * hand it to their own frame, where the `<meta>` copy applies).
 */
export function widgetHtmlHeaders(policy: readonly string[]): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': [...policy, 'sandbox allow-scripts', "frame-ancestors 'none'"].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

const DOCTYPE = /^\s*<!doctype[^>]*>/i;

/**
 * Puts `snippet` before everything of the page but a leading doctype (before it, the page would switch
 * to quirks mode), so the policy in it covers every element of the widget and its bridge runs before any
 * of the widget's scripts. Not into `<head>`: what comes before the first `<head>` (a script before it,
 * or a `<head>` inside a comment) would run without the policy. The parser still puts the snippet first
 * into the page's head, and a later `<html lang>` still gives the root element its attributes.
 */
export function injectAtStart(html: string, snippet: string): string {
  const doctype = DOCTYPE.exec(html);
  const at = doctype ? doctype[0].length : 0;
  return html.slice(0, at) + snippet + html.slice(at);
}

/** A policy as a `<meta>` element carries it. */
export function metaPolicy(policy: readonly string[]): string {
  return `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(policy.join('; '))}">`;
}

/**
 * A widget page: the policy as a `<meta>`, then the bridge (an Apps-SDK page's `window.openai`; none for
 * an MCP App, which speaks the MCP Apps protocol itself), then the resource's HTML.
 */
export function widgetPage(html: string, policy: readonly string[], bridge = ''): string {
  return injectAtStart(html, metaPolicy(policy) + bridge);
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
 * GET /api/mcp/openai/widget/:toolId?view=<code>, a page for looking at a widget in a browser tab. A tab
 * cannot send the token in a header, and no address may carry it: a srcdoc frame's `document.baseURI` is
 * this page's address, which widget code reads. So a tab opens the page with a view code (POST
 * …/:toolId/view), which the daemon spends as it serves the page: the widget can read only a code that
 * opens nothing any more. The widget page is embedded with `srcdoc` in `<iframe sandbox="allow-scripts">`
 * (opaque origin, no `allow-same-origin`): it cannot reach this page's document, and `no-referrer` keeps
 * `document.referrer` empty. A srcdoc frame inherits this page's policy, which is therefore the widget's.
 * Nobody answers the bridge's messages here: callTool waits and then rejects.
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
