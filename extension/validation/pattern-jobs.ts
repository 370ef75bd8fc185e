/**
 * Runs a server's regular expressions in a Web Worker within a time budget (why: shared/time-guard.ts).
 * One worker serves every job, one job at a time; a job past its budget terminates the worker (a regular
 * expression cannot be stopped any other way in a page) and is answered as timed out, and the next job gets
 * a new worker. Vite bundles pattern-worker.ts as a module worker; the extension's CSP (script-src 'self')
 * and the web page's allow it.
 */
import type { ExpectationContext, ExpectationOutcome, Expectation } from '../../shared/expectations';
import type { OutputValidation } from '../../shared/output-validation';
import { PATTERN_BUDGET_MS } from '../../shared/time-guard';

export type PatternJob =
  | { kind: 'test'; source: string; flags: string; subject: string }
  | { kind: 'validate'; schema: Record<string, unknown>; result: Record<string, unknown> }
  | { kind: 'expectation'; expectation: Expectation; context: ExpectationContext };

/** `invalid`: the job threw (a pattern this browser cannot read), rather than ran out of time. */
export type JobAnswer<T> = { done: true; value: T } | { done: false; reason: string; invalid?: true };

interface WorkerLike {
  postMessage(message: unknown): void;
  terminate(): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

type WorkerFactory = () => WorkerLike | undefined;

const defaultFactory: WorkerFactory = () =>
  typeof Worker === 'function'
    ? (new Worker(new URL('./pattern-worker.ts', import.meta.url), { type: 'module' }) as WorkerLike)
    : undefined;

let factory: WorkerFactory = defaultFactory;
let worker: WorkerLike | undefined;
let nextId = 1;
let queue: Promise<unknown> = Promise.resolve();

/** For tests: how workers are made (undefined restores the real one). */
export function setPatternWorkerFactory(make: WorkerFactory | undefined): void {
  worker?.terminate();
  worker = undefined;
  factory = make ?? defaultFactory;
}

function runOne<T>(job: PatternJob, budgetMs: number): Promise<JobAnswer<T>> {
  worker ??= factory();
  const current = worker;
  if (!current)
    return Promise.resolve({
      done: false,
      reason: 'pattern not checked: this page has no Web Worker to check it in',
    });
  const id = nextId++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      current.terminate();
      if (worker === current) worker = undefined;
      resolve({
        done: false,
        reason: `pattern not checked: it took longer than ${budgetMs.toLocaleString('en')} ms`,
      });
    }, budgetMs);
    current.onmessage = (event: MessageEvent<{ id: number; value: unknown }>) => {
      if (event.data.id !== id) return;
      clearTimeout(timer);
      const value = event.data.value;
      if (typeof value === 'object' && value !== null && 'error' in value) {
        resolve({
          done: false,
          invalid: true,
          reason: `pattern not checked: ${String((value as { error: unknown }).error)}`,
        });
      } else resolve({ done: true, value: value as T });
    };
    // Through JSON: what the page holds may be reactive proxies, which a worker cannot be sent.
    current.postMessage({ id, job: JSON.parse(JSON.stringify(job)) as PatternJob });
  });
}

/** Runs one job in the worker, after those before it, within `budgetMs`. */
export function runPatternJob<T>(job: PatternJob, budgetMs = PATTERN_BUDGET_MS): Promise<JobAnswer<T>> {
  const answer = queue.then(() => runOne<T>(job, budgetMs));
  queue = answer.catch(() => undefined);
  return answer;
}

/** Whether `source` (a JSON Schema pattern, so with the `u` flag) matches `subject`. */
export function testPattern(source: string, subject: string, budgetMs?: number): Promise<JobAnswer<boolean>> {
  return runPatternJob<boolean>({ kind: 'test', source, flags: 'u', subject }, budgetMs);
}

/** validateStructuredContent with the schema's patterns run, in the worker. */
export function validateInWorker(
  schema: Record<string, unknown>,
  result: Record<string, unknown>,
  budgetMs?: number,
): Promise<JobAnswer<OutputValidation>> {
  return runPatternJob<OutputValidation>({ kind: 'validate', schema, result }, budgetMs);
}

/** One expectation that runs a regular expression (`needsGuard`), checked in the worker. */
export function checkExpectationInWorker(
  expectation: Expectation,
  context: ExpectationContext,
  budgetMs?: number,
): Promise<JobAnswer<ExpectationOutcome>> {
  return runPatternJob<ExpectationOutcome>({ kind: 'expectation', expectation, context }, budgetMs);
}
