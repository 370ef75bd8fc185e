import { createServer } from 'node:net';
import { join } from 'node:path';
import type { DaemonOptions } from '../../../daemon/options.ts';
import {
  EVERYTHING,
  FIXTURES,
  ROOT,
  startDaemon,
  TSX_LOADER,
  type TestDaemon,
} from '../../daemon/helpers.ts';
import { WEB_DIR } from './paths.ts';

/**
 * The port the extension may reach without asking: its manifest grants `http://127.0.0.1:6274/*` at
 * install. Any other port goes through `permissions.request`, whose prompt headless Chromium shows and
 * nobody can answer, so the extension tests use this one.
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

/** Fails with a readable message when something (a developer's own daemon) holds the granted port. */
export function assertGrantedPortFree(): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', () =>
      reject(
        new Error(
          `Port ${GRANTED_PORT} on 127.0.0.1 is in use. The extension e2e tests need it (the only daemon ` +
            'address the extension may reach without a permission prompt): stop the daemon running there.',
        ),
      ),
    );
    probe.listen(GRANTED_PORT, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/**
 * A real daemon on the port the extension's manifest grants. `dataDir` and `token` bring a stopped daemon
 * back as it was (its servers and the token the extension paired with); the caller then removes the
 * folder it made.
 */
export function startDaemonForExtension(
  overrides: Pick<Partial<DaemonOptions>, 'dataDir' | 'token'> = {},
): Promise<TestDaemon> {
  return startDaemon({ ...overrides, port: GRANTED_PORT });
}

/** A real daemon in production mode serving the built web page from its own origin. */
export function startDaemonWithWebPage(): Promise<TestDaemon> {
  return startDaemon({ mode: 'production', staticDir: WEB_DIR });
}
