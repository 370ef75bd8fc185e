/**
 * MCP Apps (SEP-1865, `@modelcontextprotocol/ext-apps`): the names both runtimes need and the
 * Content-Security-Policy of an app's page. The daemon declares the extension when it connects and
 * serves `text/html;profile=mcp-app` resources with this policy; the panel's host speaks the app's
 * postMessage protocol. The constants equal ext-apps' `EXTENSION_ID` and `RESOURCE_MIME_TYPE` (a test
 * checks it); they are copied because the daemon does not ship ext-apps.
 */

/** The extension's key under `capabilities.extensions` in the MCP `initialize` request. */
export const MCP_APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/** The mime type of an MCP App's HTML resource. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** What the daemon declares under `capabilities.extensions["io.modelcontextprotocol/ui"]`. */
export const MCP_APPS_CLIENT_CAPABILITY: { mimeTypes: string[] } = { mimeTypes: [MCP_APP_MIME_TYPE] };

/** The domains an app's resource declares in `_meta.ui.csp` (ext-apps' `McpUiResourceCsp`). */
export interface McpAppCsp {
  /** fetch, XHR, WebSocket: `connect-src`. */
  connectDomains?: string[];
  /** Scripts, styles, images, fonts, media. */
  resourceDomains?: string[];
  /** Nested frames: `frame-src`. */
  frameDomains?: string[];
  /** `base-uri`. */
  baseUriDomains?: string[];
}

/** `text/html` with a `profile=mcp-app` parameter, in any case, quoted or not, among other parameters. */
export function isMcpAppMimeType(mimeType: unknown): boolean {
  if (typeof mimeType !== 'string') return false;
  const [type, ...parameters] = mimeType.split(';').map((part) => part.trim().toLowerCase());
  return (
    type === 'text/html' && parameters.some((parameter) => /^profile\s*=\s*"?mcp-app"?$/.test(parameter))
  );
}

/** The `_meta.ui.csp` of a resource or of one of its contents, when it is an object. */
export function mcpAppCspOf(meta: unknown): McpAppCsp | undefined {
  const ui = isObject(meta) ? meta.ui : undefined;
  const csp = isObject(ui) ? ui.csp : undefined;
  return isObject(csp) ? (csp as McpAppCsp) : undefined;
}

/**
 * A host source and nothing else: an optional http(s)/ws(s) scheme, a host (its first label may be
 * `*.`), an optional port or `:*`, an optional path. Keywords (`'unsafe-eval'`), a lone `*`, scheme
 * sources (`https:`) and anything with spaces, quotes, commas or semicolons are dropped, so a
 * declaration can name hosts but can neither widen the policy to everything nor add a directive.
 */
const HOST_SOURCE =
  /^(?:(?:https?|wss?):\/\/)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:\d{1,5}|\*))?(?:\/[\w\-.~%/]*)?$/i;

/** The declared domains that are plain host sources; everything else is dropped. */
export function hostSources(domains: unknown): string[] {
  if (!Array.isArray(domains)) return [];
  return domains.filter((domain): domain is string => typeof domain === 'string' && HOST_SOURCE.test(domain));
}

/**
 * The policy of an MCP App page as the spec builds it from the declared domains ("CSP Construction
 * from Metadata"), so nothing undeclared is allowed: default-deny; inline script and style (an app is
 * usually one inlined page) plus the resource domains; `connect-src` only the connect domains
 * (`'none'` without any: no `'self'`, which in the web build would be the daemon); no nested frames,
 * plugins or form posts unless declared. No `'unsafe-eval'`. Every directive also works in `<meta>`.
 */
export function mcpAppCspDirectives(csp: McpAppCsp | undefined): string[] {
  const resources = hostSources(csp?.resourceDomains);
  const list = (sources: string[], fallback: string): string =>
    sources.length ? sources.join(' ') : fallback;
  const withResources = (...base: string[]): string => [...base, ...resources].join(' ');
  return [
    "default-src 'none'",
    `script-src ${withResources("'self'", "'unsafe-inline'")}`,
    `style-src ${withResources("'self'", "'unsafe-inline'")}`,
    `img-src ${withResources("'self'", 'data:')}`,
    `font-src ${withResources("'self'")}`,
    `media-src ${withResources("'self'", 'data:')}`,
    `connect-src ${list(hostSources(csp?.connectDomains), "'none'")}`,
    `frame-src ${list(hostSources(csp?.frameDomains), "'none'")}`,
    "object-src 'none'",
    `base-uri ${list(hostSources(csp?.baseUriDomains), "'self'")}`,
    "form-action 'none'",
  ];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
