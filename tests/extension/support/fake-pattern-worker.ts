import { vmTimeGuard } from '../../../daemon/time-guard.ts';
import { checkExpectations } from '../../../shared/expectations.ts';
import { validateStructuredContent } from '../../../shared/output-validation.ts';
import type { PatternJob } from '../../../extension/validation/pattern-jobs.ts';

/**
 * A stand-in for pattern-worker.ts in happy-dom, which has no Worker: it runs each job in this process
 * within the budget (a vm timeout), and, like a worker that is still busy, never answers one cut short.
 */
export function fakePatternWorker(budgetMs = 5_000) {
  const worker = {
    onmessage: null as ((event: MessageEvent) => void) | null,
    terminate() {},
    postMessage(message: unknown) {
      const { id, job } = message as { id: number; job: PatternJob };
      setTimeout(() => {
        const unguarded = { guard: <T>(work: () => T) => ({ value: work() }) };
        const done = vmTimeGuard((): unknown => {
          if (job.kind === 'test') return new RegExp(job.source, job.flags).test(job.subject);
          if (job.kind === 'validate') return validateStructuredContent(job.schema, job.result, unguarded);
          return checkExpectations([job.expectation], job.context, unguarded)[0];
        }, budgetMs);
        if (done) worker.onmessage?.({ data: { id, value: done.value } } as MessageEvent);
      });
    },
  };
  return worker;
}
