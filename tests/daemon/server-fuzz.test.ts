import { describe, expect, it, onTestFinished } from 'vitest';
import { fixtureStdio, startDaemon } from './helpers.ts';

/** How many seeded calls a run makes; FUZZ_SERVER_SEED and FUZZ_SERVER_COUNT replay or widen one. */
const FIRST_SEED = Number(process.env.FUZZ_SERVER_SEED ?? 1);
const COUNT = Number(process.env.FUZZ_SERVER_COUNT ?? 60);

describe('a hostile STDIO server, fuzzed', () => {
  it('never makes the daemon fail: every call ends with a result or an error body, and the next works', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown): void => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    onTestFinished(() => void process.off('uncaughtException', onUncaught));
    const d = await startDaemon({ toolTimeoutMs: 1_500 });
    onTestFinished(() => d.close());
    expect(
      (await d.api('PUT', '/api/mcp/servers/fuzz', { config: fixtureStdio('fuzz-server.ts') })).status,
    ).toBe(201);
    const statuses: Record<number, number> = {};
    for (let seed = FIRST_SEED; seed < FIRST_SEED + COUNT; seed++) {
      const call = await d.api('POST', '/api/mcp/tools/execute', {
        serverId: 'fuzz',
        toolName: 'fuzz',
        parameters: { seed },
      });
      statuses[call.status] = (statuses[call.status] ?? 0) + 1;
      // What the server says it did with the call: only one it never answered may time out.
      const said = d.daemon.bus
        .last(200)
        .map((entry) => String(entry.message))
        .filter((line) => line.startsWith(`fuzz seed ${seed} ends: `));
      const ending = said[said.length - 1]?.slice(`fuzz seed ${seed} ends: `.length) ?? '(not said)';
      // A result that breaks the schema is passed on as sent, with resultProblem: a 200.
      const expected =
        ({ 'no-answer': 504, result: 200, 'bad-content': 200 } as Record<string, number>)[ending] ?? 502;
      expect(call.status, `seed ${seed} (${ending}): ${JSON.stringify(call.body).slice(0, 300)}`).toBe(
        expected,
      );
      expect([200, 502, 504], `seed ${seed}: ${JSON.stringify(call.body).slice(0, 300)}`).toContain(
        call.status,
      );
      if (call.status !== 200) {
        expect(typeof call.body.error, `seed ${seed}`).toBe('string');
        expect(typeof call.body.code, `seed ${seed}`).toBe('string');
      }
      // The server, started again if it exited, still answers a plain call.
      const fine = await d.api('POST', '/api/mcp/tools/execute', { serverId: 'fuzz', toolName: 'fine' });
      expect(fine.status, `after seed ${seed}: ${JSON.stringify(fine.body).slice(0, 300)}`).toBe(200);
    }
    expect(uncaught).toEqual([]);
    expect((await d.api('GET', '/api/mcp/health')).status).toBe(200);
    // Each way of ending a call came up.
    expect(Object.keys(statuses).sort()).toEqual(['200', '502', '504']);
  });
});
