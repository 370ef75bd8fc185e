// @vitest-environment node
/**
 * The prompts store against a real daemon with server-everything and the tools fixture: listing a
 * server's prompts, a server that offers none, and `prompts/get` sent only once every required argument
 * has a value, with only the arguments that have one.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { usePromptsStore } from '../../extension/prompts/prompts-store';
import { everythingStdio, fixtureStdio, startDaemon, type TestDaemon } from '../daemon/helpers';
import { pairWith } from './daemon-pairing';

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startDaemon();
  for (const [id, config] of [
    ['everything', everythingStdio()],
    ['fixture', fixtureStdio('tools-server.ts')],
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

/** The messages of a `prompts/get` result as `role: text`. */
const messagesOf = (result: Record<string, unknown> | undefined): string[] =>
  ((result?.messages as Array<{ role: string; content: { text?: string } }> | undefined) ?? []).map(
    (m) => `${m.role}: ${m.content.text ?? ''}`,
  );

describe('prompts store', () => {
  it("lists a server's prompts, selects the first and filters by a query", async () => {
    const prompts = usePromptsStore();
    await prompts.load('everything');
    expect(prompts.listError).toBeNull();
    expect(prompts.unsupported).toBe(false);
    const names = prompts.prompts.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['simple-prompt', 'args-prompt', 'completable-prompt']));
    expect(prompts.selectedName).toBe(names[0]);
    prompts.query = 'args-';
    expect(prompts.filtered.map((p) => p.name)).toEqual(['args-prompt']);
  });

  it('says a server that answers prompts/list with "Method not found" offers no prompts', async () => {
    const prompts = usePromptsStore();
    await prompts.load('fixture');
    expect(prompts.unsupported).toBe(true);
    expect(prompts.listError).toBeNull();
    expect(prompts.prompts).toEqual([]);
  });

  it('gets a prompt only once its required arguments have values, sending only those with one', async () => {
    const prompts = usePromptsStore();
    await prompts.load('everything');
    prompts.select('args-prompt');
    expect(prompts.missing).toEqual(['city']);
    await prompts.get();
    expect(prompts.run).toBeNull();

    prompts.setValue('city', 'Oslo');
    prompts.setValue('state', '   ');
    expect(prompts.missing).toEqual([]);
    await prompts.get();
    expect(prompts.run?.loading).toBe(false);
    expect(prompts.run?.error).toBeUndefined();
    // The state of only spaces was not sent: the prompt leaves it out of its question.
    expect(messagesOf(prompts.run?.result)).toEqual(["user: What's weather in Oslo?"]);

    prompts.setValue('state', 'Viken');
    await prompts.get();
    expect(messagesOf(prompts.run?.result)).toEqual(["user: What's weather in Oslo, Viken?"]);
  });
});
