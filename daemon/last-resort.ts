/**
 * The last line of defence: an exception nothing caught must not end the daemon, which holds the
 * user's connections and child processes. It is logged in one line (name and the start of the message:
 * a message may quote a server's data, so no more of it) and the daemon keeps serving. Every known way
 * to get here is fixed where it starts; this only keeps an unknown one from turning into an outage.
 */
export function installLastResortHandlers(
  log: (line: string) => void,
  target: NodeJS.Process = process,
): () => void {
  const describe = (error: unknown): string => {
    const name = error instanceof Error ? error.name : typeof error;
    const message = error instanceof Error ? error.message : String(error);
    const first = (message.split('\n')[0] ?? '').slice(0, 200);
    return `${name}: ${first}`;
  };
  const onException = (error: unknown): void => {
    log(`inspector-daemon: internal error, still serving: ${describe(error)}`);
  };
  const onRejection = (reason: unknown): void => {
    log(`inspector-daemon: unhandled rejection, still serving: ${describe(reason)}`);
  };
  target.on('uncaughtException', onException);
  target.on('unhandledRejection', onRejection);
  return () => {
    target.off('uncaughtException', onException);
    target.off('unhandledRejection', onRejection);
  };
}
