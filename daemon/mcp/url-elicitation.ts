import type { JsonObject } from '../../shared/api.ts';
import { isMcpError, McpError, stripMcpPrefix } from '../errors.ts';

/** MCP 2025-11-25's JSON-RPC error for a request that needs the user to finish a step at a URL first. */
export const URL_ELICITATION_REQUIRED = -32042;

/** How many times a call is retried after URL elicitations; a server still asking then gets its error back. */
export const MAX_URL_ELICITATION_ROUNDS = 3;

/**
 * Bounds on what a server may hand the person: beyond them the error is not turned into a flow, it
 * is returned as the server sent it.
 */
const MAX_ELICITATIONS = 10;
const MAX_URL_LENGTH = 2048;
const MAX_MESSAGE_LENGTH = 2000;
const MAX_ID_LENGTH = 256;

/** One URL elicitation of a -32042 error, reduced to the fields the person is shown. */
export interface UrlElicitation {
  mode: 'url';
  elicitationId: string;
  url: string;
  message: string;
}

/** A -32042 error whose URL elicitations hold up, and the elicitations to hand the person. */
export interface UrlElicitationRequired {
  error: McpErrorLike;
  elicitations: UrlElicitation[];
}

type McpErrorLike = Error & { code: number; data?: unknown };

/**
 * The URL elicitations a failed request asks the person to finish, or undefined when the failure is
 * not a -32042 error or its `data.elicitations` does not hold up: every entry must be a URL-mode
 * elicitation with an id, a message and an http(s) URL, all within bounds. One bad entry and none is
 * shown, since a link the inspector would not open could be the one that matters.
 */
export function urlElicitationRequired(error: unknown): UrlElicitationRequired | undefined {
  if (!isMcpError(error) || error.code !== URL_ELICITATION_REQUIRED) return undefined;
  const list = isObject(error.data) ? error.data.elicitations : undefined;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_ELICITATIONS) return undefined;
  const elicitations: UrlElicitation[] = [];
  for (const entry of list) {
    const elicitation = urlElicitation(entry);
    if (!elicitation) return undefined;
    elicitations.push(elicitation);
  }
  return { error, elicitations };
}

function urlElicitation(entry: unknown): UrlElicitation | undefined {
  if (!isObject(entry) || entry.mode !== 'url') return undefined;
  const { elicitationId, url, message } = entry;
  if (!boundedString(elicitationId, MAX_ID_LENGTH) || !boundedString(message, MAX_MESSAGE_LENGTH)) {
    return undefined;
  }
  if (!boundedString(url, MAX_URL_LENGTH) || !isWebUrl(url)) return undefined;
  return { mode: 'url', elicitationId, url, message };
}

/** Only http(s): `javascript:`, `data:`, `file:` and the like must never become something to open. */
function isWebUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function boundedString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The server's -32042 error with why the call was not retried: its code and data stay as they were. */
export function urlElicitationError(error: McpErrorLike, why: string): McpError {
  return new McpError(error.code, `${why} The server said: ${stripMcpPrefix(error.message)}`, error.data);
}
