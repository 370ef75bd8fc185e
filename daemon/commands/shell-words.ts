/**
 * Splits a command line as a POSIX shell would, without running anything: words split on blanks,
 * 'single quotes' kept literally, "double quotes" with \" \\ \$ \` escapes, and a backslash outside
 * quotes escaping the next character. Variables, globs and operators are not expanded.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (char === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error('a single quote is not closed');
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (char === '"') {
      inWord = true;
      for (i++; ; i++) {
        const next = line[i];
        if (next === undefined) throw new Error('a double quote is not closed');
        if (next === '"') break;
        if (next === '\\' && '"\\$`'.includes(line[i + 1] ?? '')) {
          word += line[i + 1];
          i++;
        } else word += next;
      }
    } else if (char === '\\') {
      const next = line[i + 1];
      if (next === undefined) throw new Error('the line ends with a backslash');
      if (next !== '\n') word += next;
      inWord = true;
      i++;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
