/** Exit codes of the subcommands, documented in the README ("Command line"). */
export const EXIT = {
  /** Done, and everything asked for held. */
  ok: 0,
  /** The server answered with an error: a JSON-RPC error, or a tool result with `isError`. */
  serverError: 1,
  /** The command line is wrong: an unknown command or option, a missing argument. */
  usage: 2,
  /** The server (or the daemon given with --daemon) could not be reached or started. */
  connection: 3,
  /** An expectation of a test or a diff did not hold. */
  assertion: 4,
} as const;
