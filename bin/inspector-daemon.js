#!/usr/bin/env node
// Runs the TypeScript daemon through tsx's loader, so a fresh clone works after `npm install` alone.
// The Node check comes first, before any import that an old Node could fail on, in one line.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(`inspector-daemon: needs Node.js 22.19 or newer (this is ${process.versions.node})`);
  process.exit(1);
}

const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../daemon/cli.ts');
await main(process.argv.slice(2), process.env);
