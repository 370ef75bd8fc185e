// @vitest-environment node
/**
 * The one tool runner (panel, popup and widgets drive their calls through it), the stores that use it,
 * and the moves between views, against a real daemon with the tools fixture and server-everything.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isReactive, reactive } from 'vue';
import { DaemonClient } from '../../extension/app/daemon-client';
import { useConnectionStore } from '../../extension/app/connection-store';
import type { KeyValueStore } from '../../extension/app/key-value-store';
import { deepLinkUrl, readDeepLink, useNavigationStore } from '../../extension/app/navigation-store';
import type { Platform } from '../../extension/app/platform';
import { useResourcesStore } from '../../extension/resources/resources-store';
import { useServersStore } from '../../extension/servers/servers-store';
import { newRun, ToolRunner } from '../../extension/tools/tool-run';
import { useToolsStore } from '../../extension/tools/tools-store';
import { everythingStdio, fixtureStdio, startDaemon, type TestDaemon } from '../daemon/helpers';

let d: TestDaemon;
let runner: ToolRunner;

beforeAll(async () => {
  d = await startDaemon();
  for (const [id, config] of [
    ['fixture', fixtureStdio('tools-server.ts')],
    ['everything', everythingStdio()],
  ] as const) {
    expect((await d.api('PUT', `/api/mcp/servers/${id}`, { config })).status).toBe(201);
  }
  const client = new DaemonClient(d.url, d.token);
  runner = new ToolRunner(() => client);
});
afterAll(() => d.close());

const textOf = (result: Record<string, unknown> | undefined): string =>
  ((result?.content as Array<{ text?: string }> | undefined) ?? []).map((c) => c.text ?? '').join('\n');

describe('ToolRunner', () => {
  it('runs a call to its result', async () => {
    const run = newRun('everything', 'echo', { message: 'hello' });
    await runner.execute(run);
    expect(run.state).toBe('completed');
    expect(run.executionId).toMatch(/.+/);
    expect(textOf(run.result)).toBe('Echo: hello');
    expect(run.finishedAt).toBeGreaterThanOrEqual(run.startedAt);
  });

  it('keeps a result as it came, not made reactive in a reactive run: no watcher walks megabytes', async () => {
    const run = reactive(newRun('everything', 'echo', { message: 'raw' }));
    await runner.execute(run);
    expect(run.state).toBe('completed');
    expect(isReactive(run.result)).toBe(false);
    expect(textOf(run.result)).toBe('Echo: raw');
  });

  it('waits at each elicitation and goes on with the answers', async () => {
    const run = newRun('fixture', 'elicit-twice', {});
    await runner.execute(run);
    expect(run.state).toBe('elicitation');
    expect(run.elicitation?.request.message).toBe('First question');
    await runner.respond(run, { action: 'accept', content: { answer: 'one' } });
    expect(run.state).toBe('elicitation');
    expect(run.elicitation?.request.message).toBe('Second question');
    await runner.respond(run, { action: 'decline' });
    expect(run.state).toBe('completed');
    expect(textOf(run.result)).toBe('first: accept {"answer":"one"}; second: decline');
  });

  it('cancels a call waiting at an elicitation and settles it as cancelled', async () => {
    const run = newRun('fixture', 'elicit-twice', {});
    await runner.execute(run);
    expect(run.state).toBe('elicitation');
    expect(await runner.cancel(run)).toBe('run');
    expect(run.state).toBe('cancelled');
    expect(run.elicitation).toBeUndefined();
  });

  it('names the call that blocks a second one, and cancels that call on request', async () => {
    const slow = newRun('fixture', 'slow', { ms: 600_000 });
    const slowDone = runner.execute(slow);
    // The first call holds the daemon's lock once the daemon lists it as active.
    await expect
      .poll(async () => (await d.api('GET', '/api/mcp/tools/active')).body.activeExecution?.toolName)
      .toBe('slow');
    const blocked = newRun('everything', 'echo', { message: 'x' });
    await runner.execute(blocked);
    expect(blocked.state).toBe('failed');
    expect(blocked.blockedBy?.toolName).toBe('slow');
    expect(blocked.error).toContain('Another tool call is running: "slow" on fixture');
    expect(await runner.cancel(blocked)).toBe('blocker');
    await slowDone;
    expect(slow.state).toBe('cancelled');
  });

  it('runs to the end for a widget, putting each elicitation to the asker', async () => {
    const asked: unknown[] = [];
    const result = await runner.complete(newRun('fixture', 'elicit-twice', {}), async (elicitation) => {
      asked.push(elicitation.request.message);
      return { action: 'accept', content: { answer: String(asked.length) } };
    });
    expect(asked).toEqual(['First question', 'Second question']);
    expect(textOf(result)).toBe('first: accept {"answer":"1"}; second: accept {"answer":"2"}');
    await expect(
      runner.complete(newRun('nope', 'echo', {}), async () => ({ action: 'cancel' })),
    ).rejects.toThrow(/nope/);
  });
});

function memoryPlatform(): Platform {
  const data = new Map<string, unknown>();
  const store: KeyValueStore = {
    get: async <T>(key: string) => data.get(key) as T | undefined,
    set: async (key, value) => void data.set(key, value),
    remove: async (key) => void data.delete(key),
  };
  return {
    kind: 'web',
    store,
    defaultDaemonUrl: d.url,
    hasHostAccess: async () => true,
    requestHostAccess: async () => true,
  };
}

describe('the panel stores', () => {
  beforeEach(async () => {
    setActivePinia(createPinia());
    const connection = useConnectionStore();
    await connection.load(memoryPlatform());
    expect(await connection.pair(d.url, d.token)).toBe(true);
  });

  it('clears a finished result when a saved request is loaded, but not a running call', async () => {
    const tools = useToolsStore();
    await tools.load('everything');
    tools.select('echo');
    tools.currentValue = { message: 'first' };
    await tools.execute();
    expect(textOf(tools.run?.result)).toBe('Echo: first');
    // Selecting the tool again keeps its result; loading a saved request drops it.
    tools.select('echo');
    expect(tools.run?.state).toBe('completed');
    tools.select('echo', { message: 'saved' });
    expect(tools.run).toBeNull();
    expect(tools.currentValue).toEqual({ message: 'saved' });
  });

  it('starts a new URI from nothing, while reading the shown URI again keeps its result on screen', async () => {
    const resources = useResourcesStore();
    await resources.load('everything');
    const a = 'demo://resource/dynamic/text/1';
    const b = 'demo://resource/dynamic/text/2';
    await resources.read(a);
    expect(resources.current?.result).toBeDefined();
    await resources.read(b);
    const again = resources.read(a);
    // Back to a: its earlier result is not shown under the new request.
    expect(resources.selectedUri).toBe(a);
    expect(resources.current?.result).toBeUndefined();
    expect(resources.current?.loading).toBe(true);
    await again;
    expect(JSON.stringify(resources.current?.result)).toContain(a);
    const refresh = resources.read(a);
    expect(resources.current?.result).toBeDefined();
    await refresh;
  });

  it('opens a resource link in the Resources view of its server and reads it', async () => {
    const servers = useServersStore();
    await servers.refresh();
    const navigation = useNavigationStore();
    expect(navigation.tab).toBe('tools');
    navigation.openResource('demo://resource/dynamic/text/3', 'everything');
    expect(navigation.tab).toBe('resources');
    expect(servers.selectedId).toBe('everything');
    const resources = useResourcesStore();
    expect(resources.selectedUri).toBe('demo://resource/dynamic/text/3');
    expect(resources.uriInput).toBe('demo://resource/dynamic/text/3');
    await expect.poll(() => JSON.stringify(resources.current?.result ?? null)).toContain('text/3');
  });

  it('follows a deep link to a tool once its server is listed', async () => {
    const link = readDeepLink(
      new URL(
        deepLinkUrl('chrome-extension://x/devtools-panel.html', { server: 'everything', tool: 'get-sum' }),
      ).search,
    );
    expect(link).toEqual({ server: 'everything', tool: 'get-sum', resource: undefined });
    const navigation = useNavigationStore();
    navigation.follow(link);
    const servers = useServersStore();
    await servers.refresh();
    expect(servers.selectedId).toBe('everything');
    const tools = useToolsStore();
    await tools.load('everything');
    expect(tools.selectedName).toBe('get-sum');
  });

  it('follows a deep link to a tool the server does not list to that name, not to its first tool', async () => {
    const navigation = useNavigationStore();
    navigation.follow({ server: 'everything', tool: 'no-such-tool', resource: undefined });
    await useServersStore().refresh();
    const tools = useToolsStore();
    await tools.load('everything');
    // The Tools view then says the server lists no tool of that name (its missing-tool pane).
    expect(tools.selectedName).toBe('no-such-tool');
    expect(tools.selected).toBeNull();
  });
});
