/**
 * A button that goes away with its work (Cancel once the call ended, Load once the message came) leaves
 * the focus on the page, where Tab starts over and Ctrl+Enter does nothing. If the focus fell there,
 * it goes to `target`; focus the user moved elsewhere stays where it is.
 */
export function refocusIfLost(target: HTMLElement | null | undefined): void {
  const focused = document.activeElement;
  if (focused === null || focused === document.body) target?.focus();
}
