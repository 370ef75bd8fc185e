import { readFile } from 'node:fs/promises';
import { checkServerConfigs } from './check-config.ts';
import { parseMcpServers, type StoredServer } from './registry-file.ts';

/** A config file that cannot be imported; the message names the file, what is wrong and the fix. */
export class ConfigFileError extends Error {
  override name = 'ConfigFileError';
}

/**
 * Reads an `mcpServers` file given at start (`--config FILE` or `INSPECTOR_CONFIG`) and checks every
 * entry as a `PUT` would. `origin` is how the user named the file, so the message can say where to fix
 * it: `--config` or `INSPECTOR_CONFIG`.
 */
export async function readConfigFile(
  file: string,
  origin: '--config' | 'INSPECTOR_CONFIG',
): Promise<StoredServer[]> {
  const where = origin === '--config' ? `--config ${file}` : `INSPECTOR_CONFIG=${file}`;
  function fail(problem: string, fix: string): never {
    throw new ConfigFileError(`${where}: ${problem}; ${fix}`);
  }
  const pathFix = origin === '--config' ? 'check the path' : 'check the path, or unset INSPECTOR_CONFIG';

  let text: string;
  try {
    // An editor's byte order mark is not JSON, but nothing a person would call wrong with the file.
    text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') fail('no such file', pathFix);
    if (code === 'EISDIR') fail('is a folder, not a file', pathFix);
    if (code === 'EACCES' || code === 'EPERM') fail('not allowed to read it', 'check its permissions');
    fail(`cannot read it (${(error as Error).message})`, pathFix);
  }
  if (!text.trim()) fail('the file is empty', `write {"mcpServers": {…}} in it`);

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const { message } = error as Error;
    // V8 names the position of most errors; the scanner finds the others ("Unexpected token").
    const position = /at position (\d+)/.exec(message)?.[1];
    const { line, column } = lineAndColumn(text, position ? Number(position) : jsonErrorOffset(text));
    fail(`not JSON at line ${line}, column ${column} (${jsonProblem(message)})`, 'fix the file there');
  }

  const shape = shapeProblem(json);
  if (shape) fail(shape, 'the file needs {"mcpServers": {"<name>": {"command": …} or {"url": …}}}');

  let servers: StoredServer[];
  try {
    // parseMcpServers names each bad entry after the source it is given: `<where>: "<id>": <problem>`.
    servers = parseMcpServers(json, where);
  } catch (error) {
    const entries = (error as Error).message.slice(where.length + 2);
    fail(`wrong entries in mcpServers: ${entries}`, 'fix or remove them');
  }
  try {
    checkServerConfigs(servers.map(({ id, config }) => ({ path: `mcpServers.${id}`, config })));
  } catch (error) {
    fail((error as Error).message, 'fix or remove these entries');
  }
  return servers;
}

/** What is wrong with the file's top level, or nothing when it holds an `mcpServers` object. */
function shapeProblem(json: unknown): string | undefined {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    const found = json === null ? 'null' : Array.isArray(json) ? 'an array' : `a ${typeof json}`;
    return `expected an object with "mcpServers", found ${found}`;
  }
  const file = json as Record<string, unknown>;
  if (!('mcpServers' in file)) {
    // VS Code's mcp.json names the same entries "servers".
    if ('servers' in file) return 'it has "servers" (VS Code\'s mcp.json) where "mcpServers" is expected';
    return 'no "mcpServers" in it';
  }
  const servers = file.mcpServers;
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    return '"mcpServers" is not an object of named servers';
  }
  return undefined;
}

/** V8's description of a JSON syntax error without its position and quoted text. */
function jsonProblem(message: string): string {
  return message
    .replace(/ (?:in JSON )?at position \d+.*$/s, '')
    .replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, '');
}

/** Line and column (from 1) of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/**
 * Where a text that JSON.parse refused first goes wrong: a small scanner, since V8's message gives the
 * position for some errors only. Returns the offset of the first character that cannot continue a JSON
 * text (the text's length when it ends too early; the start of a malformed number).
 */
function jsonErrorOffset(text: string): number {
  let at = 0;
  const spaces = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at++;
  };
  function fail(): never {
    throw at;
  }
  const literal = (word: string): void => {
    for (const char of word) {
      if (text[at] !== char) fail();
      at++;
    }
  };
  const string = (): void => {
    at++; // the opening quote
    for (;;) {
      const char = text[at];
      if (char === undefined || char < ' ') fail();
      if (char === '"') {
        at++;
        return;
      }
      if (char === '\\') {
        at++;
        const escape = text[at];
        if (escape === 'u') {
          for (let i = 1; i <= 4; i++) if (!/[0-9a-fA-F]/.test(text[at + i] ?? '')) fail();
          at += 5;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) at++;
        else fail();
      } else at++;
    }
  };
  const number = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!match) fail();
    at += match[0].length;
  };
  const value = (): void => {
    spaces();
    const char = text[at];
    if (char === '{') {
      at++;
      spaces();
      if (text[at] === '}') {
        at++;
        return;
      }
      for (;;) {
        spaces();
        if (text[at] !== '"') fail();
        string();
        spaces();
        if (text[at] !== ':') fail();
        at++;
        value();
        spaces();
        if (text[at] === ',') at++;
        else if (text[at] === '}') {
          at++;
          return;
        } else fail();
      }
    }
    if (char === '[') {
      at++;
      spaces();
      if (text[at] === ']') {
        at++;
        return;
      }
      for (;;) {
        value();
        spaces();
        if (text[at] === ',') at++;
        else if (text[at] === ']') {
          at++;
          return;
        } else fail();
      }
    }
    if (char === '"') return string();
    if (char === 't') return literal('true');
    if (char === 'f') return literal('false');
    if (char === 'n') return literal('null');
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return number();
    fail();
  };
  try {
    value();
    spaces();
    if (at < text.length) fail();
  } catch (offset) {
    if (typeof offset === 'number') return Math.min(offset, text.length);
    throw offset;
  }
  return text.length;
}
