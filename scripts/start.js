#!/usr/bin/env node
// npm start: builds the extension, the web page and the daemon when their sources changed, then becomes
// the daemon: it runs the daemon's command (bin/inspector-daemon.js, the compiled daemon in dist/server)
// in this process, with the same arguments (`npm start -- --port 6275`), so a signal sent to it (Ctrl+C,
// SIGTERM) reaches the daemon itself, which closes its MCP servers and exits.
import '../bin/node-check.js';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function newest(path) {
  const full = join(root, path);
  if (!existsSync(full)) return 0;
  const stat = statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(full).map((name) => newest(join(path, name))));
}

const builds = [
  {
    what: 'extension',
    sources: ['extension', 'shared', 'wxt.config.ts', 'package-lock.json'],
    output: '.output/chrome-mv3/manifest.json',
    command: ['wxt', 'build'],
  },
  {
    what: 'web page',
    sources: ['extension', 'shared', 'vite.web.config.ts', 'package-lock.json'],
    output: 'dist/client/index.html',
    command: ['vite', 'build', '--config', 'vite.web.config.ts'],
  },
  {
    what: 'daemon',
    sources: ['daemon', 'shared', 'scripts/build-daemon.js', 'package-lock.json'],
    output: 'dist/server/daemon/main.js',
    command: [process.execPath, 'scripts/build-daemon.js'],
  },
];
for (const build of builds) {
  const output = join(root, build.output);
  if (existsSync(output) && statSync(output).mtimeMs >= Math.max(...build.sources.map(newest))) continue;
  console.log(`Building the ${build.what}…`);
  const [command, ...args] = build.command;
  const bin = command.startsWith('/') ? command : join(root, 'node_modules/.bin', command);
  const result = spawnSync(bin, args, {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) {
    console.error(`npm start: building the ${build.what} failed (${build.command.join(' ')})`);
    process.exit(1);
  }
}

console.log(
  `Extension: load ${join(root, '.output/chrome-mv3')} unpacked (chrome://extensions, Developer mode),`,
);
console.log('then open DevTools on any page and pick the "MCP" panel.');
console.log('Web page: the daemon URL below, in any browser.\n');

await import(new URL('../bin/inspector-daemon.js', import.meta.url).href);
