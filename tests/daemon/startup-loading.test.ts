import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT, TSX_LOADER } from './helpers.ts';

/**
 * Runs in a fresh process: records every package a module is resolved from, builds the daemon, lets it
 * listen, and prints the packages loaded by then, then those loaded once it has been idle a moment.
 */
const SCRIPT = `
import { registerHooks } from 'node:module';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const seen = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(result.url);
    if (match) seen.add(match[1]);
    return result;
  },
});
const { createDaemon } = await import('./daemon/app.ts');
const { defaultOptions } = await import('./daemon/options.ts');
const dataDir = await mkdtemp(join(tmpdir(), 'inspector-startup-'));
const daemon = await createDaemon(defaultOptions({ port: 0, dataDir, token: 'startup-token-0123456789', log: () => {} }));
await daemon.listen();
const listening = [...seen];
await new Promise((resolve) => setTimeout(resolve, 1500));
console.log(JSON.stringify({ listening, idle: [...seen] }));
await daemon.close();
`;

describe('start-up', () => {
  it('listens before it loads the MCP SDK, ajv, ws and the rate limiter, and loads all but ws right after', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...TSX_LOADER, '--input-type=module', '--eval', SCRIPT],
      { cwd: ROOT },
    );
    const { listening, idle } = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
      listening: string[];
      idle: string[];
    };
    expect(listening).toContain('express');
    for (const name of ['@modelcontextprotocol/client', 'zod', 'ajv', 'ws'])
      expect(listening).not.toContain(name);
    expect(idle).toEqual(expect.arrayContaining(['@modelcontextprotocol/client', 'ajv']));
  });
});
