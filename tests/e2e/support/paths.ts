import { join } from 'node:path';
import { ROOT } from '../../daemon/helpers.ts';

/** The unpacked extension that `wxt build` writes. */
export const EXTENSION_DIR = join(ROOT, '.output/chrome-mv3');
/** The web page that `vite build --config vite.web.config.ts` writes, served by the daemon in production. */
export const WEB_DIR = join(ROOT, 'dist/client');
/** Screenshots for a person to look at; git-ignored. */
export const SCREENSHOT_DIR = join(ROOT, 'tests/e2e/screenshots');
