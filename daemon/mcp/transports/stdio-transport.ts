import { type ChildProcess, spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { StdioServerConfig } from '../../../shared/servers.ts';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const STDERR_TAIL_LINES = 20;
const GRACE_MS = 2000;

/**
 * STDIO transport that, unlike the SDK's, remembers how the child ended and what it last wrote to
 * stderr (so a failed start can be explained), and runs the child in its own process group so that
 * closing it also ends what it spawned (`npx` → node): no orphans.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  exit?: ExitInfo;
  readonly stderrTail: string[] = [];
  private child?: ChildProcess;
  private readonly readBuffer = new ReadBuffer();
  private stderrRest = '';

  constructor(
    private readonly config: StdioServerConfig,
    private readonly onStderrLine: (line: string) => void = () => {},
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      // Only the SDK's short list of safe variables is inherited, never the daemon's own environment
      // (which may hold INSPECTOR_TOKEN), plus what the server's config sets.
      const child = spawn(this.config.command, this.config.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.config.env },
        cwd: this.config.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
      });
      child.once('close', () => {
        this.flushStderr();
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        this.readBuffer.append(chunk);
        this.drainMessages();
      });
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => this.takeStderr(text));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('Not connected'));
    if (stdin.write(serializeMessage(message))) return Promise.resolve();
    return new Promise((resolve) => stdin.once('drain', resolve));
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const settle = (ms: number) =>
      Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(r, ms, false).unref())]);
    child.stdin?.end();
    if (await settle(GRACE_MS)) return;
    this.signal(child, 'SIGTERM');
    if (await settle(GRACE_MS)) return;
    this.signal(child, 'SIGKILL');
    await settle(GRACE_MS);
  }

  private signal(child: ChildProcess, signal: NodeJS.Signals): void {
    try {
      // A negative pid signals the whole process group the child leads.
      if (child.pid && process.platform !== 'win32') process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  }

  private drainMessages(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private takeStderr(text: string): void {
    const lines = (this.stderrRest + text).split(/\r?\n/);
    this.stderrRest = lines.pop() ?? '';
    for (const line of lines) this.pushStderr(line);
  }

  private flushStderr(): void {
    if (this.stderrRest) this.pushStderr(this.stderrRest);
    this.stderrRest = '';
  }

  private pushStderr(line: string): void {
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
    this.onStderrLine(line);
  }
}
