import { describe, expect, it } from 'vitest';
import { validateStructuredContent } from '../../shared/output-validation.ts';
import { vmTimeGuard } from '../../daemon/time-guard.ts';

const countSchema = {
  type: 'object',
  properties: { count: { type: 'integer' } },
  required: ['count'],
};

describe('validateStructuredContent', () => {
  it('checks nothing when the tool has no outputSchema', () => {
    expect(validateStructuredContent(undefined, { content: [], structuredContent: { anything: 1 } })).toEqual(
      {
        checked: false,
        problems: [],
      },
    );
  });

  it('accepts structuredContent that matches the outputSchema', () => {
    expect(validateStructuredContent(countSchema, { content: [], structuredContent: { count: 3 } })).toEqual({
      checked: true,
      problems: [],
    });
  });

  it('requires structuredContent when the tool declares an outputSchema', () => {
    const outcome = validateStructuredContent(countSchema, { content: [{ type: 'text', text: '3' }] });
    expect(outcome.checked).toBe(true);
    expect(outcome.problems).toHaveLength(1);
    expect(outcome.problems[0]?.path).toBe('');
    expect(outcome.problems[0]?.message).toMatch(/structuredContent .*required by the outputSchema/);
  });

  it('does not require structuredContent from an error result', () => {
    const outcome = validateStructuredContent(countSchema, {
      isError: true,
      content: [{ type: 'text', text: 'failed' }],
    });
    expect(outcome).toEqual({ checked: false, problems: [] });
  });

  it('names the path of a mismatched property without the summary error above it', () => {
    const outcome = validateStructuredContent(countSchema, { structuredContent: { count: 'three' } });
    expect(outcome.problems).toEqual([{ path: '/count', message: expect.stringMatching(/integer/) }]);
  });

  it('lists every error, each at its own path, down into arrays', () => {
    const schema = {
      type: 'object',
      properties: {
        count: { type: 'integer' },
        items: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
      required: ['count', 'total'],
    };
    const outcome = validateStructuredContent(schema, {
      structuredContent: { count: 1.5, items: [{ name: 7 }, {}] },
    });
    expect(outcome.problems.map((problem) => problem.path)).toEqual([
      '/',
      '/count',
      '/items/0/name',
      '/items/1',
    ]);
    expect(outcome.problems[0]?.message).toMatch(/"total"/);
    expect(outcome.problems[3]?.message).toMatch(/"name"/);
  });

  it('reports a root type mismatch at /', () => {
    const outcome = validateStructuredContent(
      { type: 'object', properties: {} },
      { structuredContent: [] as never },
    );
    expect(outcome.problems).toEqual([{ path: '/', message: expect.stringMatching(/array/) }]);
  });

  it('names a property that additionalProperties: false rejects', () => {
    const schema = { ...countSchema, additionalProperties: false };
    const outcome = validateStructuredContent(schema, { structuredContent: { count: 1, extra: true } });
    expect(outcome.problems).toEqual([
      { path: '/extra', message: 'Property "extra" is not allowed by the schema.' },
    ]);
  });

  it('names an item that a false items schema rejects', () => {
    const schema = {
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{}, {}], items: false } },
    };
    const outcome = validateStructuredContent(schema, { structuredContent: { pair: [1, 2, 3] } });
    expect(outcome.problems).toEqual([{ path: '/pair/2', message: 'Item 2 is not allowed by the schema.' }]);
  });

  it('keeps JSON Pointer escapes but undoes URI encoding in paths', () => {
    const schema = {
      type: 'object',
      properties: { 'a/b': { type: 'string' }, 'two words': { type: 'string' } },
    };
    const outcome = validateStructuredContent(schema, { structuredContent: { 'a/b': 1, 'two words': 2 } });
    expect(outcome.problems.map((problem) => problem.path)).toEqual(['/a~1b', '/two words']);
  });

  it('follows $ref into $defs and reports the innermost error', () => {
    const schema = {
      type: 'object',
      properties: { owner: { $ref: '#/$defs/person' } },
      $defs: { person: { type: 'object', properties: { age: { type: 'number', minimum: 0 } } } },
    };
    const outcome = validateStructuredContent(schema, { structuredContent: { owner: { age: -1 } } });
    expect(outcome.problems).toEqual([{ path: '/owner/age', message: expect.stringMatching(/-1/) }]);
  });

  it('reports the failed branch of if/then without the summary', () => {
    const schema = { type: 'object', if: { required: ['a'] }, then: { required: ['b'] } };
    const outcome = validateStructuredContent(schema, { structuredContent: { a: 1 } });
    expect(outcome.problems).toEqual([{ path: '/', message: expect.stringMatching(/"b"/) }]);
  });

  it('keeps a oneOf error that has no more specific cause', () => {
    const schema = {
      type: 'object',
      properties: { n: { oneOf: [{ type: 'number' }, { type: 'integer' }] } },
    };
    const outcome = validateStructuredContent(schema, { structuredContent: { n: 1 } });
    expect(outcome.problems).toEqual([{ path: '/n', message: expect.stringMatching(/exactly one/) }]);
  });

  it('validates with draft 2020-12 by default', () => {
    // prefixItems arrived in 2020-12; cfworker's own default, 2019-09, would ignore it.
    const schema = {
      type: 'object',
      properties: { t: { type: 'array', prefixItems: [{ type: 'string' }] } },
    };
    const outcome = validateStructuredContent(schema, { structuredContent: { t: [1] } });
    expect(outcome.problems).toEqual([{ path: '/t/0', message: expect.stringMatching(/string/) }]);
  });

  it('honours a draft-07 $schema', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { t: { type: 'array', items: [{ type: 'string' }], additionalItems: false } },
    };
    const outcome = validateStructuredContent(schema, { structuredContent: { t: [1, 'x'] } });
    expect(outcome.problems).toEqual([
      { path: '/t/0', message: expect.stringMatching(/string/) },
      { path: '/t/1', message: 'Item 1 is not allowed by the schema.' },
    ]);
  });

  it('blames the schema when it cannot be applied', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };
    const outcome = validateStructuredContent(schema, { structuredContent: { a: 1 } });
    expect(outcome.checked).toBe(true);
    expect(outcome.problems).toEqual([
      { path: '', message: expect.stringMatching(/outputSchema cannot be applied/) },
    ]);
  });
});

describe('patterns that backtrack catastrophically', { timeout: 10_000 }, () => {
  // `^(a|a)*$` on forty `a`s and a `!` backtracks 2^40 times: hours, were it not cut short.
  const evil = 'a'.repeat(40) + '!';
  const outputSchema = {
    type: 'object',
    properties: { x: { type: 'string', pattern: '^(a|a)*$' }, n: { type: 'number' } },
  };

  it('without a guard the patterns are not run, the rest is checked, and the result says so', () => {
    const validation = validateStructuredContent(outputSchema, { structuredContent: { x: evil, n: 'one' } });
    expect(validation.patternsNotChecked).toBe('patterns not checked yet');
    expect(validation.problems).toEqual([{ path: '/n', message: expect.stringMatching(/type/) }]);
  });

  it('with a guard a pattern past the budget is reported as not checked', () => {
    const validation = validateStructuredContent(
      outputSchema,
      { structuredContent: { x: evil, n: 1 } },
      { guard: vmTimeGuard, budgetMs: 200 },
    );
    expect(validation).toEqual({
      checked: true,
      problems: [],
      patternsNotChecked: 'pattern not checked: it took longer than 200 ms',
    });
  });

  it('patternProperties keys too; the additionalProperties beside them are left unchecked with them', () => {
    const schema = {
      type: 'object',
      patternProperties: { '^(a|a)*$': { type: 'number' } },
      additionalProperties: false,
    };
    const validation = validateStructuredContent(
      schema,
      { structuredContent: { [evil]: 1 } },
      { guard: vmTimeGuard, budgetMs: 200 },
    );
    expect(validation.patternsNotChecked).toBe('pattern not checked: it took longer than 200 ms');
    expect(validation.problems).toEqual([]);
  });

  it('a pattern that answers in time is checked as before', () => {
    const validation = validateStructuredContent(
      outputSchema,
      { structuredContent: { x: 'b', n: 1 } },
      { guard: vmTimeGuard },
    );
    expect(validation.patternsNotChecked).toBeUndefined();
    expect(validation.problems).toEqual([{ path: '/x', message: 'String does not match pattern.' }]);
  });

  it('a property named pattern is no pattern', () => {
    const schema = { type: 'object', properties: { pattern: { type: 'string' } } };
    const validation = validateStructuredContent(schema, { structuredContent: { pattern: 1 } });
    expect(validation.patternsNotChecked).toBeUndefined();
    expect(validation.problems).toHaveLength(1);
  });
});
