/**
 * What the daemon found wrong in a server's list answer (`tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list`): the answer's `resultProblem` (daemon/mcp/checked-page.ts),
 * such as a list that is no array, items left out for lacking their name, or an endless list cut short.
 * The view shows it above the list, so that what the list shows is not taken for all the server sent.
 */

/** The lead of the warning above a list: the problem follows it. */
export function listProblemLead(method: string): string {
  return `The server's ${method} answer is not as MCP says:`;
}

/** The answer's `resultProblem`, or null when it has none (or none that is text). */
export function listProblemOf(answer: { resultProblem?: unknown }): string | null {
  return typeof answer.resultProblem === 'string' && answer.resultProblem !== ''
    ? answer.resultProblem
    : null;
}
