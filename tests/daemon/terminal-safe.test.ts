/** What the command line prints of a server's or a file's text (daemon/commands/terminal-safe.ts). */
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../daemon/commands/terminal-safe.ts';

describe('terminalSafe', () => {
  it('shows escape sequences, bells, C1 controls and bidirectional overrides as escapes', () => {
    expect(terminalSafe('a\u001b[2Jb\u0007c\u009bd\u202ee\u2066f\u0000g\u007f')).toBe(
      'a\\u001b[2Jb\\u0007c\\u009bd\\u202ee\\u2066f\\u0000g\\u007f',
    );
  });

  it('keeps line breaks, tabs and any other text as they are', () => {
    const text = 'line one\n\tindented — ünïcödé ✓ 日本 🙂';
    expect(terminalSafe(text)).toBe(text);
  });
});
