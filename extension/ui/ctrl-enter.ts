/**
 * Ctrl+Enter (Cmd+Enter) runs the current form, everywhere (DESIGN "Look and feel"): on a `<form>`'s
 * keydown it submits the form as its submit button would, the browser's own checks first.
 */
export function submitOnCtrlEnter(event: KeyboardEvent): void {
  if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey)) return;
  const form = event.currentTarget;
  if (!(form instanceof HTMLFormElement)) return;
  event.preventDefault();
  form.requestSubmit();
}
