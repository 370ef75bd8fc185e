#!/usr/bin/env node
// npm run build:daemon (and npm start, npm pack): the daemon bundled into dist/server/daemon, one module for
// what runs at start and a chunk for each part loaded later (the MCP SDK client, the subcommands). Node then
// resolves and reads a handful of files at start rather than some 230 (express and its dependencies each
// load a dozen), which takes about a third off the time from start to listening. The plugins below keep the
// start module small and quick to load: together they took the daemon's own part of the start (after
// Node's) from about 155 to 100 ms on the development machine. Types are checked by `npm run typecheck`,
// not here.
//
// The daemon's dependencies stay in package.json and are installed with the package: a few are loaded
// with createRequire when first needed (ajv, ws, express-rate-limit), and the bundled ones keep their
// licences in node_modules.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist/server/daemon');

// Node's modules are taken with require(), not import. Importing one as an ES module makes Node build its
// ES facade, which reads every export once, lazy getters included: `node:http` then loads undici for its
// WebSocket and fetch classes (about 55 ms of the start on the development machine) and `node:fs` its
// streams. An import of a Node module in the daemon's own code becomes a tiny CommonJS module that
// requires it. esbuild then copies its exports by their property descriptors, and reading the
// descriptor of `node:util`'s TextDecoder loads it (5 ms): `node:util` is passed on as a getter for each
// export instead, read when used. The others are passed on as they are, so a call on the per-call path
// (randomUUID, timingSafeEqual) goes through no getter of ours.
const builtinRequire = createRequire(import.meta.url);
const builtins = new Set(
  builtinModules.flatMap((name) => (name.startsWith('node:') ? [name] : [name, `node:${name}`])),
);
const descriptorsLoadCode = new Set(['util', 'node:util']);
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/0-9]+$/ }, (args) =>
      args.kind === 'import-statement' && builtins.has(args.path)
        ? { path: args.path, namespace: 'builtin-by-require' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin-by-require' }, ({ path }) => {
      const required = `require(${JSON.stringify(path)})`;
      const names = JSON.stringify(Object.getOwnPropertyNames(builtinRequire(path)));
      return {
        contents: descriptorsLoadCode.has(path)
          ? `const real = ${required};
for (const name of ${names}) Object.defineProperty(module.exports, name, { get: () => real[name], enumerable: true });`
          : `module.exports = ${required};`,
        loader: 'js',
      };
    });
  },
};

// A JSON file is bundled as a JSON.parse of its text, not as a JavaScript object literal: V8 parses JSON
// several times faster, and mime-db's 190 KB of MIME types (loaded by express at start) took some 20 ms
// as a literal.
const jsonByParse = {
  name: 'json-by-parse',
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return {
        contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(text)))});`,
        loader: 'js',
      };
    });
  },
};

// Packages express loads as it starts but uses only when a request needs them (daemon/deferred-packages.ts):
// each is replaced by a stand-in, and the packages themselves are bundled apart, into
// dist/server/daemon/deferred.cjs, read on the first use of one or once the daemon listens. With them go
// mime-db's 190 KB of MIME types and iconv-lite's 540 KB of character tables, more than half of what the
// daemon read and compiled at start. mime-types is only ever used through its functions (lookup,
// contentType); body-parser's parser factories are called at start, so the stand-in's return middleware
// that makes the real parser on the first request.
const registry = JSON.stringify(join(root, 'daemon/deferred-packages.ts'));
const standIns = {
  'mime-types': `module.exports = new Proxy({}, { get: (_, key) => load()[key] });`,
  'body-parser': `
    const lazy = (name) => (...options) => {
      let parse;
      return function deferredBodyParser(req, res, next) {
        parse ??= load()[name](...options);
        return parse(req, res, next);
      };
    };
    module.exports = { json: lazy('json'), raw: lazy('raw'), text: lazy('text'), urlencoded: lazy('urlencoded') };`,
};
const deferredPackages = {
  name: 'deferred-packages',
  setup(build) {
    const names = Object.keys(standIns).join('|');
    build.onResolve({ filter: new RegExp(`^(${names})$`) }, (args) =>
      args.kind === 'require-call' ? { path: args.path, namespace: 'deferred-package' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'deferred-package' }, (args) => ({
      contents: `const { deferPackage } = require(${registry});
const load = deferPackage(${JSON.stringify(args.path)});
${standIns[args.path]}`,
      resolveDir: root,
      loader: 'js',
    }));
  },
};

// A non-ASCII character anywhere in a module makes Node decode all of it as UTF-8 into a two-byte string,
// which V8 then scans at half speed. esbuild escapes them in code; those left are in comments (one in
// iconv-lite's tables, in the start module), and become '?'.
const asciiComments = (text) =>
  text.replace(/^([ \t]*(?:\/\/|\/?\*).*)$/gm, (line) => line.replace(/[^\t\x20-\x7e]/g, '?'));

rmSync(join(root, 'dist/server'), { recursive: true, force: true });
// esbuild has printed what failed; a stack trace of the rejection would add nothing.
const result = await build({
  absWorkingDir: root,
  entryPoints: ['daemon/main.ts'],
  outdir,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node22.19',
  // CommonJS dependencies (express and its own) call require() for Node's modules; an ES module has none.
  banner: {
    js: "import { createRequire as inspectorCreateRequire } from 'node:module'; const require = inspectorCreateRequire(import.meta.url);",
  },
  plugins: [builtinsByRequire, jsonByParse, deferredPackages],
  write: false,
  logLevel: 'warning',
}).catch(() => process.exit(1));

const deferred = await build({
  absWorkingDir: root,
  stdin: {
    contents: `module.exports = {${Object.keys(standIns)
      .map((name) => `${JSON.stringify(name)}: () => require(${JSON.stringify(name)})`)
      .join(', ')}};`,
    resolveDir: root,
    loader: 'js',
  },
  outfile: join(root, 'dist/server/daemon/deferred.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22.19',
  plugins: [jsonByParse],
  write: false,
  logLevel: 'warning',
}).catch(() => process.exit(1));

// The start module last: npm start and the bench take a main.js newer than the sources for a whole build.
const outputs = [...deferred.outputFiles, ...result.outputFiles].sort(
  (a, b) => Number(a.path.endsWith('/main.js')) - Number(b.path.endsWith('/main.js')),
);
for (const file of outputs) {
  const text = asciiComments(file.text);
  // The banner's import of node:module is the one a Node module may have (see builtinsByRequire above).
  const imported = /^import [^;]*? from "(node:[^"]+)"/m.exec(text);
  if (imported) {
    console.error(`build-daemon: ${file.path} imports ${imported[1]} as an ES module`);
    process.exit(1);
  }
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, text);
}
