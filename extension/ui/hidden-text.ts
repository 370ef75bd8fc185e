/**
 * Characters a server can put in a name or a description that change what it appears to say without
 * being seen: bidirectional controls that reorder the text after them ("Trojan Source"), zero-width
 * characters that split or join words, and Unicode tag characters, which carry ASCII no one sees (a way
 * to hide instructions for a model in a tool's description). The inspector shows each where it is.
 */

/** The name a hidden character is shown by, and what it does. */
const NAMED: Record<string, [string, string]> = {
  '\u061C': ['ALM', 'ARABIC LETTER MARK'],
  '\u200B': ['ZWSP', 'ZERO WIDTH SPACE'],
  '\u200E': ['LRM', 'LEFT-TO-RIGHT MARK'],
  '\u200F': ['RLM', 'RIGHT-TO-LEFT MARK'],
  '\u202A': ['LRE', 'LEFT-TO-RIGHT EMBEDDING: reorders the text after it'],
  '\u202B': ['RLE', 'RIGHT-TO-LEFT EMBEDDING: reorders the text after it'],
  '\u202C': ['PDF', 'POP DIRECTIONAL FORMATTING'],
  '\u202D': ['LRO', 'LEFT-TO-RIGHT OVERRIDE: reorders the text after it'],
  '\u202E': ['RLO', 'RIGHT-TO-LEFT OVERRIDE: reorders the text after it'],
  '\u2060': ['WJ', 'WORD JOINER'],
  '\u2061': ['FA', 'FUNCTION APPLICATION (invisible)'],
  '\u2062': ['IT', 'INVISIBLE TIMES'],
  '\u2063': ['IS', 'INVISIBLE SEPARATOR'],
  '\u2064': ['IP', 'INVISIBLE PLUS'],
  '\u2066': ['LRI', 'LEFT-TO-RIGHT ISOLATE: reorders the text after it'],
  '\u2067': ['RLI', 'RIGHT-TO-LEFT ISOLATE: reorders the text after it'],
  '\u2068': ['FSI', 'FIRST STRONG ISOLATE: reorders the text after it'],
  '\u2069': ['PDI', 'POP DIRECTIONAL ISOLATE'],
  '\uFEFF': ['BOM', 'ZERO WIDTH NO-BREAK SPACE'],
};

/**
 * One named character, or a run of tag characters (U+E0000 to U+E007F). A run after a black flag is an
 * emoji's subdivision flag (Scotland's, say) and is left alone. Zero-width joiners and non-joiners are
 * left too: emoji sequences and Persian words need them.
 */
const HIDDEN =
  /[\u061C\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|(\u{1F3F4}?)([\u{E0000}-\u{E007F}]+)/gu;

export type TextPart = string | { shown: string; title: string };

/** Whether `text` holds a character `revealParts` would show. Cheap: most text has none. */
export function hasHidden(text: string): boolean {
  HIDDEN.lastIndex = 0;
  for (let match = HIDDEN.exec(text); match; match = HIDDEN.exec(text)) {
    if (!match[1]) return true;
  }
  return false;
}

/** What tag characters spell: each U+E0020 to U+E007E stands for the ASCII character 0xE0000 below it. */
function spelled(tags: string): string {
  let text = '';
  for (const char of tags) {
    const code = (char.codePointAt(0) as number) - 0xe0000;
    text += code >= 0x20 && code <= 0x7e ? String.fromCharCode(code) : '';
  }
  return text;
}

/** `text` cut into plain runs and the hidden characters in it, each with the name it is shown by. */
export function revealParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let from = 0;
  HIDDEN.lastIndex = 0;
  for (let match = HIDDEN.exec(text); match; match = HIDDEN.exec(text)) {
    if (match[1]) continue;
    if (match.index > from) parts.push(text.slice(from, match.index));
    const tags = match[2];
    if (tags) {
      const count = [...tags].length;
      parts.push({
        shown: `[hidden tags: ${JSON.stringify(spelled(tags))}]`,
        title: `${count} Unicode tag character${count === 1 ? '' : 's'}, invisible: they spell what is shown`,
      });
    } else {
      const char = match[0];
      const code = `U+${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
      const [short, name] = NAMED[char] as [string, string];
      parts.push({ shown: `[${short}]`, title: `${code} ${name}` });
    }
    from = match.index + match[0].length;
  }
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}

/** `text` with its hidden characters written out, for places that take plain text (an attribute, a copy). */
export function revealHidden(text: string): string {
  if (!hasHidden(text)) return text;
  return revealParts(text)
    .map((part) => (typeof part === 'string' ? part : part.shown))
    .join('');
}
