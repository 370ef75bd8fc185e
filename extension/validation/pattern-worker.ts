/**
 * The panel's time guard (see shared/time-guard.ts) runs here, off the page's thread: a server's regular
 * expressions and the outputSchema validations that hold them. The page terminates this worker when a job
 * outlasts its budget, which stops even a regular expression mid-match, and starts a new one.
 */
import { validateStructuredContent } from '../../shared/output-validation';
import type { PatternJob } from './pattern-jobs';

self.onmessage = (event: MessageEvent<{ id: number; job: PatternJob }>) => {
  const { id, job } = event.data;
  let value: unknown;
  try {
    value =
      job.kind === 'test'
        ? new RegExp(job.source, job.flags).test(job.subject)
        : // Everything runs here: the guard is this worker's own life.
          validateStructuredContent(job.schema, job.result, { guard: (work) => ({ value: work() }) });
  } catch (error) {
    value = { error: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage({ id, value });
};
