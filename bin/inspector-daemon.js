#!/usr/bin/env node
// Runs the TypeScript daemon through tsx's loader, so a fresh clone works after `npm install` alone.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../daemon/cli.ts');
await main(process.argv.slice(2), process.env);
