import { vmTimeGuard } from '../../../daemon/time-guard.ts';
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
        const done = vmTimeGuard(
          () =>
            job.kind === 'test'
              ? new RegExp(job.source, job.flags).test(job.subject)
              : validateStructuredContent(job.schema, job.result, { guard: (work) => ({ value: work() }) }),
          budgetMs,
        );
        if (done) worker.onmessage?.({ data: { id, value: done.value } } as MessageEvent);
      });
    },
  };
  return worker;
}
