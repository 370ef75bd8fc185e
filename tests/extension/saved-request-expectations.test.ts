import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { extensionStore } from '../../extension/app/extension-store';
import type { KeyValueStore } from '../../extension/app/key-value-store';
import { useSavedRequestsStore } from '../../extension/saved-requests/saved-requests-store';
import { sameParameters } from '../../shared/saved-requests.ts';

/** A fresh Pinia is what a browser restart gives the panel: nothing in memory, only what storage kept. */
async function restart(kv: KeyValueStore): Promise<ReturnType<typeof useSavedRequestsStore>> {
  setActivePinia(createPinia());
  const store = useSavedRequestsStore();
  await store.load(kv, 'everything');
  return store;
}

describe('expectations of saved requests in the panel', () => {
  let kv: KeyValueStore;

  beforeEach(() => {
    fakeBrowser.reset();
    kv = extensionStore();
  });

  it('a saved request is attached to its tool, and expectations added to it survive a restart', async () => {
    const store = await restart(kv);
    const saved = await store.save({ title: 'Echo', toolName: 'echo', parameters: { message: 'hi' } });
    expect(store.attachedTo('echo')?.id).toBe(saved.id);
    expect(store.attachedTo('get-sum')).toBeNull();
    await store.addExpectation(saved.id, { kind: 'noError' });
    await store.addExpectation(saved.id, { kind: 'snapshot', value: { content: [] }, ignore: [] });

    const again = await restart(kv);
    expect(again.requests[0]!.expectations).toEqual([
      { kind: 'noError' },
      { kind: 'snapshot', value: { content: [] }, ignore: [] },
    ]);
    // A restart forgets which form came from which request; loading it attaches it again.
    expect(again.attachedTo('echo')).toBeNull();
    again.attach('echo', saved.id);
    expect(again.attachedTo('echo')?.title).toBe('Echo');
    again.attach('echo', null);
    expect(again.attachedTo('echo')).toBeNull();
  });

  it('adding replaces what it contradicts or repeats, and removing the last leaves none', async () => {
    const store = await restart(kv);
    const { id } = await store.save({ title: 'Echo', toolName: 'echo', parameters: {} });
    await store.addExpectation(id, { kind: 'noError' });
    await store.addExpectation(id, { kind: 'jsonPath', path: '$.a', op: 'equals', value: 1 });
    await store.addExpectation(id, { kind: 'jsonPath', path: '$.a', op: 'gt', value: 0 });
    await store.addExpectation(id, { kind: 'isError' });
    await store.addExpectation(id, { kind: 'jsonPath', path: '$.a', op: 'equals', value: 2 });
    expect(store.attachedTo('echo')!.expectations).toEqual([
      { kind: 'jsonPath', path: '$.a', op: 'gt', value: 0 },
      { kind: 'isError' },
      { kind: 'jsonPath', path: '$.a', op: 'equals', value: 2 },
    ]);
    await store.replaceExpectation(id, 1, { kind: 'latency', maxMs: 300 });
    expect(store.attachedTo('echo')!.expectations![1]).toEqual({ kind: 'latency', maxMs: 300 });
    await expect(store.replaceExpectation(id, 9, { kind: 'noError' })).rejects.toThrow(/No expectation 9/);
    for (let i = 0; i < 3; i++) await store.removeExpectation(id, 0);
    expect(store.attachedTo('echo')).not.toHaveProperty('expectations');
    expect((await restart(kv)).requests[0]).not.toHaveProperty('expectations');
  });

  it('keeps new parameters for a request, and tells parameters apart whatever their key order', async () => {
    const store = await restart(kv);
    const { id } = await store.save({ title: 'Sum', toolName: 'get-sum', parameters: { a: 1, b: 2 } });
    await store.updateParameters(id, { b: 5, a: 1 });
    expect((await restart(kv)).requests[0]!.parameters).toEqual({ a: 1, b: 5 });
    expect(sameParameters({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(sameParameters({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [2, 1] } })).toBe(false);
    expect(sameParameters({ a: 1 }, { a: 1, b: null })).toBe(false);
  });

  it('export and import carry the expectations', async () => {
    const store = await restart(kv);
    const { id } = await store.save({ title: 'Echo', toolName: 'echo', parameters: { message: 'hi' } });
    await store.addExpectation(id, { kind: 'text', text: '/^Echo: hi$/' });
    const file = store.exportJson();
    expect(JSON.parse(file).requests[0].expectations).toEqual([{ kind: 'text', text: '/^Echo: hi$/' }]);

    fakeBrowser.reset();
    const other = await restart(extensionStore());
    expect(await other.importJson(file)).toEqual({ imported: 1, skipped: 0, problems: [] });
    expect(other.requests[0]!.expectations).toEqual([{ kind: 'text', text: '/^Echo: hi$/' }]);
  });
});
