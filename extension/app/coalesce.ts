/**
 * Runs `work` for a key one at a time: asked again while it runs, it runs once more when it ends,
 * however many times it was asked meanwhile. A server's flood of notifications (1,000 `list_changed`
 * a second) then costs two runs, where one run each kept the panel busy for a minute and a half.
 */
export function coalesced(work: (key: string) => Promise<unknown>): (key: string) => void {
  /** The keys whose work runs, each with whether it was asked for again meanwhile. */
  const running = new Map<string, boolean>();
  const run = (key: string): void => {
    if (running.has(key)) {
      running.set(key, true);
      return;
    }
    running.set(key, false);
    void work(key)
      .catch(() => undefined)
      .finally(() => {
        const again = running.get(key) === true;
        running.delete(key);
        if (again) run(key);
      });
  };
  return run;
}
