import { nextTick } from 'vue';

/**
 * A button that goes away with its work (Cancel once the call ended, Load once the message came) leaves
 * the focus on the page, where Tab starts over and Ctrl+Enter does nothing. If the focus fell there,
 * it goes to `target`; focus the user moved elsewhere stays where it is.
 */
export function refocusIfLost(target: HTMLElement | null | undefined): void {
  const focused = document.activeElement;
  if (focused === null || focused === document.body) target?.focus();
}

/**
 * For a button that goes away as soon as it is pressed (a list's Retry, replaced by "Loading…"): once it
 * has gone, the focus it leaves on the page goes to the search box of the list it was in.
 */
export function refocusListSearch(event: Event): void {
  const list = (event.currentTarget as HTMLElement | null)?.closest('.split-list');
  void nextTick(() => refocusIfLost(list?.querySelector<HTMLInputElement>('input[type="search"]')));
}
