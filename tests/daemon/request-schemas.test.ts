/**
 * The daemon compiles its request schemas without checking them against the JSON Schema meta-schema
 * (daemon/http/validate.ts: that check made the first request wait for the meta-schema's compilation).
 * Here every one of them is checked, strictly: a keyword misspelt or misplaced fails this test instead
 * of being ignored at run time.
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { putEnvelopeSchema } from '../../daemon/routes/servers.ts';
import * as oauth from '../../shared/oauth.ts';
import * as schemas from '../../shared/schemas.ts';

const requestSchemas = Object.entries({ ...schemas, ...oauth, putEnvelopeSchema }).filter(
  ([name, value]) => name.endsWith('Schema') && typeof value === 'object' && value !== null,
);

describe('the request schemas', () => {
  it('are all here', () => {
    expect(requestSchemas.map(([name]) => name)).toEqual(
      expect.arrayContaining(['executeRequestSchema', 'serverConfigSchema', 'putEnvelopeSchema']),
    );
    expect(requestSchemas.length).toBeGreaterThan(20);
  });

  it.each(requestSchemas)('%s is a valid JSON Schema, compiled strictly', (_, schema) => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
    expect(ajv.validateSchema(schema as object), ajv.errorsText()).toBe(true);
    expect(() => ajv.compile(schema as object)).not.toThrow();
  });

  it('a schema with a misplaced keyword fails the check', () => {
    const ajv = new Ajv({ strict: true });
    expect(ajv.validateSchema({ type: 'object', properties: { a: { type: 'strin' } } })).toBe(false);
    expect(() => ajv.compile({ type: 'object', propertys: {} })).toThrow(/unknown keyword/);
  });
});
