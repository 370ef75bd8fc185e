/**
 * Control characters (but tab and line feed) and the bidirectional overrides, which a terminal would act
 * on: a server's names, texts and errors can hold escape sequences that move the cursor, clear the screen,
 * set the window title or write the clipboard.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Text as a terminal may be given it: every control character shown as its `\u` escape. */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
