import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { badRequest } from '../errors.ts';

const require = createRequire(import.meta.url);
let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * ajv, loaded on the first validation (or while the daemon idles after it starts listening) rather than
 * at start: it is a good part of what the daemon would load before it can listen.
 */
export function schemaCompiler(): Ajv {
  ajv ??= new (require('ajv') as typeof AjvModule).Ajv({ allErrors: true, strict: false });
  return ajv;
}

function compile(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = schemaCompiler().compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** "field: what is wrong" for each problem, most specific first, without repeats. */
export function describeProblems(errors: ErrorObject[] | null | undefined): string[] {
  const problems = new Set<string>();
  // oneOf reports every branch; the branch-level errors say more than the summary.
  const detailed = (errors ?? []).filter((e) => e.keyword !== 'oneOf');
  for (const error of detailed) {
    const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (error.keyword === 'required') {
      const field = [path, error.params.missingProperty].filter(Boolean).join('.');
      problems.add(`${field}: is required`);
    } else if (error.keyword === 'additionalProperties') {
      const field = [path, error.params.additionalProperty].filter(Boolean).join('.');
      problems.add(`${field}: is not allowed here`);
    } else if (error.keyword === 'enum') {
      problems.add(`${path || 'body'}: must be one of ${error.params.allowedValues.join(', ')}`);
    } else {
      problems.add(`${path || 'body'}: ${error.message ?? 'is invalid'}`);
    }
  }
  return [...problems];
}

/** Every problem of a value against a schema; none when it is valid. */
export function problemsOf(schema: object, value: unknown): string[] {
  const check = compile(schema);
  return check(value) ? [] : describeProblems(check.errors);
}

export function validate<T>(schema: object, value: unknown): T {
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('body: must be a JSON object sent with Content-Type: application/json');
  }
  const check = compile(schema);
  if (!check(value)) throw badRequest(describeProblems(check.errors).join('; '));
  return value as T;
}

/** Rejects the request once with every problem of its body. */
export function validateBody(schema: object): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    validate(schema, req.body);
    next();
  };
}
