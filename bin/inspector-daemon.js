#!/usr/bin/env node
// The package's command. It runs the compiled daemon (dist/server, written by `npm run build:daemon`
// and by `npm pack`); from a clone, `npm start` builds it first and `npm run daemon` runs the source.
// Plain JavaScript that any Node parses, so an old one gets a one-line answer rather than a stack.
import './node-check.js';

// Node's modules are taken as CommonJS: importing `node:fs` as an ES module makes Node read all its exports,
// loading its streams (some 10 ms of the start).
const { existsSync } = process.getBuiltinModule('node:fs');
const module = process.getBuiltinModule('node:module');
const entry = new URL('../dist/server/daemon/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('inspector-daemon: the daemon is not built: run `npm run build:daemon` in the repository');
  process.exit(1);
}
// V8's compiled code of the daemon and its dependencies is kept on disk (Node's compile cache, in the
// system's temporary folder unless NODE_COMPILE_CACHE names another): every start after the first skips
// most of the parsing and compiling. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();
await import(entry.href);
