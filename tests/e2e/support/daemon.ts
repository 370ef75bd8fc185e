import { createServer } from 'node:net';
import { join } from 'node:path';
import type { DaemonOptions } from '../../../daemon/options.ts';
import {
  EVERYTHING,
  FIXTURES,
  freePort,
  ROOT,
  startDaemon,
  TSX_LOADER,
  type TestDaemon,
} from '../../daemon/helpers.ts';
import { WEB_DIR } from './paths.ts';

/** The extension's default daemon address, filled in on its pairing screen. */
export const DEFAULT_DAEMON_URL = 'http://127.0.0.1:6274';

/**
 * The port the production extension may reach without asking: its manifest grants
 * `http://127.0.0.1:6274/*` at install, and any other port goes through a permission prompt headless
 * Chromium cannot answer. The log-view bench drives that build, on this port; the e2e tests drive the
 * test build, which is granted every loopback port, and never need it.
 */
export const GRANTED_PORT = 6274;
export const GRANTED_URL = `http://127.0.0.1:${GRANTED_PORT}`;

/** server-everything over STDIO, as a user types it into the server editor. */
export const EVERYTHING_COMMAND = { command: process.execPath, args: [EVERYTHING, 'stdio'] };

/** The tools fixture (tests/fixtures/tools-server.ts) through tsx, which resolves from the repository. */
export const TOOLS_FIXTURE_COMMAND = {
  command: process.execPath,
  args: [...TSX_LOADER, join(FIXTURES, 'tools-server.ts')],
  cwd: ROOT,
};

/** Fails with a readable message when something (a developer's own daemon) holds the granted port (bench). */
export function assertGrantedPortFree(): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', () =>
      reject(
        new Error(
          `Port ${GRANTED_PORT} on 127.0.0.1 is in use. The production extension needs it (the only daemon ` +
            'address it may reach without a permission prompt): stop the daemon running there.',
        ),
      ),
    );
    probe.listen(GRANTED_PORT, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/**
 * A real daemon for the test build of the extension, on a free port. `port`, `dataDir` and `token` bring
 * a stopped daemon back as it was (its address, servers and the token the extension paired with); the
 * caller then removes the folder it made. `userAuth` makes it a shared daemon users sign in to.
 */
export function startDaemonForExtension(
  overrides: Pick<Partial<DaemonOptions>, 'port' | 'dataDir' | 'token' | 'userAuth'> = {},
): Promise<TestDaemon> {
  return startDaemon({ port: 0, ...overrides });
}

/** A loopback address where nothing listens (for a moment): a daemon that is not running. */
export async function closedDaemonUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

/** A real daemon in production mode serving the built web page from its own origin. */
export function startDaemonWithWebPage(
  overrides: Pick<Partial<DaemonOptions>, 'port' | 'userAuth' | 'authFailuresPerMinute'> = {},
): Promise<TestDaemon> {
  return startDaemon({ mode: 'production', staticDir: WEB_DIR, ...overrides });
}
