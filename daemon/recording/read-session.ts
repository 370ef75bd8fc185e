/** Reads a recorded-session file (shared/session-file.ts) from disk, with one clear line when it cannot. */
import { readFile } from 'node:fs/promises';
import { parseSession, type Session, SessionFileError } from '../../shared/session-file.ts';

export async function readSession(file: string): Promise<Session> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SessionFileError(
      code === 'ENOENT'
        ? `${file}: no such file`
        : code === 'EISDIR'
          ? `${file} is a folder, not a session file`
          : `${file}: cannot be read (${code ?? 'error'})`,
    );
  }
  return parseSession(text, file);
}
