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
      /** The mark spells what the characters carry (tags, selector bytes): text of the source's choosing. */
      spells?: boolean;
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

/** At most this many marks a text: past them, its other hidden characters are counted, not marked. */
export const MAX_MARKS = 100;
/** At most this many characters of what tags or selectors spell are shown in their mark. */
const MAX_SPELLED = 200;

const EMOJI = /\p{Emoji}/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const MARK = /\p{M}/u;
const IDEOGRAPHIC = /\p{Ideographic}/u;
const MONGOLIAN = /\p{Script=Mongolian}/u;
const HIEROGLYPH = /\p{Script=Egyptian_Hieroglyphs}/u;

const isJoiner = (char: string): boolean => char === '\u200C' || char === '\u200D';
const isFormControlOfHieroglyphs = (code: number): boolean => code >= 0x13430 && code <= 0x1345f;
const isMongolianSelector = (code: number): boolean => (code >= 0x180b && code <= 0x180d) || code === 0x180f;

/**
 * Whether a whole run of invisible characters, between the visible characters `before` and `after`, is
 * what text needs there, and so no mark: only runs of one character (or an emoji's selector and joiner)
 * in the place that character is for. Several in a row, or one where it does nothing, carry something.
 */
function needed(run: string[], before: string | undefined, after: string | undefined): boolean {
  const [first, second] = run as [string, string | undefined];
  const code = first.codePointAt(0) as number;
  if (run.length === 1) {
    if (isJoiner(first)) {
      // Between two letters of a script that joins (Persian, Indic, emoji), or after a virama.
      return (before !== undefined && MARK.test(before)) || (!isAscii(before) && !isAscii(after));
    }
    if (code === 0xfe0e || code === 0xfe0f) return before !== undefined && EMOJI.test(before);
    if (code >= 0xfe00 && code <= 0xfe0d) return !isAscii(before);
    if (code >= 0xe0100 && code <= 0xe01ef) return before !== undefined && IDEOGRAPHIC.test(before);
    if (isMongolianSelector(code)) return before !== undefined && MONGOLIAN.test(before);
    if (DRAWN.has(code)) return true;
  }
  // An emoji shown as such, joined to the next one (🏳️‍🌈).
  if (run.length === 2 && first === '\uFE0F' && second === '\u200D') {
    return before !== undefined && EMOJI.test(before) && after !== undefined && PICTOGRAPHIC.test(after);
  }
  // Hieroglyphs arranged into quadrats.
  return (
    run.every((char) => isFormControlOfHieroglyphs(char.codePointAt(0) as number)) &&
    before !== undefined &&
    HIEROGLYPH.test(before)
  );
}

function cut(text: string): string {
  const chars = [...text];
  return chars.length > MAX_SPELLED
    ? `${chars.slice(0, MAX_SPELLED).join('')}… (${chars.length - MAX_SPELLED} more)`
    : text;
}

/** The run `chars`, which text does not need, as marks: tags and selectors a mark for each run of them. */
function marksOf(chars: string[]): TextPart[] {
  const parts: TextPart[] = [];
  let i = 0;
  while (i < chars.length) {
    const char = chars[i] as string;
    const code = char.codePointAt(0) as number;
    if (isTag(code) || isSelector(code)) {
      const kind = isTag(code) ? isTag : isSelector;
      let end = i + 1;
      while (end < chars.length && kind(chars[end]!.codePointAt(0) as number)) end++;
      const run = chars.slice(i, end);
      parts.push(
        kind === isTag
          ? {
              shown: `[hidden tags: ${JSON.stringify(cut(spelled(run)))}]`,
              title: `${plural(run.length, 'Unicode tag character')}, invisible: they spell what is shown`,
              raw: run.join(''),
              spells: true,
            }
          : {
              shown: `[hidden bytes: ${JSON.stringify(cut(carried(run)))}]`,
              title: `${plural(run.length, 'variation selector')}, invisible: read as bytes, they carry what is shown`,
              raw: run.join(''),
              spells: true,
            },
      );
      i = end;
      continue;
    }
    const [short, name] = NAMED[char] ?? [codeOf(char), 'invisible format character'];
    parts.push({
      shown: `[${short}]`,
      title: `${codeOf(char)} ${name}`,
      raw: char,
      ...(DIRECTION_MARKS.has(char) && { keep: true }),
    });
    i++;
  }
  return parts;
}

/**
 * `text` cut into plain runs and the hidden characters in it, each with the name it is shown by. Past
 * MAX_MARKS marks the rest are left out of what is shown and counted in one last mark, so that a text of
 * a million hidden characters neither fills the page with marks nor keeps one that reorders what follows;
 * `all` marks every one, in its place (for JSON, where each becomes an escape).
 */
export function revealParts(text: string, options: { all?: boolean } = {}): TextPart[] {
  const cap = options.all ? Infinity : MAX_MARKS;
  const parts: TextPart[] = [];
  let from = 0;
  let marks = 0;
  let left = 0;
  let leftRaw = '';
  CANDIDATE.lastIndex = 0;
  for (let match = CANDIDATE.exec(text); match; match = CANDIDATE.exec(text)) {
    const [found] = match;
    if (found.codePointAt(0) === FLAG_START) continue;
    const end = match.index + found.length;
    const chars = [...found];
    const before =
      match.index > 0 ? String.fromCodePoint(text.codePointAt(match.index - 1) as number) : undefined;
    // The character before, whole when it is the second half of a surrogate pair (an emoji).
    const whole =
      before !== undefined && /[\uDC00-\uDFFF]/.test(before) && match.index > 1
        ? String.fromCodePoint(text.codePointAt(match.index - 2) as number)
        : before;
    const after = end < text.length ? String.fromCodePoint(text.codePointAt(end) as number) : undefined;
    if (needed(chars, whole, after)) continue;
    if (match.index > from) parts.push(text.slice(from, match.index));
    from = end;
    if (marks >= cap) {
      left += chars.length;
      leftRaw += found;
      continue;
    }
    const run = marksOf(chars);
    marks += run.length;
    parts.push(...run);
  }
  if (from < text.length || parts.length === 0) parts.push(text.slice(from));
  if (left) {
    parts.push({
      shown: `[${plural(left, 'more hidden character')}, left out]`,
      title: `Past ${MAX_MARKS} marks, the text's other hidden characters are counted here and not shown`,
      raw: leftRaw,
    });
  }
  return parts;
}

/**
 * `revealParts` of `text` when it holds a character to show, else undefined: one pass for both questions.
 * Cheap for the text most servers send, which holds no candidate at all.
 */
export function hiddenParts(text: string, options: { all?: boolean } = {}): TextPart[] | undefined {
  CANDIDATE.lastIndex = 0;
  if (!CANDIDATE.test(text)) return undefined;
  const parts = revealParts(text, options);
  return parts.some((part) => typeof part !== 'string') ? parts : undefined;
}

/** Enough UTF-16 units to hold `count` of even the longest graphemes (emoji joined in families). */
const UNITS_A_GRAPHEME = 32;

/** The graphemes (what a reader sees as one character) of `text`. */
function graphemes(text: string): string[] {
  return Array.from(
    new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text),
    (s) => s.segment,
  );
}

/**
 * `parts` with each plain run longer than `keep` characters cut to its two ends around an ellipsis: where
 * the marks of a long text sit, without the whole text. It is cut between graphemes, so that a flag or an
 * emoji is kept whole or left out whole.
 */
export function elidePlain(parts: TextPart[], keep: number): TextPart[] {
  const half = Math.max(1, Math.floor(keep / 2));
  return parts.map((part) => {
    if (typeof part !== 'string' || part.length <= keep) return part;
    const span = half * UNITS_A_GRAPHEME;
    // A long run has only its two ends split into graphemes: it may be a megabyte long.
    const [start, end] =
      part.length <= 2 * span
        ? [graphemes(part), undefined]
        : [graphemes(part.slice(0, span)), graphemes(part.slice(-span))];
    if (!end && start.length <= keep) return part;
    return `${start.slice(0, half).join('')}…${(end ?? start).slice(-half).join('')}`;
  });
}

/** Whether `text` holds a character `revealParts` would show. */
export function hasHidden(text: string): boolean {
  return hiddenParts(text) !== undefined;
}

/**
 * `text` with its hidden characters written out, for places that take plain text (an attribute, an option).
 * `spell: false` names what tags or selector bytes spell by its length only, for a value that must hold no
 * text of the source's choosing beyond what it held (an attribute a sanitiser has checked).
 */
export function revealHidden(text: string, options: { spell?: boolean } = {}): string {
  const parts = hiddenParts(text);
  if (!parts) return text;
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const shown = part.spells && options.spell === false ? `[${[...part.raw].length} hidden]` : part.shown;
      return shown + (part.keep ? part.raw : '');
    })
    .join('');
}

/**
 * JSON text with its hidden characters as `\u` escapes: the same JSON, which now shows them. They can
 * only be inside its strings, where an escape means the same character.
 */
export function escapeHidden(json: string): string {
  const parts = hiddenParts(json, { all: true });
  if (!parts) return json;
  return parts
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
