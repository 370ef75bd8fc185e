/**
 * `text` made fit for an element id that other attributes name in a list (`aria-describedby`, `for`,
 * `list`): whitespace would split it into several ids. Whitespace and `%` are percent-encoded, so that
 * two names never give the same id.
 */
export function idToken(text: string): string {
  return text.replace(/[\s%]/gu, (char) => encodeURIComponent(char));
}
