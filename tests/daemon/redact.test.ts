import { describe, expect, it } from 'vitest';
import { redactJson } from '../../daemon/mcp/redact.ts';

describe('redactJson', () => {
  it('replaces secrets in every string of a value and keeps its structure', () => {
    const value = { a: 'key=s3cret', list: ['ok', { deep: 'x s3cret y' }], n: 1, flag: true, none: null };
    expect(redactJson(value, ['s3cret'])).toEqual({
      a: 'key=********',
      list: ['ok', { deep: 'x ******** y' }],
      n: 1,
      flag: true,
      none: null,
    });
    expect(value.a).toBe('key=s3cret');
  });

  it('gives back the same value when there is nothing to redact, and copies only the path to a secret', () => {
    const clean = { a: 'fine', list: [{ b: 'also fine' }] };
    expect(redactJson(clean, ['s3cret'])).toBe(clean);
    const mixed = { kept: { b: 'fine' }, changed: ['s3cret'] };
    const redacted = redactJson(mixed, ['s3cret']);
    expect(redacted).not.toBe(mixed);
    expect(redacted.kept).toBe(mixed.kept);
    expect(redacted.changed).toEqual(['********']);
  });

  it('masks a secret in a key, keeping the order of the keys and every key masked alike', () => {
    const value = { first: 1, s3cret: 'a', nested: { 'key s3cret': 2 }, S3CRET: 3, last: 's3cret' };
    const redacted = redactJson({ ...value, ['s3cret'.toUpperCase()]: 3 }, ['s3cret', 'S3CRET']);
    expect(Object.keys(redacted)).toEqual(['first', '********', 'nested', '******** (2)', 'last']);
    expect(redacted).toEqual({
      first: 1,
      '********': 'a',
      nested: { 'key ********': 2 },
      '******** (2)': 3,
      last: '********',
    });
    expect(Object.keys(value)).toContain('s3cret');
  });

  it('gives back the very value when the server has no secret', () => {
    const value = { a: 'anything' };
    expect(redactJson(value, [])).toBe(value);
  });

  it('keeps a "__proto__" key a key', () => {
    const value = JSON.parse('{"__proto__": "s3cret", "other": 1}') as Record<string, unknown>;
    const redacted = redactJson(value, ['s3cret']);
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.keys(redacted)).toEqual(['__proto__', 'other']);
    expect(JSON.stringify(redacted)).toBe('{"__proto__":"********","other":1}');
  });
});
