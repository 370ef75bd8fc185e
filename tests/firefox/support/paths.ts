import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../daemon/helpers.ts';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** The Firefox build that `wxt build -b firefox` writes (`npm run build:firefox`). */
export const FIREFOX_EXTENSION_DIR = join(ROOT, '.output/firefox-mv3');
/** That build as `npm run zip` packs it (`wxt zip -b firefox`): what a user installs, and the tests too. */
export const FIREFOX_ZIP = join(ROOT, `.output/${pkg.name}-${pkg.version}-firefox.zip`);
