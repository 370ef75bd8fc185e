import { type McpAppCsp, hostSources, mcpAppCspDirectives } from '../../shared/mcp-apps.ts';
import { type WidgetCsp, widgetCspDirectives } from '../../shared/widgets.ts';

/** Where this daemon answers, as a request reached it: its port and the name in the Host header. */
export interface DaemonAddress {
  port: number;
  hostname: string;
}

/** A host source's scheme, `*.` wildcard, host and port (see `hostSources` for the shapes it lets through). */
const SOURCE_PARTS = /^(?:([a-z]+):\/\/)?(\*\.)?([^/:]+)(?::(\d+|\*))?/i;

const DEFAULT_PORTS: Record<string, number> = { http: 80, ws: 80, https: 443, wss: 443 };

/** `localhost`, a name under it, an address of 127.0.0.0/8, or 0.0.0.0 (which Linux routes to this machine). */
function isLoopbackName(written: string): boolean {
  // As a browser reads it: `127.1`, `0x7f000001` and `2130706433` are 127.0.0.1, `0` is 0.0.0.0.
  let host = written;
  try {
    host = new URL(`http://${written}/`).hostname;
  } catch {
    // No host a URL takes: judged as written.
  }
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '0.0.0.0' ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/**
 * Whether a declared host source could match this daemon: a loopback host (or the daemon's own Host
 * name) on the daemon's port, on any port (`:*`), or on no port while the daemon listens on its scheme's
 * default one. A `*.` wildcard counts when it could cover such a host (`*.localhost`, `*.0.0.1`). The
 * daemon would refuse such a request anyway (no token, and an opaque `Origin`); the policy does not even
 * let it leave the page.
 */
export function namesDaemon(source: string, daemon: DaemonAddress): boolean {
  const parts = SOURCE_PARTS.exec(source);
  if (!parts) return true;
  const [, scheme, wildcard, rawHost = '', rawPort] = parts;
  const host = rawHost.toLowerCase();
  const ownName = daemon.hostname.toLowerCase();
  const port =
    rawPort === undefined
      ? scheme === undefined
        ? undefined
        : DEFAULT_PORTS[scheme.toLowerCase()]
      : rawPort === '*'
        ? '*'
        : Number(rawPort);
  const portMatches =
    port === '*' ||
    port === daemon.port ||
    (port === undefined && (daemon.port === 80 || daemon.port === 443));
  if (!portMatches) return false;
  if (!wildcard) return isLoopbackName(host) || host === ownName;
  // `*.x` matches names that end in `.x`; an all-numeric suffix may complete to a loopback address.
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^[\d.]+$/.test(host) ||
    ownName.endsWith(`.${host}`)
  );
}

/** The declared sources that are plain host sources and do not name this daemon. */
function reachable(domains: unknown, daemon: DaemonAddress): string[] {
  return hostSources(domains).filter((source) => !namesDaemon(source, daemon));
}

/** The policy of an Apps-SDK widget page from its `_meta["openai/widgetCSP"]`, without the daemon. */
export function appsSdkPolicy(csp: WidgetCsp | undefined, daemon: DaemonAddress): string[] {
  return widgetCspDirectives(
    csp && {
      connect_domains: reachable(csp.connect_domains, daemon),
      resource_domains: reachable(csp.resource_domains, daemon),
      frame_domains: reachable(csp.frame_domains, daemon),
    },
  );
}

/** The policy of an MCP App page from its `_meta.ui.csp`, without the daemon. */
export function mcpAppPolicy(csp: McpAppCsp | undefined, daemon: DaemonAddress): string[] {
  return mcpAppCspDirectives(
    csp && {
      connectDomains: reachable(csp.connectDomains, daemon),
      resourceDomains: reachable(csp.resourceDomains, daemon),
      frameDomains: reachable(csp.frameDomains, daemon),
      baseUriDomains: reachable(csp.baseUriDomains, daemon),
    },
  );
}
