import type { Response } from 'express';

/**
 * Answers what `work` makes as JSON, with a signal that aborts it when the caller goes away first (a
 * read or a prompt the user cancelled, a closed tab): the MCP request is then cancelled at the server
 * (`notifications/cancelled`), and nothing is answered to a caller no longer there.
 */
export async function answerUnlessGone<T>(
  res: Response,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<void> {
  const controller = new AbortController();
  const gone = (): void => {
    if (!res.writableFinished) controller.abort(new Error('The caller went away before the answer'));
  };
  res.on('close', gone);
  try {
    const answer = await work(controller.signal);
    if (!controller.signal.aborted) res.json(answer);
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    res.off('close', gone);
  }
}
