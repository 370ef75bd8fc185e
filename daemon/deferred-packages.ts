import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.ts';

/**
 * Packages that express loads as it starts but uses only when a request needs them. In the compiled
 * daemon, `scripts/build-daemon.js` puts a stand-in in the place of each and bundles the packages
 * themselves into `dist/server/daemon/deferred.cjs`, which is read on the first use of one of them. mime-types
 * (with mime-db's 190 KB of MIME types) and body-parser (with iconv-lite's 540 KB of character tables)
 * were more than half of what the daemon read and compiled before it listened. Run from source, nothing
 * is deferred and this list stays empty.
 */
const loaders: Array<() => unknown> = [];
let bundle: Record<string, () => unknown> | undefined;

/** The package `name` from the deferred bundle, loaded on the first call of what this returns. */
export function deferPackage(name: string): () => unknown {
  let loaded: { module: unknown } | undefined;
  const get = (): unknown => {
    if (loaded) return loaded.module;
    bundle ??= createRequire(import.meta.url)(
      join(PACKAGE_ROOT, 'dist/server/daemon/deferred.cjs'),
    ) as Record<string, () => unknown>;
    const load = bundle[name];
    if (!load) throw new Error(`dist/server/daemon/deferred.cjs has no ${name}: run npm run build:daemon`);
    loaded = { module: load() };
    return loaded.module;
  };
  loaders.push(get);
  return get;
}

/** The loaders of every deferred package, for the daemon to call once it listens. */
export function deferredPackageLoaders(): ReadonlyArray<() => unknown> {
  return loaders;
}
