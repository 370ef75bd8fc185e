import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { extensionStore } from '../../extension/app/extension-store';
import { type KeyValueStore, localStorageStore } from '../../extension/app/key-value-store';
import { savedRequestsKey, useSavedRequestsStore } from '../../extension/saved-requests/saved-requests-store';
import {
  exportSavedRequests,
  filterSavedRequests,
  parseSavedRequestsExport,
  type SavedRequest,
  sortSavedRequests,
} from '../../shared/saved-requests.ts';

function request(overrides: Partial<SavedRequest>): SavedRequest {
  return {
    id: 'id-1',
    title: 'Echo hello',
    description: '',
    toolName: 'echo',
    parameters: { message: 'hello' },
    favorite: false,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A fresh Pinia is what a browser restart gives the panel: nothing in memory, only what storage kept. */
async function restart(
  kv: KeyValueStore,
  serverId = 'everything',
): Promise<ReturnType<typeof useSavedRequestsStore>> {
  setActivePinia(createPinia());
  const store = useSavedRequestsStore();
  await store.load(kv, serverId);
  return store;
}

describe('parseSavedRequestsExport', () => {
  it('reads the export format', () => {
    const entry = request({ favorite: true, description: 'says hello' });
    const parsed = parseSavedRequestsExport({ version: 1, serverId: 'everything', requests: [entry] });
    expect(parsed).toEqual({ requests: [entry], problems: [] });
  });

  it('reads a bare array and fills in optional fields', () => {
    const now = '2025-06-01T12:00:00.000Z';
    const parsed = parseSavedRequestsExport(
      [{ title: ' Add ', toolName: 'add', parameters: { a: 1, b: 2 } }],
      now,
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.requests).toEqual([
      {
        id: '',
        title: 'Add',
        description: '',
        toolName: 'add',
        parameters: { a: 1, b: 2 },
        favorite: false,
        createdAt: now,
        updatedAt: now,
      },
    ]);
  });

  it('keeps valid entries and lists every problem of the others by index', () => {
    const parsed = parseSavedRequestsExport({
      version: 1,
      serverId: 'everything',
      requests: [
        { title: 'ok', toolName: 'echo', parameters: {} },
        { toolName: 'echo', parameters: {} },
        { title: 'no tool', parameters: [] },
        'not an object',
        { title: 'bad params', toolName: 'echo', parameters: 'x=1' },
      ],
    });
    expect(parsed.requests.map((r) => r.title)).toEqual(['ok']);
    expect(parsed.problems).toEqual([
      'requests[1].title: must be a non-empty string',
      'requests[2].toolName: must be a non-empty string',
      'requests[2].parameters: must be an object',
      'requests[3]: must be an object',
      'requests[4].parameters: must be an object',
    ]);
  });

  it('names entries of a bare array by their index alone', () => {
    expect(parseSavedRequestsExport([{ title: 'x', toolName: 'echo', parameters: null }]).problems).toEqual([
      '[0].parameters: must be an object',
    ]);
  });

  it('rejects files that are neither shape, and unknown versions', () => {
    expect(parseSavedRequestsExport({ hello: 'world' }).problems[0]).toMatch(
      /neither a saved-requests export/,
    );
    expect(parseSavedRequestsExport(null).requests).toEqual([]);
    expect(parseSavedRequestsExport({ version: 2, serverId: 'x', requests: [request({})] })).toEqual({
      requests: [],
      problems: ['version: 2 is not supported (expected 1)'],
    });
  });
});

describe('exportSavedRequests', () => {
  it('writes version 1 with the server id, and reads back unchanged', () => {
    const requests = [request({ id: 'a' }), request({ id: 'b', title: 'Other' })];
    const file = exportSavedRequests('everything', requests);
    expect(file).toEqual({ version: 1, serverId: 'everything', requests });
    expect(parseSavedRequestsExport(JSON.parse(JSON.stringify(file))).requests).toEqual(requests);
  });
});

describe('sortSavedRequests and filterSavedRequests', () => {
  const old = request({ id: 'old', title: 'Old', updatedAt: '2025-01-01T00:00:00.000Z' });
  const recent = request({ id: 'recent', title: 'Recent', updatedAt: '2025-03-01T00:00:00.000Z' });
  const oldFavourite = request({
    id: 'fav',
    title: 'Fav',
    favorite: true,
    updatedAt: '2024-01-01T00:00:00.000Z',
  });

  it('puts favourites first, then the most recently updated, without changing the input', () => {
    const input = [old, recent, oldFavourite];
    expect(sortSavedRequests(input).map((r) => r.id)).toEqual(['fav', 'recent', 'old']);
    expect(input.map((r) => r.id)).toEqual(['old', 'recent', 'fav']);
  });

  it('filters on title, tool name and description, ignoring case', () => {
    const described = request({ id: 'd', title: 'Sum', toolName: 'add', description: 'Adds TWO numbers' });
    const all = [old, described];
    expect(filterSavedRequests(all, 'SUM').map((r) => r.id)).toEqual(['d']);
    expect(filterSavedRequests(all, 'add').map((r) => r.id)).toEqual(['d']);
    expect(filterSavedRequests(all, 'two').map((r) => r.id)).toEqual(['d']);
    expect(filterSavedRequests(all, '  ').map((r) => r.id)).toEqual(['old', 'd']);
  });
});

/** Each backend with a way to read what it wrote, below the KeyValueStore interface. */
const backends: Array<[string, () => KeyValueStore, (key: string) => Promise<unknown>]> = [
  [
    'extension storage',
    () => extensionStore(),
    async (key) => (await fakeBrowser.storage.local.get(key))[key],
  ],
  ['localStorage', () => localStorageStore(), async (key) => JSON.parse(localStorage.getItem(key) ?? 'null')],
];

describe.each(backends)('saved requests store over %s', (_name, makeStore, readRaw) => {
  let kv: KeyValueStore;

  beforeEach(() => {
    fakeBrowser.reset();
    localStorage.clear();
    kv = makeStore();
  });

  it('keeps a saved request across a restart, under savedRequests:<serverId>', async () => {
    const store = await restart(kv);
    const parameters = { message: 'hello' };
    const saved = await store.save({
      title: 'Echo hello',
      description: 'greets',
      toolName: 'echo',
      parameters,
    });
    parameters.message = 'changed after saving';

    expect(saved.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await readRaw('savedRequests:everything')).toEqual([saved]);

    const fresh = await restart(kv);
    expect(fresh.requests).toEqual([
      expect.objectContaining({
        id: saved.id,
        title: 'Echo hello',
        description: 'greets',
        toolName: 'echo',
        parameters: { message: 'hello' },
        favorite: false,
      }),
    ]);
  });

  it('keeps each server its own list', async () => {
    const store = await restart(kv, 'alpha');
    await store.save({ title: 'Alpha only', toolName: 'echo', parameters: {} });
    await store.load(kv, 'beta');
    expect(store.requests).toEqual([]);
    await store.save({ title: 'Beta only', toolName: 'add', parameters: { a: 1 } });

    expect((await restart(kv, 'alpha')).requests.map((r) => r.title)).toEqual(['Alpha only']);
    expect((await restart(kv, 'beta')).requests.map((r) => r.title)).toEqual(['Beta only']);
  });

  it('renames, duplicates, favourites and deletes, each written at once', async () => {
    const store = await restart(kv);
    const first = await store.save({ title: 'First', toolName: 'echo', parameters: { message: 'a' } });

    await store.rename(first.id, '  Renamed ', 'now described');
    const copy = await store.duplicate(first.id);
    await store.toggleFavorite(copy.id);

    let fresh = await restart(kv);
    expect(fresh.sorted.map((r) => [r.title, r.description, r.favorite])).toEqual([
      ['Renamed (copy)', 'now described', true],
      ['Renamed', 'now described', false],
    ]);
    expect(copy.id).not.toBe(first.id);
    expect(fresh.requests.find((r) => r.id === copy.id)?.parameters).toEqual({ message: 'a' });

    await fresh.toggleFavorite(copy.id);
    await fresh.remove(first.id);
    fresh = await restart(kv);
    expect(fresh.requests.map((r) => [r.id, r.favorite])).toEqual([[copy.id, false]]);
  });

  it('keeps the description when a rename gives only a title', async () => {
    const store = await restart(kv);
    const saved = await store.save({ title: 'T', description: 'kept', toolName: 'echo', parameters: {} });
    await store.rename(saved.id, 'New title');
    expect(store.requests[0]).toMatchObject({ title: 'New title', description: 'kept' });
  });

  it('refuses a request without a title or a tool, and ids it does not know', async () => {
    const store = await restart(kv);
    await expect(store.save({ title: '  ', toolName: 'echo', parameters: {} })).rejects.toThrow(/title/);
    await expect(store.save({ title: 'x', toolName: '', parameters: {} })).rejects.toThrow(/tool/);
    await expect(store.rename('missing', 'x')).rejects.toThrow(/No saved request/);
    expect(await kv.get(savedRequestsKey('everything'))).toBeUndefined();
  });

  it('refuses to write before it has read the stored list', async () => {
    setActivePinia(createPinia());
    const store = useSavedRequestsStore();
    await expect(store.save({ title: 'x', toolName: 'echo', parameters: {} })).rejects.toThrow(/before load/);
  });

  it('exports and imports back under new ids, next to what is there', async () => {
    const source = await restart(kv, 'alpha');
    const one = await source.save({
      title: 'One',
      description: 'first',
      toolName: 'echo',
      parameters: { n: 1 },
    });
    await source.save({ title: 'Two', toolName: 'add', parameters: { a: 1, b: 2 } });
    await source.toggleFavorite(one.id);
    const text = source.exportJson();
    expect(JSON.parse(text)).toMatchObject({ version: 1, serverId: 'alpha' });

    const target = await restart(kv, 'beta');
    await target.save({ title: 'Already here', toolName: 'echo', parameters: {} });
    expect(await target.importJson(text)).toEqual({ imported: 2, skipped: 0, problems: [] });

    const fresh = await restart(kv, 'beta');
    expect(fresh.sorted.map((r) => [r.title, r.toolName, r.parameters, r.favorite])).toEqual([
      ['One', 'echo', { n: 1 }, true],
      ['Already here', 'echo', {}, false],
      ['Two', 'add', { a: 1, b: 2 }, false],
    ]);
    const sourceIds = new Set(source.requests.map((r) => r.id));
    expect(fresh.requests.filter((r) => sourceIds.has(r.id))).toEqual([]);
    expect(new Set(fresh.requests.map((r) => r.id)).size).toBe(3);
  });

  it('imports the same file twice without duplicating an entry', async () => {
    const store = await restart(kv);
    const file = JSON.stringify([
      { id: 'fixed', title: 'A', toolName: 'echo', parameters: { text: 'hi', n: 1 } },
      { id: 'other', title: 'B', toolName: 'echo', parameters: {} },
    ]);
    expect(await store.importJson(file)).toEqual({ imported: 2, skipped: 0, problems: [] });
    expect(await store.importJson(file)).toEqual({ imported: 0, skipped: 2, problems: [] });
    expect((await restart(kv)).requests.map((r) => r.title)).toEqual(['A', 'B']);
  });

  it('takes the same title, tool and parameters as the same request, whatever the id, key order or star', async () => {
    const store = await restart(kv);
    await store.save({ title: 'A', toolName: 'echo', parameters: { text: 'hi', n: 1 } });
    const result = await store.importJson(
      JSON.stringify({
        version: 1,
        serverId: 'elsewhere',
        requests: [
          // The same request: another id, keys in another order, starred, described.
          {
            id: 'x',
            title: ' A ',
            toolName: 'echo',
            parameters: { n: 1, text: 'hi' },
            favorite: true,
            description: 'd',
          },
          // Each differs in one part of the identity.
          { title: 'A', toolName: 'echo', parameters: { text: 'hi', n: 2 } },
          { title: 'A', toolName: 'add', parameters: { text: 'hi', n: 1 } },
          { title: 'A copy', toolName: 'echo', parameters: { text: 'hi', n: 1 } },
          // Twice in the file: once.
          { title: 'A copy', toolName: 'echo', parameters: { n: 1, text: 'hi' } },
        ],
      }),
    );
    expect(result).toEqual({ imported: 3, skipped: 2, problems: [] });
    expect(store.requests.map((r) => [r.title, r.toolName, r.parameters])).toEqual([
      ['A', 'echo', { text: 'hi', n: 1 }],
      ['A', 'echo', { text: 'hi', n: 2 }],
      ['A', 'add', { text: 'hi', n: 1 }],
      ['A copy', 'echo', { text: 'hi', n: 1 }],
    ]);
    expect(store.requests[0]?.favorite).toBe(false);
  });

  it('refuses an entry whose parameters nest deeper than a call may send, and imports the others', async () => {
    const store = await restart(kv);
    const deep = (levels: number) => {
      let value: Record<string, unknown> = {};
      for (let i = 0; i < levels; i++) value = { a: value };
      return value;
    };
    // As a file carries it: JSON.parse takes 5,000 levels, where a recursive walk of them overflows.
    const text = `[{"title":"Deep","toolName":"echo","parameters":${'{"a":'.repeat(5000)}{}${'}'.repeat(5000)}},${JSON.stringify({ title: 'Edge', toolName: 'echo', parameters: deep(254) })}]`;
    expect(await store.importJson(text)).toEqual({
      imported: 1,
      skipped: 0,
      problems: ['[0].parameters: nested more than 255 levels deep, more than a call may send'],
    });
    expect((await restart(kv)).requests.map((r) => r.title)).toEqual(['Edge']);
  });

  it('reports an import that is not JSON, and imports the valid part of a mixed file', async () => {
    const store = await restart(kv);
    const notJson = await store.importJson('{ nope');
    expect(notJson.imported).toBe(0);
    expect(notJson.problems[0]).toMatch(/^The file is not valid JSON/);

    const mixed = await store.importJson(
      JSON.stringify([
        { title: 'Good', toolName: 'echo', parameters: {} },
        { title: 'Bad', parameters: {} },
      ]),
    );
    expect(mixed).toEqual({
      imported: 1,
      skipped: 0,
      problems: ['[1].toolName: must be a non-empty string'],
    });
    expect((await restart(kv)).requests.map((r) => r.title)).toEqual(['Good']);
  });
});
