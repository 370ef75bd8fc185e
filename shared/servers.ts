/** Server registry types and the conversion to and from the `mcpServers` JSON shape MCP clients use. */
import type { LoggingLevel } from './api.ts';
import type { OAuthSettings, ServerAuthInfo } from './oauth.ts';

/**
 * Which MCP era the daemon speaks with a server: `auto` (the default) asks `server/discover` first and
 * falls back to `initialize`; `legacy` only initializes (2025-11-25 and before); `modern` only speaks
 * 2026-07-28.
 */
export type ServerEra = 'auto' | 'legacy' | 'modern';

export const SERVER_ERAS: readonly ServerEra[] = ['auto', 'legacy', 'modern'];

/** The era a connection negotiated. */
export type ProtocolEra = 'legacy' | 'modern';

export interface StdioServerConfig {
  transport: 'stdio';
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  era?: ServerEra;
}

export interface RemoteServerConfig {
  transport: 'sse' | 'http' | 'websocket';
  url: string;
  headers?: Record<string, string>;
  era?: ServerEra;
  /** OAuth for an HTTP or SSE server (shared/oauth.ts). */
  auth?: OAuthSettings;
}

export type ServerConfig = StdioServerConfig | RemoteServerConfig;

/** A root the client offers a server (`roots/list`): a `file://` URI, with a name to show. */
export interface Root {
  uri: string;
  name?: string;
}

/** The largest handshake result, as JSON bytes, that a server record carries whole. */
export const HANDSHAKE_MAX_BYTES = 64 * 1024;

/**
 * The result of the handshake as the server sent it: `server/discover` on a modern connection,
 * `initialize` on a legacy one. Unvalidated (secrets of the server's config masked), so it shows what
 * the record's parsed fields were read from.
 */
export interface ServerHandshake {
  method: 'server/discover' | 'initialize';
  /** The result's size as JSON (UTF-8 bytes). */
  bytes: number;
  /** The result; absent when `bytes` exceeds HANDSHAKE_MAX_BYTES. */
  result?: Record<string, unknown>;
}

export type ServerStatus = 'disconnected' | 'connecting' | 'connected' | 'error' | 'auth_required';

export interface ServerRecord {
  id: string;
  name: string;
  config: ServerConfig;
  status: ServerStatus;
  lastError?: string;
  /** The server's `initialize` result: its implementation (title, icons, website too when given). */
  serverInfo?: {
    name: string;
    version: string;
    title?: string;
    icons?: Array<{ src: string; mimeType?: string; sizes?: string[] }>;
    websiteUrl?: string;
  };
  capabilities?: Record<string, unknown>;
  protocolVersion?: string;
  /** The era the connection negotiated: `modern` (server/discover) or `legacy` (initialize). */
  era?: ProtocolEra;
  /** How to use the server, as it told clients in its `initialize` result. */
  instructions?: string;
  /** The raw `server/discover` or `initialize` result the era was negotiated with. */
  handshake?: ServerHandshake;
  /** The capabilities the daemon declared to the server as its client (sampling, roots, elicitation…). */
  clientCapabilities?: Record<string, unknown>;
  /** The roots offered to the server (`PUT /servers/:id/roots`), kept in the registry. */
  roots?: Root[];
  /** The level set with `POST /servers/:id/logging-level`, kept across reconnects. */
  loggingLevel?: LoggingLevel;
  /** OAuth: whether the daemon holds a grant, until when, and where to sign in when it needs one. */
  auth?: ServerAuthInfo;
}

export interface PutServerRequest {
  name?: string;
  config: ServerConfig;
}

/** One entry of an `mcpServers` file, as Claude Desktop, Cursor and the MCP inspector write it. */
export interface McpServersEntry {
  name?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  type?: string;
  transport?: string;
  url?: string;
  headers?: Record<string, string>;
  /** The inspector's own field: the MCP era it speaks with this server. Other clients ignore it. */
  era?: ServerEra;
  auth?: OAuthSettings;
  /** The inspector's own field: the roots it offers this server. Other clients ignore it. */
  roots?: Root[];
}

export interface McpServersFile {
  mcpServers: Record<string, McpServersEntry>;
}

/** What a masked secret looks like on the wire. A PUT that sends it back keeps the stored value. */
export const MASKED_SECRET = '********';

export const SERVER_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

const REMOTE_TYPES: Record<string, RemoteServerConfig['transport']> = {
  sse: 'sse',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  websocket: 'websocket',
  ws: 'websocket',
};

/** Converts one `mcpServers` entry; returns a problem description instead when it cannot. */
export function configFromEntry(entry: McpServersEntry): ServerConfig | string {
  if (entry.era !== undefined && !SERVER_ERAS.includes(entry.era)) {
    return `unknown era ${JSON.stringify(entry.era)} (use auto, legacy or modern)`;
  }
  if (typeof entry.command === 'string' && entry.command.length > 0) {
    const config: StdioServerConfig = { transport: 'stdio', command: entry.command };
    if (entry.args) config.args = entry.args;
    if (entry.env) config.env = entry.env;
    if (entry.cwd) config.cwd = entry.cwd;
    if (entry.era) config.era = entry.era;
    return config;
  }
  if (typeof entry.url === 'string' && entry.url.length > 0) {
    const declared = entry.type ?? entry.transport;
    let transport: RemoteServerConfig['transport'] | undefined;
    if (declared === undefined) {
      transport = /^wss?:/.test(entry.url) ? 'websocket' : /\/sse\/?$/.test(entry.url) ? 'sse' : 'http';
    } else {
      transport = REMOTE_TYPES[declared];
      if (!transport) return `unknown type "${declared}" (use sse, http or websocket)`;
    }
    const config: RemoteServerConfig = { transport, url: entry.url };
    if (entry.headers) config.headers = entry.headers;
    if (entry.era) config.era = entry.era;
    if (entry.auth) config.auth = entry.auth;
    return config;
  }
  // Given, but not as a name or address can be written.
  if (entry.command !== undefined) return '"command" must be a non-empty string (the program to start)';
  if (entry.url !== undefined) return '"url" must be a non-empty string (the server\'s address)';
  return 'needs either "command" (STDIO) or "url" (SSE, HTTP, WebSocket)';
}

export function entryFromConfig(name: string, id: string, config: ServerConfig): McpServersEntry {
  const entry: McpServersEntry = name !== id ? { name } : {};
  if (config.transport === 'stdio') {
    entry.command = config.command;
    if (config.args) entry.args = config.args;
    if (config.env) entry.env = config.env;
    if (config.cwd) entry.cwd = config.cwd;
  } else {
    entry.type = config.transport;
    entry.url = config.url;
    if (config.headers) entry.headers = config.headers;
    if (config.auth) entry.auth = config.auth;
  }
  if (config.era) entry.era = config.era;
  return entry;
}
