import { describe, expect, it } from 'vitest';
import { TickBatch } from '../../daemon/http/tick-batch.ts';
import { liveFrame, sseFrame } from '../../daemon/logs/serialise.ts';
import type { RpcLogEntry } from '../../shared/logs.ts';

const entry = (seq: number): RpcLogEntry => ({
  type: 'rpc',
  seq,
  serverId: 's',
  direction: 'receive',
  timestamp: new Date(0).toISOString(),
  message: { jsonrpc: '2.0', method: 'notifications/message', params: { data: seq } },
});

describe('log frames', () => {
  it('makes the bytes of an entry once for every reader of the same kind', () => {
    const first = entry(1);
    const frame = sseFrame(first);
    expect(frame.toString()).toBe(`id: 1\ndata: ${JSON.stringify(first)}\n\n`);
    expect(sseFrame(first)).toBe(frame);
    expect(liveFrame(first).toString()).toBe(JSON.stringify({ type: 'rpc', entry: first }));
    const second = entry(2);
    expect(sseFrame(second).toString()).toBe(`id: 2\ndata: ${JSON.stringify(second)}\n\n`);
  });
});

describe('tick batch', () => {
  it('writes what was pushed in one tick as one chunk, in order, when the tick ends', async () => {
    const written: string[] = [];
    const batch = new TickBatch((chunk) => written.push(chunk.toString()));
    batch.push(Buffer.from('a'));
    batch.push(Buffer.from('bc'));
    expect(batch.pendingBytes).toBe(3);
    expect(written).toEqual([]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(written).toEqual(['abc']);
    expect(batch.pendingBytes).toBe(0);
    batch.push(Buffer.from('d'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['abc', 'd']);
  });
});
