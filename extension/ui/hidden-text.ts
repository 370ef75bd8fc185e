/**
 * Characters a server (or a page, or a widget) can put in a name or a description that change what it
 * appears to say without being seen: bidirectional controls that reorder the text after them ("Trojan
 * Source"), zero-width and other invisible format characters that split or join words, fillers drawn
 * blank, and two ways to carry data no one sees: Unicode tag characters (ASCII) and runs of variation
 * selectors (bytes), used to hide instructions for a model in a tool's description. The inspector shows
 * each where it is.
 *
 * Left as they are, because text needs them: a zero-width joiner or non-joiner between two non-ASCII
 * characters (emoji sequences, Persian and Indic words), one variation selector after a non-ASCII
 * character or the emoji/text presentation selectors (❤️, 1️⃣), the tags of the flags of England,
 * Scotland and Wales, and Arabic and Syriac signs that are drawn (U+0600 to U+0605…).
 */

/** The short name a hidden character is shown by, and its Unicode name. */
const NAMED: Record<string, [string, string]> = {
  '\u00AD': ['SHY', 'SOFT HYPHEN'],
  '\u034F': ['CGJ', 'COMBINING GRAPHEME JOINER'],
  '\u061C': ['ALM', 'ARABIC LETTER MARK'],
  '\u115F': ['HCF', 'HANGUL CHOSEONG FILLER, drawn blank'],
  '\u1160': ['HJF', 'HANGUL JUNGSEONG FILLER, drawn blank'],
  '\u180E': ['MVS', 'MONGOLIAN VOWEL SEPARATOR'],
  '\u200B': ['ZWSP', 'ZERO WIDTH SPACE'],
  '\u200C': ['ZWNJ', 'ZERO WIDTH NON-JOINER'],
  '\u200D': ['ZWJ', 'ZERO WIDTH JOINER'],
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
  '\u3164': ['HF', 'HANGUL FILLER, drawn blank'],
  '\uFEFF': ['BOM', 'ZERO WIDTH NO-BREAK SPACE'],
  '\uFFA0': ['HWHF', 'HALFWIDTH HANGUL FILLER, drawn blank'],
};

/**
 * One of the three subdivision flags emoji fonts draw (England, Scotland, Wales), left alone: any other
 * tags after a black flag are drawn as nothing, so they are shown; or a run of invisible characters (Default_Ignorable_Code_Point
 * or format), each then judged in its context by `partsOf`.
 */
const CANDIDATE =
  /\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}|[\p{Default_Ignorable_Code_Point}\p{Cf}]+/gu;
const FLAG_START = 0x1f3f4;

/** Format characters that are drawn: Arabic and Syriac number and abbreviation signs. */
const DRAWN = new Set([
  0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06dd, 0x070f, 0x0890, 0x0891, 0x08e2, 0x110bd, 0x110cd,
]);
/** Marks that only steer the direction of what is near: shown, and kept too so real RTL text lays out. */
const DIRECTION_MARKS = new Set(['\u200E', '\u200F', '\u061C']);

const isTag = (code: number): boolean => code >= 0xe0000 && code <= 0xe007f;
const isSelector = (code: number): boolean =>
  (code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef);
const isAscii = (char: string | undefined): boolean => char === undefined || char.charCodeAt(0) < 0x80;

export type TextPart =
  | string
  | {
      /** What stands in its place. */
      shown: string;
      /** The code point(s) and name, for a tooltip. */
      title: string;
      /** The characters themselves. */
      raw: string;
      /** The character is kept after its mark (a direction mark that real RTL text needs). */
      keep?: boolean;
    };

/** What tag characters spell: each of U+E0020 to U+E007E stands for the ASCII character 0xE0000 below. */
function spelled(tags: string[]): string {
  return tags
    .map((char) => (char.codePointAt(0) as number) - 0xe0000)
    .map((code) => (code >= 0x20 && code <= 0x7e ? String.fromCharCode(code) : ''))
    .join('');
}

/**
 * What a run of variation selectors carries, read as bytes (U+FE00 to U+FE0F are 0 to 15, U+E0100 to
 * U+E01EF are 16 to 255, as the known smuggling scheme writes them) and then as UTF-8.
 */
function carried(selectors: string[]): string {
  const bytes = selectors.map((char) => {
    const code = char.codePointAt(0) as number;
    return code <= 0xfe0f ? code - 0xfe00 : code - 0xe0100 + 16;
  });
  return new TextDecoder().decode(new Uint8Array(bytes));
}

const codeOf = (char: string): string =>
  `U+${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;

function plural(count: number, what: string): string {
  return `${count} ${what}${count === 1 ? '' : 's'}`;
}

/** The run `chars`, found between `before` and `after` in the text, as plain text and marks. */
function partsOf(chars: string[], before: string | undefined, after: string | undefined): TextPart[] {
  const parts: TextPart[] = [];
  const plain = (char: string): void => {
    const last = parts[parts.length - 1];
    if (typeof last === 'string') parts[parts.length - 1] = last + char;
    else parts.push(char);
  };
  let i = 0;
  while (i < chars.length) {
    const char = chars[i] as string;
    const code = char.codePointAt(0) as number;
    const prev = i === 0 ? before : chars[i - 1];
    if (isTag(code) || isSelector(code)) {
      const kind = isTag(code) ? isTag : isSelector;
      let end = i + 1;
      while (end < chars.length && kind(chars[end]!.codePointAt(0) as number)) end++;
      const run = chars.slice(i, end);
      const raw = run.join('');
      if (kind === isTag) {
        parts.push({
          shown: `[hidden tags: ${JSON.stringify(spelled(run))}]`,
          title: `${plural(run.length, 'Unicode tag character')}, invisible: they spell what is shown`,
          raw,
        });
      } else if (run.length === 1 && (code === 0xfe0e || code === 0xfe0f || !isAscii(prev))) {
        plain(char);
      } else {
        parts.push({
          shown: `[hidden bytes: ${JSON.stringify(carried(run))}]`,
          title: `${plural(run.length, 'variation selector')}, invisible: read as bytes, they carry what is shown`,
          raw,
        });
      }
      i = end;
      continue;
    }
    const next = i + 1 < chars.length ? chars[i + 1] : after;
    const joinsWords = (char === '\u200C' || char === '\u200D') && !isAscii(prev) && !isAscii(next);
    if (joinsWords || DRAWN.has(code)) {
      plain(char);
    } else {
      const [short, name] = NAMED[char] ?? [codeOf(char), 'invisible format character'];
      parts.push({
        shown: `[${short}]`,
        title: `${codeOf(char)} ${name}`,
        raw: char,
        ...(DIRECTION_MARKS.has(char) && { keep: true }),
      });
    }
    i++;
  }
  return parts;
}

/** `text` cut into plain runs and the hidden characters in it, each with the name it is shown by. */
export function revealParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let from = 0;
  CANDIDATE.lastIndex = 0;
  for (let match = CANDIDATE.exec(text); match; match = CANDIDATE.exec(text)) {
    const [found] = match;
    if (found.codePointAt(0) === FLAG_START) continue;
    const end = match.index + found.length;
    // Only whether a neighbour is ASCII matters: half of a surrogate pair is not.
    const run = partsOf([...found], text[match.index - 1], text[end]);
    if (run.every((part) => typeof part === 'string')) continue;
    if (match.index > from) parts.push(text.slice(from, match.index));
    parts.push(...run);
    from = end;
  }
  if (from < text.length || parts.length === 0) parts.push(text.slice(from));
  return parts;
}

/** Whether `text` holds a character `revealParts` would show. Cheap for the text most servers send. */
export function hasHidden(text: string): boolean {
  CANDIDATE.lastIndex = 0;
  if (!CANDIDATE.test(text)) return false;
  return revealParts(text).some((part) => typeof part !== 'string');
}

/** `text` with its hidden characters written out, for places that take plain text (an attribute, an option). */
export function revealHidden(text: string): string {
  if (!hasHidden(text)) return text;
  return revealParts(text)
    .map((part) => (typeof part === 'string' ? part : part.shown + (part.keep ? part.raw : '')))
    .join('');
}

/**
 * JSON text with its hidden characters as `\u` escapes: the same JSON, which now shows them. They can
 * only be inside its strings, where an escape means the same character.
 */
export function escapeHidden(json: string): string {
  if (!hasHidden(json)) return json;
  return revealParts(json)
    .map((part) =>
      typeof part === 'string'
        ? part
        : [...part.raw]
            .flatMap((char) => (char.length === 2 ? [char[0], char[1]] : [char]))
            .map((unit) => `\\u${(unit as string).charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)
            .join(''),
    )
    .join('');
}
