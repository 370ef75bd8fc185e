import { join } from 'node:path';
import { ROOT } from '../../daemon/helpers.ts';

/** The unpacked extension that `wxt build` writes: what `npm start` builds and the log-view bench drives. */
export const EXTENSION_DIR = join(ROOT, '.output/chrome-mv3');
/**
 * The extension the e2e tests drive, built by their global setup (`INSPECTOR_TEST_BUILD=1 wxt build`):
 * the same, but granted every loopback port, in a folder of its own.
 */
export const TEST_EXTENSION_DIR = join(ROOT, '.output/test-chrome-mv3');
/** The web page that `vite build --config vite.web.config.ts` writes, served by the daemon in production. */
export const WEB_DIR = join(ROOT, 'dist/client');
/** Screenshots for a person to look at; git-ignored. */
export const SCREENSHOT_DIR = join(ROOT, 'tests/e2e/screenshots');
