import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Problem } from '../../shared/errors.ts';
import { DaemonError } from '../errors.ts';

const require = createRequire(import.meta.url);
let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * ajv, loaded on the first validation (or while the daemon idles after it starts listening) rather than
 * at start: it is a good part of what the daemon would load before it can listen.
 *
 * The schemas are the daemon's own (shared/schemas.ts), so ajv does not check them against the JSON
 * Schema meta-schema (tests/daemon/request-schemas.test.ts does): compiling the meta-schema made the
 * first request the daemon validated take some 300 ms more.
 */
export function schemaCompiler(): Ajv {
  ajv ??= new (require('ajv') as typeof AjvModule).Ajv({
    allErrors: true,
    strict: false,
    validateSchema: false,
  });
  return ajv;
}

/** Compiles `schema` now, as the daemon does while it idles, so its first request does not wait for it. */
export function prepareValidator(schema: object): void {
  compile(schema);
}

function compile(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = schemaCompiler().compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Each problem by field, most specific first, without repeats. */
export function describeProblems(errors: ErrorObject[] | null | undefined): Problem[] {
  const problems = new Map<string, Problem>();
  const add = (path: string, message: string) => problems.set(`${path}\u0000${message}`, { path, message });
  // oneOf reports every branch; the branch-level errors say more than the summary.
  const detailed = (errors ?? []).filter((e) => e.keyword !== 'oneOf');
  for (const error of detailed) {
    const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (error.keyword === 'required') {
      add([path, error.params.missingProperty].filter(Boolean).join('.'), 'is required');
    } else if (error.keyword === 'additionalProperties') {
      add([path, error.params.additionalProperty].filter(Boolean).join('.'), 'is not allowed here');
    } else if (error.keyword === 'enum') {
      add(path || 'body', `must be one of ${error.params.allowedValues.join(', ')}`);
    } else {
      add(path || 'body', error.message ?? 'is invalid');
    }
  }
  return [...problems.values()];
}

/** An invalid request listing every problem: in `error` as "path: message; …", and as `problems` for a form. */
export function invalidRequest(problems: Problem[]): DaemonError {
  const message = problems.map(({ path, message }) => `${path}: ${message}`).join('; ');
  return new DaemonError('invalid_request', message, { problems });
}

/** Every problem of a value against a schema; none when it is valid. */
export function problemsOf(schema: object, value: unknown): Problem[] {
  const check = compile(schema);
  return check(value) ? [] : describeProblems(check.errors);
}

export function validate<T>(schema: object, value: unknown): T {
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidRequest([
      { path: 'body', message: 'must be a JSON object sent with Content-Type: application/json' },
    ]);
  }
  const check = compile(schema);
  if (!check(value)) throw invalidRequest(describeProblems(check.errors));
  return value as T;
}

/** Rejects the request once with every problem of its body. */
export function validateBody(schema: object): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    validate(schema, req.body);
    next();
  };
}
