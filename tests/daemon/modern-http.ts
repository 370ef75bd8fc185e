import { spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  FIXTURES,
  freePort,
  ROOT,
  type RunningProcess,
  stopProcess,
  TSX_LOADER,
  waitForHttp,
} from './helpers.ts';

export interface ModernHttpServer extends RunningProcess {
  /** The `mcp-*` headers of every POST the server received, in order. */
  received: Record<string, string>[];
}

/** The 2026-07-28 fixture over Streamable HTTP, with the mcp-* headers of every POST it received. */
export async function startModernHttp(): Promise<ModernHttpServer> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...TSX_LOADER, join(FIXTURES, 'modern-http-server.ts'), String(port)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const received: Record<string, string>[] = [];
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) received.push(JSON.parse(line) as Record<string, string>);
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  await waitForHttp(url);
  return { child, url, received, stop: () => stopProcess(child) };
}
