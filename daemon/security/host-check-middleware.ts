import { BlockList, isIP } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sendError } from '../http/error-middleware.ts';

/** Every address of 127.0.0.0/8 and ::1 (also written as the IPv4-mapped ::ffff:127.x.y.z). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** A Host header is a name or an IP literal and an optional port; nothing else (no userinfo, path, spaces). */
const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/;

/**
 * The canonical hostname of a Host header, or `undefined` when it is not a well-formed one. The URL
 * parser canonicalises IP literals (`127.1` and `0x7f.0.0.1` are 127.0.0.1, `[0:0::1]` is `[::1]`) and
 * lower-cases names, so a literal is recognised whatever its spelling and a name is never prefix-matched.
 */
export function hostnameOf(hostHeader: string | undefined): string | undefined {
  const match = HOST_HEADER.exec(hostHeader ?? '');
  if (!match?.[1]) return undefined;
  if (match[2] !== undefined && Number(match[2]) > 65535) return undefined;
  try {
    return new URL(`http://${match[1]}`).hostname;
  } catch {
    return undefined;
  }
}

/** A hostname (canonical, IPv6 in brackets or not) that can only mean this machine: `localhost` or a loopback literal. */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase();
  if (name === 'localhost') return true;
  const address = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  const family = isIP(address);
  if (family === 0) return false;
  return LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The names the Host check accepts besides loopback: `--allowed-host` names, canonicalised like a Host header. */
export function allowedHostSet(names: readonly string[]): Set<string> {
  const set = new Set<string>();
  for (const name of names) {
    const canonical = hostnameOf(name);
    if (canonical) set.add(canonical);
  }
  return set;
}

/**
 * DNS rebinding defence: a page on evil.example whose name re-resolves to 127.0.0.1 still sends
 * `Host: evil.example` (or `127.0.0.1.evil.example`), so only loopback literals, `localhost` and the
 * names the user allowed get through.
 */
export function hostAllowed(host: string | undefined, allowed: ReadonlySet<string>): boolean {
  const name = hostnameOf(host);
  return name !== undefined && (isLoopbackHost(name) || allowed.has(name));
}

/** Distinct Host headers remembered per check; a client sends the same one on every request. */
const REMEMBERED_HOSTS = 64;

/**
 * `hostAllowed` for one set of allowed names, remembering its answer per Host header: parsing a header
 * (a regular expression, the URL parser, the loopback list) costs more than the rest of the check, and
 * every request makes it. The memory is bounded: past REMEMBERED_HOSTS distinct headers it starts over.
 */
export function hostCheck(allowed: ReadonlySet<string>): (host: string | undefined) => boolean {
  const answers = new Map<string, boolean>();
  return (host) => {
    if (host === undefined) return false;
    let answer = answers.get(host);
    if (answer === undefined) {
      answer = hostAllowed(host, allowed);
      if (answers.size >= REMEMBERED_HOSTS) answers.clear();
      answers.set(host, answer);
    }
    return answer;
  };
}

/** The 403 text: what was refused and the flag that would allow it. */
export function forbiddenHostMessage(host: string | undefined): string {
  const name = hostnameOf(host);
  if (host === undefined) return 'No Host header: every HTTP/1.1 request names the host it asks';
  const shown = JSON.stringify(host.slice(0, 200));
  return name
    ? `Forbidden Host header ${shown}: the daemon answers loopback addresses and localhost only; to allow this name, start it with --allowed-host ${name}`
    : `Forbidden Host header ${shown}: not a valid host name or address`;
}

export function hostCheckMiddleware(options: { allowedHosts: readonly string[] }): RequestHandler {
  const allowed = hostCheck(allowedHostSet(options.allowedHosts));
  return (req: Request, res: Response, next: NextFunction) => {
    const host = req.headers.host;
    if (allowed(host)) return next();
    sendError(res, 'forbidden_host', forbiddenHostMessage(host));
  };
}
