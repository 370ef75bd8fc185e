import { describe, expect, it } from 'vitest';
import {
  allText,
  checkExpectations,
  describeExpectation,
  type Expectation,
  leafPaths,
  parseExpectations,
  parseJsonPath,
  queryJsonPath,
  snapshotOf,
  valueForEquals,
} from '../../shared/expectations.ts';
import { parseSavedRequestsExport } from '../../shared/saved-requests.ts';
import { vmTimeGuard } from '../../daemon/time-guard.ts';

/** As `inspector-daemon test` checks them: each regular expression within a time budget. */
const guarded = { guard: vmTimeGuard };

const echo = { content: [{ type: 'text', text: 'Echo: hello' }] };
const failed = { content: [{ type: 'text', text: 'Invalid arguments: message is required' }], isError: true };
const structured = {
  content: [
    { type: 'text', text: 'first' },
    { type: 'text', text: 'second' },
  ],
  structuredContent: { temperature: 21.5, city: 'Paris', at: '2025-01-01T10:00:00Z', tags: ['a', 'b'] },
};
const weatherSchema = {
  type: 'object',
  properties: { temperature: { type: 'number' }, city: { type: 'string' } },
  required: ['temperature', 'city'],
};

function one(
  expectation: Expectation,
  result: unknown,
  extra: { latencyMs?: number; outputSchema?: Record<string, unknown> } = {},
) {
  const [outcome] = checkExpectations([expectation], { result, ...extra }, guarded);
  return outcome!;
}

describe('checkExpectations', () => {
  it('returns one outcome per expectation, in order, each naming its expectation', () => {
    const expectations: Expectation[] = [
      { kind: 'noError' },
      { kind: 'isError' },
      { kind: 'text', text: 'hello' },
    ];
    const outcomes = checkExpectations(expectations, { result: echo });
    expect(outcomes.map((o) => [o.expectation, o.pass])).toEqual([
      [expectations[0], true],
      [expectations[1], false],
      [expectations[2], true],
    ]);
    expect(checkExpectations([], { result: echo })).toEqual([]);
  });

  it('noError passes on a success and fails on isError, quoting the error text', () => {
    expect(one({ kind: 'noError' }, echo)).toMatchObject({ pass: true, message: 'No error' });
    const outcome = one({ kind: 'noError' }, failed);
    expect(outcome.pass).toBe(false);
    expect(outcome.message).toContain('Invalid arguments: message is required');
  });

  it('isError passes on isError and fails on a success', () => {
    expect(one({ kind: 'isError' }, failed).pass).toBe(true);
    expect(one({ kind: 'isError' }, echo)).toMatchObject({
      pass: false,
      message: 'Expected an error (isError: true), but the call succeeded',
    });
  });

  it('outputSchema validates structuredContent, and says why it cannot when there is no schema', () => {
    expect(one({ kind: 'outputSchema' }, structured, { outputSchema: weatherSchema })).toMatchObject({
      pass: true,
      message: 'Valid against outputSchema',
    });
    const wrong = { ...structured, structuredContent: { temperature: 'warm', city: 'Paris' } };
    const outcome = one({ kind: 'outputSchema' }, wrong, { outputSchema: weatherSchema });
    expect(outcome.pass).toBe(false);
    expect(outcome.message).toMatch(/^Does not match outputSchema: \/temperature /);
    expect(one({ kind: 'outputSchema' }, echo, { outputSchema: weatherSchema }).message).toContain(
      'structuredContent is missing',
    );
    expect(one({ kind: 'outputSchema' }, structured)).toMatchObject({
      pass: false,
      message: 'The tool declares no outputSchema to validate against',
    });
    expect(one({ kind: 'outputSchema' }, failed, { outputSchema: weatherSchema }).pass).toBe(false);
  });

  describe('jsonPath', () => {
    it('exists passes when the path matches something, including a wildcard', () => {
      expect(one({ kind: 'jsonPath', path: '$.structuredContent.city', op: 'exists' }, structured).pass).toBe(
        true,
      );
      expect(one({ kind: 'jsonPath', path: '$.content[*].text', op: 'exists' }, structured).pass).toBe(true);
      expect(
        one({ kind: 'jsonPath', path: '$.structuredContent.missing', op: 'exists' }, structured),
      ).toMatchObject({ pass: false, message: '$.structuredContent.missing matches nothing in the result' });
      expect(one({ kind: 'jsonPath', path: '$.content[5]', op: 'exists' }, structured).pass).toBe(false);
    });

    it('equals compares one value, or the list a wildcard matches, key order aside', () => {
      expect(
        one({ kind: 'jsonPath', path: '$.structuredContent.tags[0]', op: 'equals', value: 'a' }, structured)
          .pass,
      ).toBe(true);
      expect(
        one(
          { kind: 'jsonPath', path: '$.content[*].text', op: 'equals', value: ['first', 'second'] },
          structured,
        ).pass,
      ).toBe(true);
      expect(
        one(
          { kind: 'jsonPath', path: "$['content'][0]", op: 'equals', value: { text: 'first', type: 'text' } },
          structured,
        ).pass,
      ).toBe(true);
      const outcome = one(
        { kind: 'jsonPath', path: '$.structuredContent.temperature', op: 'equals', value: 20 },
        structured,
      );
      expect(outcome).toMatchObject({
        pass: false,
        message: '$.structuredContent.temperature: expected 20, got 21.5',
      });
      expect(
        one({ kind: 'jsonPath', path: '$.nothing', op: 'equals', value: null }, structured).message,
      ).toBe('$.nothing matches nothing in the result');
    });

    it('notEquals passes on any other value and fails on the value itself', () => {
      expect(
        one(
          { kind: 'jsonPath', path: '$.structuredContent.city', op: 'notEquals', value: 'Rome' },
          structured,
        ),
      ).toMatchObject({ pass: true, message: '$.structuredContent.city is not "Rome"' });
      expect(
        one(
          { kind: 'jsonPath', path: '$.structuredContent.city', op: 'notEquals', value: 'Paris' },
          structured,
        ),
      ).toMatchObject({
        pass: false,
        message: '$.structuredContent.city: expected anything but "Paris", got it',
      });
      expect(
        one({ kind: 'jsonPath', path: '$.nothing', op: 'notEquals', value: 1 }, structured).message,
      ).toBe('$.nothing matches nothing in the result');
    });

    it('lt, lte, gt and gte compare numbers, or strings, and hold for every value a wildcard matches', () => {
      const path = '$.structuredContent.temperature';
      expect(one({ kind: 'jsonPath', path, op: 'gt', value: 20 }, structured)).toMatchObject({
        pass: true,
        message: '$.structuredContent.temperature > 20',
      });
      expect(one({ kind: 'jsonPath', path, op: 'gte', value: 21.5 }, structured).pass).toBe(true);
      expect(one({ kind: 'jsonPath', path, op: 'lte', value: 21.5 }, structured).pass).toBe(true);
      expect(one({ kind: 'jsonPath', path, op: 'lt', value: 21.5 }, structured)).toMatchObject({
        pass: false,
        message: '$.structuredContent.temperature: expected < 21.5, got 21.5',
      });
      expect(
        one({ kind: 'jsonPath', path: '$.structuredContent.at', op: 'gte', value: '2025-01-01' }, structured)
          .pass,
      ).toBe(true);
      expect(
        one({ kind: 'jsonPath', path: '$.structuredContent.city', op: 'gt', value: 3 }, structured),
      ).toMatchObject({
        pass: false,
        message: '$.structuredContent.city: expected a number > 3, got "Paris"',
      });
      const items = { structuredContent: { prices: [3, 7, 12] } };
      expect(
        one({ kind: 'jsonPath', path: '$.structuredContent.prices[*]', op: 'gt', value: 0 }, items),
      ).toMatchObject({
        pass: true,
        message: 'All 3 values of $.structuredContent.prices[*] are > 0',
      });
      expect(
        one({ kind: 'jsonPath', path: '$.structuredContent.prices[*]', op: 'lt', value: 10 }, items),
      ).toMatchObject({
        pass: false,
        message: '$.structuredContent.prices[*] (value 3 of 3): expected < 10, got 12',
      });
      expect(one({ kind: 'jsonPath', path: '$.nothing[*]', op: 'lt', value: 10 }, items).pass).toBe(false);
    });

    it('matches tests a regular expression against strings and the JSON of other values', () => {
      expect(
        one({ kind: 'jsonPath', path: '$.content[*].text', op: 'matches', pattern: '^sec' }, structured).pass,
      ).toBe(true);
      expect(
        one(
          { kind: 'jsonPath', path: '$.structuredContent.temperature', op: 'matches', pattern: '/^21\\./' },
          structured,
        ).pass,
      ).toBe(true);
      expect(
        one(
          { kind: 'jsonPath', path: '$.structuredContent.city', op: 'matches', pattern: '/paris/i' },
          structured,
        ).pass,
      ).toBe(true);
      const outcome = one(
        { kind: 'jsonPath', path: '$.content[*].text', op: 'matches', pattern: '^third' },
        structured,
      );
      expect(outcome.pass).toBe(false);
      expect(outcome.message).toBe(
        '$.content[*].text does not match /^third/: none of 2 values, first "first"',
      );
    });

    it('an unsupported path fails with the supported syntax instead of throwing', () => {
      const outcome = one({ kind: 'jsonPath', path: '$..text', op: 'exists' }, structured);
      expect(outcome.pass).toBe(false);
      expect(outcome.message).toContain('is not understood at "..text"');
      expect(one({ kind: 'jsonPath', path: 'content', op: 'exists' }, structured).message).toContain(
        'must start with $',
      );
    });
  });

  describe('text', () => {
    it('a plain string must be contained in the text content', () => {
      expect(one({ kind: 'text', text: 'Echo: hello' }, echo).pass).toBe(true);
      const outcome = one({ kind: 'text', text: 'Echo: bye' }, echo);
      expect(outcome).toMatchObject({
        pass: false,
        message: 'Expected the text to contain "Echo: bye", got "Echo: hello"',
      });
    });

    it('a /regex/ with flags must match the text content', () => {
      expect(one({ kind: 'text', text: '/^echo: h.llo$/i' }, echo).pass).toBe(true);
      expect(one({ kind: 'text', text: '/^second/m' }, structured).pass).toBe(true);
      expect(one({ kind: 'text', text: '/^bye/' }, echo)).toMatchObject({ pass: false });
      // The g flag would make repeated checks alternate; it is ignored.
      const twice = checkExpectations(
        [
          { kind: 'text', text: '/hello/g' },
          { kind: 'text', text: '/hello/g' },
        ],
        { result: echo },
        guarded,
      );
      expect(twice.map((o) => o.pass)).toEqual([true, true]);
    });

    it('an invalid regular expression is a failed expectation with a clear message', () => {
      const outcome = one({ kind: 'text', text: '/(unclosed/' }, echo);
      expect(outcome.pass).toBe(false);
      expect(outcome.message).toMatch(/^The regular expression "\/\(unclosed\/" is invalid: /);
      const path = one({ kind: 'jsonPath', path: '$.content[0].text', op: 'matches', pattern: '[a-' }, echo);
      expect(path.pass).toBe(false);
      expect(path.message).toMatch(/^The regular expression "\[a-" is invalid: /);
      expect(one({ kind: 'text', text: '/x/q' }, echo).message).toContain('is invalid');
    });

    it('reads text items and embedded resources, one per line', () => {
      const result = {
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a', text: 'two' } },
        ],
      };
      expect(allText(result)).toBe('one\ntwo');
      expect(one({ kind: 'text', text: '/^two$/m' }, result).pass).toBe(true);
    });
  });

  it('latency passes within the budget and fails over it or when unmeasured', () => {
    expect(one({ kind: 'latency', maxMs: 500 }, echo, { latencyMs: 120 })).toMatchObject({
      pass: true,
      message: 'Took 120 ms (budget 500 ms)',
    });
    expect(one({ kind: 'latency', maxMs: 500 }, echo, { latencyMs: 500 }).pass).toBe(true);
    expect(one({ kind: 'latency', maxMs: 100 }, echo, { latencyMs: 250.4 })).toMatchObject({
      pass: false,
      message: 'Took 250 ms, over the budget of 100 ms',
    });
    expect(one({ kind: 'latency', maxMs: 100 }, echo)).toMatchObject({
      pass: false,
      message: 'The call has no measured latency',
    });
    expect(one({ kind: 'latency', maxMs: Number.NaN }, echo, { latencyMs: 1 }).pass).toBe(false);
  });

  describe('snapshot', () => {
    it('passes on an equal result whatever the key order, and names the first difference', () => {
      const snapshot = snapshotOf(structured);
      const reordered = {
        structuredContent: { ...structured.structuredContent },
        content: structured.content,
      };
      expect(one({ kind: 'snapshot', value: snapshot, ignore: [] }, reordered)).toMatchObject({
        pass: true,
        message: 'Matches the snapshot',
      });
      const changed = { ...structured, content: [structured.content[0], { type: 'text', text: 'changed' }] };
      expect(one({ kind: 'snapshot', value: snapshot, ignore: [] }, changed)).toMatchObject({
        pass: false,
        message: 'Differs from the snapshot: $.content[1].text: expected "second", got "changed"',
      });
      const extra = { ...structured, isError: false };
      expect(one({ kind: 'snapshot', value: snapshot, ignore: [] }, extra).message).toBe(
        'Differs from the snapshot: $.isError: not expected, got false',
      );
      const shorter = { ...structured, content: [structured.content[0]] };
      expect(one({ kind: 'snapshot', value: snapshot, ignore: [] }, shorter).message).toBe(
        'Differs from the snapshot: $.content: expected 2 items, got 1',
      );
    });

    it('leaves ignored paths out of both sides, wildcards included', () => {
      const ignore = ['$.structuredContent.at', '$._meta'];
      const value = snapshotOf({ ...structured, _meta: { requestId: 1 } }, ignore);
      expect(value).not.toHaveProperty('_meta');
      expect(value).not.toHaveProperty('structuredContent.at');
      const later = {
        ...structured,
        structuredContent: { ...structured.structuredContent, at: '2026-06-01T00:00:00Z' },
        _meta: { requestId: 2 },
      };
      expect(one({ kind: 'snapshot', value, ignore }, later)).toMatchObject({
        pass: true,
        message: 'Matches the snapshot (ignoring $.structuredContent.at, $._meta)',
      });
      const items = {
        content: [
          { type: 'text', text: 'a', id: 1 },
          { type: 'text', text: 'b', id: 2 },
        ],
      };
      const renumbered = {
        content: [
          { type: 'text', text: 'a', id: 7 },
          { type: 'text', text: 'b', id: 8 },
        ],
      };
      expect(one({ kind: 'snapshot', value: items, ignore: ['$.content[*].id'] }, renumbered).pass).toBe(
        true,
      );
      expect(one({ kind: 'snapshot', value: items, ignore: [] }, renumbered).pass).toBe(false);
      expect(one({ kind: 'snapshot', value: items, ignore: ['$..id'] }, renumbered).message).toMatch(
        /^Ignored path: /,
      );
    });
  });

  describe('hostile input', () => {
    it('checks a result of megabytes and keeps messages short', () => {
      const huge = {
        content: Array.from({ length: 2_000 }, (_, i) => ({
          type: 'text',
          text: `${i}:${'x'.repeat(1_000)}`,
        })),
      };
      const outcomes = checkExpectations(
        [
          { kind: 'text', text: 'not there' },
          { kind: 'snapshot', value: snapshotOf(huge), ignore: [] },
          { kind: 'jsonPath', path: '$.content[*].text', op: 'equals', value: [] },
          { kind: 'text', text: '/1999:x+$/' },
        ],
        { result: huge },
        guarded,
      );
      expect(outcomes.map((o) => o.pass)).toEqual([false, true, false, true]);
      expect(outcomes[0]!.message.length).toBeLessThan(300);
      expect(outcomes[0]!.message).toMatch(/… \(\d+ characters\)"?$/);
      expect(outcomes[2]!.message).toBe('$.content[*].text: expected 0 items, got 2000');
    });

    it('a deeply nested result fails a snapshot instead of overflowing the stack', () => {
      let deep: unknown = 'bottom';
      for (let i = 0; i < 20_000; i++) deep = [deep];
      const [outcome] = checkExpectations([{ kind: 'snapshot', value: [], ignore: [] }], { result: deep });
      expect(outcome).toMatchObject({ pass: false, message: 'The result nests deeper than 1024 levels' });
      const [path] = checkExpectations([{ kind: 'jsonPath', path: '$[0][0][0]', op: 'exists' }], {
        result: deep,
      });
      expect(path!.pass).toBe(true);
    });

    it('a result that is not an object, and expectations of unknown shape, fail without throwing', () => {
      const outcomes = checkExpectations(
        [
          { kind: 'noError' },
          { kind: 'outputSchema' },
          { kind: 'text', text: 'x' },
          { kind: 'nonsense' } as unknown as Expectation,
          { kind: 'jsonPath', path: 42, op: 'exists' } as unknown as Expectation,
          { kind: 'text', text: null } as unknown as Expectation,
          { kind: 'snapshot', value: 1 } as unknown as Expectation,
        ],
        { result: null, outputSchema: weatherSchema },
      );
      expect(outcomes.map((o) => o.pass)).toEqual([true, false, false, false, false, false, false]);
      expect(outcomes[3]!.message).toBe('Unknown expectation kind "nonsense"');
      expect(outcomes[4]!.message).toBe('The JSON path 42 is not a string');
    });
  });
});

describe('parseJsonPath', () => {
  it('reads the supported subset', () => {
    expect(parseJsonPath('$')).toEqual([]);
    expect(parseJsonPath('$.a.b[0]')).toEqual([{ key: 'a' }, { key: 'b' }, { index: 0 }]);
    expect(parseJsonPath('$.content[*].text')).toEqual([
      { key: 'content' },
      { wildcard: true },
      { key: 'text' },
    ]);
    expect(parseJsonPath('$["odd key"][\'x\'].*')).toEqual([
      { key: 'odd key' },
      { key: 'x' },
      { wildcard: true },
    ]);
    expect(parseJsonPath('$.a[-1]')).toMatch(/not understood at "\[-1\]"/);
  });
});

describe('describeExpectation', () => {
  it('labels each kind', () => {
    expect(
      [
        { kind: 'noError' },
        { kind: 'isError' },
        { kind: 'outputSchema' },
        { kind: 'jsonPath', path: '$.a', op: 'exists' },
        { kind: 'jsonPath', path: '$.a', op: 'equals', value: 1 },
        { kind: 'jsonPath', path: '$.a', op: 'matches', pattern: '^x' },
        { kind: 'jsonPath', path: '$.a', op: 'notEquals', value: 'b' },
        { kind: 'jsonPath', path: '$.a', op: 'lt', value: 5 },
        { kind: 'jsonPath', path: '$.a', op: 'gte', value: 0 },
        { kind: 'text', text: 'hi' },
        { kind: 'text', text: '/hi/i' },
        { kind: 'latency', maxMs: 300 },
        { kind: 'snapshot', value: {}, ignore: [] },
        { kind: 'snapshot', value: {}, ignore: ['$._meta'] },
      ].map((e) => describeExpectation(e as Expectation)),
    ).toEqual([
      'No error',
      'Is an error',
      'structuredContent valid against outputSchema',
      '$.a exists',
      '$.a equals 1',
      '$.a matches ^x',
      '$.a is not "b"',
      '$.a < 5',
      '$.a >= 0',
      'Text contains "hi"',
      'Text matches /hi/i',
      'Takes at most 300 ms',
      'Matches snapshot',
      'Matches snapshot (ignoring $._meta)',
    ]);
  });
});

describe('expectations in the export format', () => {
  const entry = { title: 'Echo', toolName: 'echo', parameters: { message: 'hi' } };

  it('old exports without expectations still import, with none', () => {
    const { requests, problems } = parseSavedRequestsExport({ version: 1, serverId: 's', requests: [entry] });
    expect(problems).toEqual([]);
    expect(requests[0]).not.toHaveProperty('expectations');
  });

  it('expectations are read with the request', () => {
    const expectations = [
      { kind: 'noError' },
      { kind: 'text', text: 'Echo: hi' },
      { kind: 'jsonPath', path: '$.content[0].text', op: 'equals', value: 'Echo: hi' },
      { kind: 'latency', maxMs: 1000 },
      { kind: 'snapshot', value: { content: [] } },
    ];
    const { requests, problems } = parseSavedRequestsExport([{ ...entry, expectations }]);
    expect(problems).toEqual([]);
    expect(requests[0]!.expectations).toEqual([
      ...expectations.slice(0, 4),
      { kind: 'snapshot', value: { content: [] }, ignore: [] },
    ]);
  });

  it('a malformed expectation keeps its request out and is named by index', () => {
    const { requests, problems } = parseSavedRequestsExport([
      { ...entry, expectations: [{ kind: 'noError' }, { kind: 'latency', maxMs: '5' }, { kind: 'guess' }] },
      { ...entry, title: 'Other', expectations: 'none' },
    ]);
    expect(requests).toEqual([]);
    expect(problems).toEqual([
      '[0].expectations[1]: maxMs must be a number of milliseconds',
      '[0].expectations[2]: kind must be one of noError, isError, outputSchema, jsonPath, text, latency, snapshot',
      '[1].expectations: must be an array',
    ]);
    expect(parseExpectations([{ kind: 'jsonPath', path: '$.a', op: 'equals' }], 'e').problems).toEqual([
      'e[0]: value is required with op "equals"',
    ]);
    expect(
      parseExpectations(
        [
          { kind: 'jsonPath', path: '$.a', op: 'gt', value: [1] },
          { kind: 'jsonPath', path: '$.a', op: 'between' },
          { kind: 'jsonPath', path: '$.a', op: 'lte', value: 3 },
        ],
        'e',
      ),
    ).toEqual({
      expectations: [{ kind: 'jsonPath', path: '$.a', op: 'lte', value: 3 }],
      problems: [
        'e[0]: value must be a number or a string with op "gt"',
        'e[1]: op must be one of exists, equals, notEquals, lt, lte, gt, gte, matches',
      ],
    });
  });
});

describe('paths for the panel', () => {
  it('queryJsonPath answers the matched values, or what is wrong with the path', () => {
    expect(queryJsonPath('$.structuredContent.tags[*]', structured)).toEqual(['a', 'b']);
    expect(queryJsonPath('$.nothing', structured)).toEqual([]);
    expect(queryJsonPath('$..x', structured)).toMatch(/not understood/);
  });

  it('valueForEquals gives what an equals expectation needs to pass, as the check compares it', () => {
    expect(valueForEquals('$.structuredContent.city', structured)).toEqual({ value: 'Paris' });
    expect(valueForEquals('$.content[*].text', structured)).toEqual({ value: ['first', 'second'] });
    expect(valueForEquals('$["odd*key"]', { 'odd*key': 1 })).toEqual({ value: 1 });
    expect(valueForEquals('$.nothing', structured)).toBeNull();
    expect(valueForEquals('$.nothing[*]', structured)).toBeNull();
    expect(valueForEquals('nope', structured)).toMatch(/must start with \$/);
    for (const path of ['$.structuredContent.tags', '$.content[*].type']) {
      const { value } = valueForEquals(path, structured) as { value: unknown };
      expect(one({ kind: 'jsonPath', path, op: 'equals', value }, structured).pass).toBe(true);
    }
  });

  it('leafPaths lists leaves in document order, in the syntax expectations read, up to a limit', () => {
    const value = { content: [{ type: 'text', text: 'hi' }], 'odd key': { empty: [] }, n: null };
    const paths = leafPaths(value, 100);
    expect(paths).toEqual(['$.content[0].type', '$.content[0].text', '$["odd key"].empty', '$.n']);
    for (const path of paths) expect(queryJsonPath(path, value)).toHaveLength(1);
    expect(leafPaths(value, 2)).toEqual(['$.content[0].type', '$.content[0].text']);
    expect(leafPaths('plain', 10)).toEqual(['$']);
  });

  it('leafPaths takes the first leaves of a list of 300,000 items (the stack held them all and overflowed)', () => {
    const items = Array.from({ length: 300_000 }, (_, i) => ({ i }));
    expect(leafPaths({ structuredContent: { items } }, 3)).toEqual([
      '$.structuredContent.items[0].i',
      '$.structuredContent.items[1].i',
      '$.structuredContent.items[2].i',
    ]);
    expect(leafPaths(items, 200_000)).toHaveLength(200_000);
  });
});

describe('regular expressions that backtrack catastrophically', { timeout: 10_000 }, () => {
  // `^(a|a)*$` on forty `a`s and a `!` backtracks 2^40 times: hours, were it not cut short.
  const evil = 'a'.repeat(40) + '!';
  const result = {
    content: [{ type: 'text', text: evil }],
    structuredContent: { x: evil },
  };
  const budget = { guard: vmTimeGuard, budgetMs: 200 };

  it('a matches expectation is not checked past the time budget, and says so', () => {
    const [outcome] = checkExpectations(
      [{ kind: 'jsonPath', path: '$.structuredContent.x', op: 'matches', pattern: '^(a|a)*$' }],
      { result },
      budget,
    );
    expect(outcome).toMatchObject({
      pass: false,
      notChecked: true,
      message: 'Not checked: pattern not checked: it took longer than 200 ms',
    });
  });

  it('a /text/ expectation likewise', () => {
    const [outcome] = checkExpectations([{ kind: 'text', text: '/^(a|a)*$/' }], { result }, budget);
    expect(outcome).toMatchObject({ pass: false, notChecked: true });
  });

  it("an outputSchema's pattern likewise; the rest of the schema is still checked", () => {
    const outputSchema = {
      type: 'object',
      properties: { x: { type: 'string', pattern: '^(a|a)*$' } },
    };
    const [outcome] = checkExpectations([{ kind: 'outputSchema' }], { result, outputSchema }, budget);
    expect(outcome).toMatchObject({
      pass: false,
      notChecked: true,
      message:
        'Not checked: pattern not checked: it took longer than 200 ms; the rest of the outputSchema holds',
    });
    const wrongType = { type: 'object', properties: { x: { type: 'number', pattern: '^(a|a)*$' } } };
    const [typed] = checkExpectations(
      [{ kind: 'outputSchema' }],
      { result, outputSchema: wrongType },
      budget,
    );
    expect(typed!.pass).toBe(false);
    expect(typed!.message).toMatch(/Does not match outputSchema: \/x/);
  });

  it('without a time guard, no regular expression runs: it is reported as not checked', () => {
    const [outcome] = checkExpectations([{ kind: 'text', text: '/^(a|a)*$/' }], { result });
    expect(outcome).toMatchObject({
      pass: false,
      notChecked: true,
      message: 'Not checked: pattern not checked here: it needs a time limit',
    });
  });
});
