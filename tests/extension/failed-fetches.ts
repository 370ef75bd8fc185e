import nodeConsole from 'node:console';
import { onTestFinished, vi } from 'vitest';

/**
 * happy-dom logs a fetch that cannot connect (the Node error, stack and all) on the console it was
 * created with: the worker's own, which vitest neither labels nor holds back. A test that fetches a
 * closed port on purpose collects those errors here instead, and checks they are the expected refusals.
 */
export function collectFailedFetches(): { codes(): Array<string | undefined> } {
  const spy = vi.spyOn(nodeConsole, 'error').mockImplementation(() => {});
  onTestFinished(() => spy.mockRestore());
  return { codes: () => spy.mock.calls.map(([error]) => (error as NodeJS.ErrnoException).code) };
}
