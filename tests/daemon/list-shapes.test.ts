/**
 * Lists a server gets wrong (tools, resources, resource templates, prompts): what can be shown is
 * shown, and `resultProblem` says what the server got wrong, where it was an empty list and no word.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { fixtureStdio, startDaemon, type TestDaemon } from './helpers.ts';

/** Each list route, the key of its items, and what names an item. */
const LISTS = [
  { route: '/api/mcp/tools/list', key: 'tools', first: 'tool-0', second: 'tool-1', by: 'name' },
  {
    route: '/api/mcp/resources/list',
    key: 'resources',
    first: 'demo://resource/0',
    second: 'demo://resource/1',
    by: 'uri',
  },
  {
    route: '/api/mcp/resources/templates/list',
    key: 'resourceTemplates',
    first: 'demo://template/0/{id}',
    second: 'demo://template/1/{id}',
    by: 'uriTemplate',
  },
  { route: '/api/mcp/prompts/list', key: 'prompts', first: 'prompt-0', second: 'prompt-1', by: 'name' },
] as const;

/** A daemon with the raw fixture server whose lists break the rules as `mode` (LIST_MODES) says. */
async function daemonWithLists(mode: string): Promise<TestDaemon> {
  const d = await startDaemon();
  onTestFinished(() => d.close());
  const config = fixtureStdio('raw-server.ts');
  const put = await d.api('PUT', '/api/mcp/servers/raw', {
    config: { ...config, args: [...config.args!, mode] },
  });
  expect(put.status).toBe(201);
  return d;
}

const namesOf = (items: Array<Record<string, unknown>>, by: string): unknown[] =>
  items.map((item) => item[by]);

describe('lists a server gets wrong', () => {
  it('says so when the list is not an array, or missing, and shows none', async () => {
    for (const mode of ['not-array', 'missing']) {
      const d = await daemonWithLists(mode);
      for (const { route, key } of LISTS) {
        for (const page of [{}, { page: 'first' }]) {
          const listed = await d.api('POST', route, { serverId: 'raw', ...page });
          expect(listed.status, `${mode} ${route}`).toBe(200);
          expect(listed.body[key]).toEqual([]);
          expect(listed.body.resultProblem, `${mode} ${route}`).toBe(
            mode === 'missing'
              ? `the result has no "${key}" array: no ${key} shown`
              : `"${key}" is a JSON object, not an array: no ${key} shown`,
          );
        }
      }
    }
  });

  it('leaves out items that are not objects or lack their name, shows the rest, and names the ones left out', async () => {
    const d = await daemonWithLists('bad-items');
    for (const { route, key, first, second, by } of LISTS) {
      const listed = await d.api('POST', route, { serverId: 'raw' });
      expect(listed.status, route).toBe(200);
      expect(namesOf(listed.body[key], by)).toEqual([first, second]);
      expect(listed.body.resultProblem, route).toBe(
        `${key}.1, ${key}.2, ${key}.3, ${key}.4 are not objects: left out; ` +
          `${key}.5, ${key}.6 have no string "${by}": left out`,
      );
    }
    const tools = await d.api('POST', '/api/mcp/tools/list', { serverId: 'raw' });
    expect(tools.body.toolsMetadata).toEqual({});
  });

  it('takes a nextCursor that is not a string for the last page, and says so', async () => {
    const d = await daemonWithLists('cursor-not-string');
    for (const { route, key, first, by } of LISTS) {
      for (const page of [{}, { page: 'first' }]) {
        const listed = await d.api('POST', route, { serverId: 'raw', ...page });
        expect(listed.status, route).toBe(200);
        expect(namesOf(listed.body[key], by)).toEqual([first]);
        expect(listed.body).not.toHaveProperty('nextCursor');
        expect(listed.body.resultProblem, route).toBe(
          '"nextCursor" is a JSON number, not a string: taken for the last page',
        );
      }
    }
  });

  it('names the page that breaks the rules in a list of all pages, and asks for it by cursor too', async () => {
    const d = await daemonWithLists('bad-second-page');
    for (const { route, key, first, by } of LISTS) {
      const listed = await d.api('POST', route, { serverId: 'raw' });
      expect(listed.status, route).toBe(200);
      expect(namesOf(listed.body[key], by)).toEqual([first]);
      expect(listed.body.resultProblem, route).toBe(
        `page 2: "${key}" is a JSON string, not an array: no ${key} shown; ` +
          '"nextCursor" is null, not a string: taken for the last page',
      );
      const second = await d.api('POST', route, { serverId: 'raw', cursor: 'page-2' });
      expect(second.status, route).toBe(200);
      expect(second.body[key]).toEqual([]);
      expect(second.body.resultProblem).toMatch(new RegExp(`^"${key}" is a JSON string, not an array`));
    }
  });
});
