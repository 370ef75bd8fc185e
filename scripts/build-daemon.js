#!/usr/bin/env node
// npm run build:daemon (and npm start, npm pack): the daemon bundled into dist/server/daemon, one module for
// what runs at start and a chunk for each part loaded later (the MCP SDK client, the subcommands). Node then
// resolves and reads a handful of files at start rather than some 230 (express and its dependencies each
// load a dozen), which takes about a third off the time from start to listening. Types are checked by
// `npm run typecheck`, not here.
//
// The daemon's dependencies stay in package.json and are installed with the package: a few are loaded
// with createRequire when first needed (ajv, ws, express-rate-limit), and the bundled ones keep their
// licences in node_modules.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist/server/daemon');

rmSync(join(root, 'dist/server'), { recursive: true, force: true });
// esbuild has printed what failed; a stack trace of the rejection would add nothing.
await build({
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
  logLevel: 'warning',
}).catch(() => process.exit(1));
