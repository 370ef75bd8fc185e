/**
 * The target of an HTTP request (`req.url`) as a URL, or `undefined` when it is none. A program on this
 * machine can send any bytes there that Node's parser lets through: an absolute form with a port out of
 * range (`http://x:99999/`), an unclosed IPv6 host (`http://[`), a path starting `//` or `/\` that reads as a host.
 * Parsing such a target throws, so every place that reads one goes through here.
 */
export function requestTarget(raw: string | undefined): URL | undefined {
  try {
    return new URL(raw ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

/**
 * Whether the target surely parses without trying: a path that starts with one `/` (origin form, what
 * every browser and HTTP client sends to a server) resolves against the base whatever follows, unless a
 * second `/` or a `\` (the same to the URL parser) makes what follows a host.
 */
export function plainTarget(raw: string | undefined): boolean {
  if (raw === undefined || raw.charCodeAt(0) !== 47) return false;
  const second = raw.charCodeAt(1);
  return second !== 47 && second !== 92;
}

/** The 400 message for a target that does not parse. */
export function malformedTargetMessage(raw: string | undefined): string {
  return `The request target ${JSON.stringify((raw ?? '').slice(0, 200))} is not a URL path the daemon can read`;
}
