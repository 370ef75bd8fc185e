/**
 * The panel's time guard (see shared/time-guard.ts) runs here, off the page's thread: a server's regular
 * expressions and the outputSchema validations that hold them. The page terminates this worker when a job
 * outlasts its budget, which stops even a regular expression mid-match, and starts a new one.
 */
import { checkExpectations } from '../../shared/expectations';
import { validateStructuredContent } from '../../shared/output-validation';
import type { PatternJob } from './pattern-jobs';

/** Everything runs here unguarded: the guard is this worker's own life. */
const unguarded = { guard: <T>(work: () => T) => ({ value: work() }) };

function runJob(job: PatternJob): unknown {
  switch (job.kind) {
    case 'test':
      return new RegExp(job.source, job.flags).test(job.subject);
    case 'validate':
      return validateStructuredContent(job.schema, job.result, unguarded);
    case 'expectation':
      return checkExpectations([job.expectation], job.context, unguarded)[0];
  }
}

self.onmessage = (event: MessageEvent<{ id: number; job: PatternJob }>) => {
  const { id, job } = event.data;
  let value: unknown;
  try {
    value = runJob(job);
  } catch (error) {
    value = { error: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage({ id, value });
};
