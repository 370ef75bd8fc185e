// @vitest-environment node
/**
 * The tools store against a real daemon with the tools fixture and server-everything: listing a server's
 * tools, a server whose tools cannot be listed, running the selected tool with its form's values,
 * answering its elicitations (URL ones the server said were finished marked so), the progress the
 * live channel brings to the running call, and cancelling it.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useLiveStore } from '../../extension/app/live-store';
import { useToolsStore } from '../../extension/tools/tools-store';
import { everythingStdio, fixtureStdio, startDaemon, type TestDaemon } from '../daemon/helpers';
import { pairWith } from './daemon-pairing';

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startDaemon();
  for (const [id, config] of [
    ['fixture', fixtureStdio('tools-server.ts')],
    ['everything', everythingStdio()],
    ['broken', { transport: 'stdio', command: 'inspector-no-such-command', args: [] }],
    ['web', fixtureStdio('url-elicitation-server.ts')],
    ['paged', fixtureStdio('paged-resources-server.ts')],
  ] as const) {
    expect((await daemon.api('PUT', `/api/mcp/servers/${id}`, { config })).status).toBe(201);
  }
});
afterAll(async () => {
  await daemon?.close();
});

beforeEach(async () => {
  setActivePinia(createPinia());
  await pairWith(daemon);
});

const textOf = (result: Record<string, unknown> | undefined): string =>
  ((result?.content as Array<{ text?: string }> | undefined) ?? []).map((c) => c.text ?? '').join('\n');

/** Runs `body` with the live channel open (progress, elicitation-complete notices), and closes it after. */
async function withLiveChannel(
  body: (tools: ReturnType<typeof useToolsStore>) => Promise<void>,
): Promise<void> {
  const live = useLiveStore();
  live.start(0);
  try {
    await expect.poll(() => live.state).toBe('open');
    await body(useToolsStore());
  } finally {
    live.stop();
  }
}

describe('tools store', () => {
  it("lists a server's tools, every page of them, selects the first and filters by a query", async () => {
    const tools = useToolsStore();
    await tools.load('fixture');
    expect(tools.listError).toBeNull();
    expect(tools.loading).toBe(false);
    // The fixture answers tools/list two tools a page.
    expect(tools.tools.map((t) => t.name)).toEqual([
      'elicit-twice',
      'elicit-parallel',
      'crash',
      'bad-structured',
      'slow',
      'widget',
      'ping',
    ]);
    expect(tools.selectedName).toBe('elicit-twice');
    tools.query = 'progress';
    expect(tools.filtered.map((t) => t.name)).toEqual(['slow']);
  });

  it('says why the tools of a server that cannot start are not listed', async () => {
    const tools = useToolsStore();
    await tools.load('broken');
    expect(tools.tools).toEqual([]);
    expect(tools.selectedName).toBeNull();
    expect(tools.listError).toContain('inspector-no-such-command');
    expect(tools.unsupported).toBe(false);
  });

  it('shows again the question a call of the server waits on, asked of another client, and answers it', async () => {
    const waiting = await daemon.api('POST', '/api/mcp/tools/execute', {
      serverId: 'fixture',
      toolName: 'elicit-twice',
    });
    expect(waiting.status).toBe(202);
    try {
      const tools = useToolsStore();
      await tools.load('fixture');
      expect(tools.activeRun).toMatchObject({
        toolName: 'elicit-twice',
        state: 'elicitation',
        executionId: waiting.body.executionId,
        elicitation: { requestId: waiting.body.requestId, request: { message: 'First question' } },
      });
      await tools.respond({ action: 'accept', content: { answer: 'one' } });
      expect(tools.activeRun?.elicitation?.request.message).toBe('Second question');
      await tools.respond({ action: 'accept', content: { answer: 'two' } });
      expect(textOf(tools.runs['elicit-twice']?.result)).toBe(
        'first: accept {"answer":"one"}; second: accept {"answer":"two"}',
      );
    } finally {
      await daemon.api('POST', '/api/mcp/tools/cancel', { executionId: waiting.body.executionId });
    }
  });

  it('says a server that answers tools/list with "Method not found" offers no tools, which is no error', async () => {
    const tools = useToolsStore();
    await tools.load('paged');
    expect(tools.unsupported).toBe(true);
    expect(tools.listError).toBeNull();
    expect(tools.tools).toEqual([]);
    await tools.load('everything');
    expect(tools.unsupported).toBe(false);
  });

  it("runs the selected tool with its form's values and keeps each tool's last run", async () => {
    const tools = useToolsStore();
    await tools.load('everything');
    tools.select('echo');
    tools.currentValue = { message: 'from the store' };
    await tools.execute();
    expect(tools.run?.state).toBe('completed');
    expect(textOf(tools.run?.result)).toBe('Echo: from the store');

    tools.select('get-sum');
    expect(tools.run).toBeNull();
    tools.select('echo');
    expect(textOf(tools.run?.result)).toBe('Echo: from the store');

    // Another server starts with no tools, values or runs of the one before.
    await tools.load('fixture');
    expect(tools.runs).toEqual({});
    expect(tools.values).not.toHaveProperty('echo');

    // Back on the first server, everything is as it was left.
    await tools.load('everything');
    expect(tools.selectedName).toBe('echo');
    expect(tools.currentValue).toEqual({ message: 'from the store' });
    expect(textOf(tools.run?.result)).toBe('Echo: from the store');
  });

  it("keeps a call running on one server, with its progress, while another server's tools are shown", () =>
    withLiveChannel(async (tools) => {
      await tools.load('fixture');
      tools.select('slow');
      tools.currentValue = { ms: 2_000, progressEveryMs: 50 };
      const done = tools.execute();
      await expect.poll(() => tools.run?.progress?.progress ?? 0).toBeGreaterThan(1);

      await tools.load('everything');
      expect(tools.run).toBeNull();
      // The server shown runs nothing: Run stays enabled, and the daemon says which call holds the lock.
      expect(tools.running).toBe(false);
      expect(tools.activeRun).toMatchObject({ serverId: 'fixture', toolName: 'slow', state: 'running' });
      const seen = tools.activeRun?.progress?.progress ?? 0;
      await expect.poll(() => tools.activeRun?.progress?.progress ?? 0).toBeGreaterThan(seen);

      await tools.load('fixture');
      expect(tools.selectedName).toBe('slow');
      expect(tools.currentValue).toEqual({ ms: 2_000, progressEveryMs: 50 });
      expect(tools.running).toBe(true);
      await done;
      expect(tools.run?.state).toBe('completed');
      expect(tools.activeRun).toBeNull();
    }));

  it("puts each of the tool's elicitations to the person and goes on with the answers", async () => {
    const tools = useToolsStore();
    await tools.load('fixture');
    tools.select('elicit-twice');
    await tools.execute();
    expect(tools.run?.state).toBe('elicitation');
    expect(tools.running).toBe(true);
    expect(tools.run?.elicitation?.request.message).toBe('First question');
    await tools.respond({ action: 'accept', content: { answer: 'yes' } });
    expect(tools.run?.elicitation?.request.message).toBe('Second question');
    await tools.respond({ action: 'cancel' });
    expect(tools.run?.state).toBe('completed');
    expect(tools.running).toBe(false);
    expect(textOf(tools.run?.result)).toBe('first: accept {"answer":"yes"}; second: cancel');
  });

  it('marks a URL elicitation the server said was finished, and retries the call on Done', () =>
    withLiveChannel(async (tools) => {
      await tools.load('web');
      tools.select('connect-account');
      await tools.execute();
      const request = tools.run?.elicitation?.request;
      expect(tools.run?.elicitation?.retry).toMatchObject({ round: 1 });
      expect(tools.run?.completedElicitations).toBeUndefined();
      expect((await fetch(String(request?.url))).status).toBe(200);
      await expect.poll(() => tools.run?.completedElicitations).toEqual([request?.elicitationId]);
      await tools.respond({ action: 'accept' });
      expect(tools.run?.state).toBe('completed');
      expect(textOf(tools.run?.result)).toBe('Account connected');
    }));

  it('shows the progress the live channel brings to the running call, and cancels it', () =>
    withLiveChannel(async (tools) => {
      await tools.load('fixture');
      tools.select('slow');
      tools.currentValue = { ms: 600_000, progressEveryMs: 50 };
      const done = tools.execute();
      await expect.poll(() => tools.run?.progress?.progress ?? 0).toBeGreaterThan(1);
      expect(tools.run?.state).toBe('running');
      expect(tools.run?.executionId).toMatch(/.+/);

      await tools.cancel();
      await done;
      expect(tools.run?.state).toBe('cancelled');
      expect(tools.running).toBe(false);
      expect((await daemon.api('GET', '/api/mcp/tools/active')).body.activeExecution).toBeFalsy();
    }));
});
