import { homedir } from 'node:os';
import { join } from 'node:path';
import type { DaemonMode } from '../shared/health.ts';
import type { SignInConfig } from '../shared/user.ts';
import { WIDGET_TTL_MS } from '../shared/widgets.ts';
import { DEFAULT_LOG_BUFFER_BYTES } from './logs/log-bus.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from './mcp/transports/message-limit.ts';
import { PACKAGE_ROOT } from './package-root.ts';

export interface DaemonOptions {
  port: number;
  host: string;
  mode: DaemonMode;
  /** Holds the token file and the server registry. */
  dataDir: string;
  /** The session token; `undefined` reads or creates the one in dataDir; `null` turns auth off (loopback only). */
  token?: string | null;
  /** Extra Host header names to accept beside loopback ones. */
  allowedHosts: string[];
  /** An `mcpServers` file imported at start. */
  configFile?: string;
  connectTimeoutMs: number;
  toolTimeoutMs: number;
  elicitationTimeoutMs: number;
  logBufferSize: number;
  /**
   * About how many bytes of messages the log buffer holds (128 MiB): past it the oldest entries go, and
   * one message larger than a quarter of it is kept as a placeholder (live subscribers had it whole).
   */
  logBufferBytes: number;
  sseKeepaliveMs: number;
  /**
   * How far a log-stream or live-channel client may fall behind (bytes written but not yet taken) before
   * it is dropped (4 MiB): room for a flood's burst while a busy tab or machine catches up, and a bound.
   */
  sseMaxBufferedBytes: number;
  bodyLimitBytes: number;
  /** The largest JSON-RPC message a STDIO server may send (default 64 MiB); a longer one resets its connection. */
  maxMessageBytes: number;
  /** Requests per client per minute; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** Failed token checks per client (address and Origin) per minute; past it the client gets 429. */
  authFailuresPerMinute: number;
  /** How long a stored widget record lives (SPEC part 8: 1 hour). */
  widgetTtlMs: number;
  /** The built web app, served in production mode when it exists. */
  staticDir: string;
  /**
   * In development, where page requests (anything but the API) are sent with a redirect: the dev
   * server of an unpackaged desktop app (SPEC part 1). Absent: such requests get 404.
   */
  devServerUrl?: string;
  /**
   * SPEC part 5 for a shared daemon (CLOUD_BACKEND_HTTP_URL): user bearer tokens are accepted beside
   * the session token and checked with the backend; `signIn` (INSPECTOR_OIDC_ISSUER and
   * INSPECTOR_OIDC_CLIENT_ID) tells the front end where users sign in. Absent: the session token only.
   */
  userAuth?: { backendUrl: string; signIn?: SignInConfig };
  /** Debug lines (DEBUG_MCP_SELECTION); silent when absent. */
  debug?: (line: string) => void;
  log: (line: string) => void;
}

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'inspector-daemon');
}

/** The Vite dev server of the web page (`vite.web.config.ts`). */
export const DEV_SERVER_URL = 'http://localhost:5173';

/** A desktop runtime (SPEC part 1) asked for without what it needs. */
export class DesktopEnvironmentError extends Error {}

/**
 * What SPEC part 1's desktop runtimes decide, for a desktop shell that embeds the daemon through the
 * factory and sets `DESKTOP_APP`, `IS_PACKAGED` and `DESKTOP_RESOURCES_PATH`: packaged, the web page
 * bundled in `<DESKTOP_RESOURCES_PATH>/client`, served on 127.0.0.1; unpackaged, development mode (the
 * dev server's origin allowed, stack traces in errors) with page requests redirected to the dev server.
 * Nothing without `DESKTOP_APP=true`.
 */
export function desktopOptions(env: NodeJS.ProcessEnv = process.env): Partial<DaemonOptions> {
  if (env.DESKTOP_APP !== 'true') return {};
  if (env.IS_PACKAGED !== 'true') return { mode: 'development', devServerUrl: DEV_SERVER_URL };
  const resources = env.DESKTOP_RESOURCES_PATH?.trim();
  if (!resources) {
    throw new DesktopEnvironmentError(
      'DESKTOP_APP and IS_PACKAGED are true but DESKTOP_RESOURCES_PATH is not set: set it to the packaged ' +
        "app's resources folder (the web page is read from its client/ folder)",
    );
  }
  return { host: '127.0.0.1', mode: 'production', staticDir: join(resources, 'client') };
}

/** The daemon's options: its defaults, then what a desktop runtime decides (`env`), then `overrides`. */
export function defaultOptions(
  overrides: Partial<DaemonOptions> = {},
  env: NodeJS.ProcessEnv = process.env,
): DaemonOptions {
  return {
    port: 6274,
    host: '127.0.0.1',
    mode: 'production',
    dataDir: defaultDataDir(),
    allowedHosts: [],
    connectTimeoutMs: 30_000,
    toolTimeoutMs: 5 * 60_000,
    elicitationTimeoutMs: 10 * 60_000,
    logBufferSize: 10_000,
    logBufferBytes: DEFAULT_LOG_BUFFER_BYTES,
    sseKeepaliveMs: 15_000,
    sseMaxBufferedBytes: 4 * 1024 * 1024,
    bodyLimitBytes: 4 * 1024 * 1024,
    maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
    rateLimitPerMinute: 20_000,
    authFailuresPerMinute: 20,
    widgetTtlMs: WIDGET_TTL_MS,
    staticDir: join(PACKAGE_ROOT, 'dist', 'client'),
    log: (line) => console.log(line),
    ...desktopOptions(env),
    ...overrides,
  };
}
