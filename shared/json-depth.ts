/**
 * Nesting limits for JSON. `JSON.parse` takes 10,000 levels and more, but `JSON.stringify` and any
 * recursive walk overflow the stack near 4,000: a value parsed at the edge must be bounded before
 * anything serialises it again. Both checks here are iterative.
 */

/** Request bodies sent to the daemon: tool parameters, elicitation answers, widget data. */
export const MAX_BODY_DEPTH = 256;

/** Messages from and to MCP servers: deeper ones are logged as a placeholder and refused. */
export const MAX_MESSAGE_DEPTH = 1024;

/** Whether a parsed JSON value nests objects and arrays more than `max` levels deep. */
export function exceedsDepth(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON text (UTF-8 bytes) opens more than `max` levels, read without parsing: brackets inside
 * strings do not count. Malformed text is left for the parser to reject.
 */
export function textExceedsDepth(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
