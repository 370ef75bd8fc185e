/**
 * Regular expressions a server (or a saved request) supplies, run on text a server supplies, can take
 * hours: `^(a|a)*$` on forty `a`s and a `!` backtracks 2^40 times. Screening patterns for catastrophic
 * backtracking is not sound (ambiguous alternations, overlapping adjacent quantifiers, polynomial cases on
 * long input), and a linear-time engine such as RE2 reads another syntax than ECMAScript's (`\u0041`,
 * `[^]`, lookarounds, back-references), so it would give wrong answers. So the real engine runs them, but
 * never without a time budget: the command line runs them in a `vm` context with a timeout (V8 stops even
 * a regular expression mid-match), the panel in a Web Worker it terminates. Whatever the budget cut short
 * is reported as not checked, never silently passed.
 */

/** Runs `work` within `budgetMs`: its value, or undefined when it took longer and was stopped. */
export type TimeGuard = <T>(work: () => T, budgetMs: number) => { value: T } | undefined;

/** How long one pattern check (or one outputSchema validation with patterns) may take. */
export const PATTERN_BUDGET_MS = 1_000;

/** The note for a check that the budget cut short. */
export function patternTimeoutNote(budgetMs: number): string {
  return `pattern not checked: it took longer than ${budgetMs.toLocaleString('en')} ms`;
}
