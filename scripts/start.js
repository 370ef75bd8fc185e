#!/usr/bin/env node
// npm start: builds the extension and the web page when their sources changed, then runs the daemon.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const sources = ['extension', 'shared', 'wxt.config.ts', 'vite.web.config.ts', 'package-lock.json'];

function newest(path) {
  const full = join(root, path);
  if (!existsSync(full)) return 0;
  const stat = statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(full).map((name) => newest(join(path, name))));
}

const sourcesChanged = Math.max(...sources.map(newest));
const builds = [
  { what: 'extension', output: '.output/chrome-mv3/manifest.json', command: ['wxt', 'build'] },
  {
    what: 'web page',
    output: 'dist/client/index.html',
    command: ['vite', 'build', '--config', 'vite.web.config.ts'],
  },
];
for (const build of builds) {
  const output = join(root, build.output);
  if (existsSync(output) && statSync(output).mtimeMs >= sourcesChanged) continue;
  console.log(`Building the ${build.what}…`);
  const result = spawnSync(join(root, 'node_modules/.bin', build.command[0]), build.command.slice(1), {
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

const daemon = spawn(process.execPath, [join(root, 'bin/inspector-daemon.js'), ...process.argv.slice(2)], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => daemon.kill(signal));
daemon.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
