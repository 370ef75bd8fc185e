/** Reads a recorded-session file (shared/session-file.ts) from disk, with one clear line when it cannot. */
import { readFile, stat } from 'node:fs/promises';
import { parseSession, type Session, SessionFileError } from '../../shared/session-file.ts';

/** The largest file read whole: past about this, its text is longer than a JavaScript string can be. */
const MAX_SESSION_BYTES = 512 * 1024 * 1024;

export async function readSession(file: string): Promise<Session> {
  let text: string;
  try {
    const { size } = await stat(file);
    if (size > MAX_SESSION_BYTES) {
      throw new SessionFileError(
        `${file}: ${Math.round(size / 1024 / 1024).toLocaleString('en-US')} MiB, more than the 512 MiB a ` +
          'session file can be to be read: record a shorter session',
      );
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof SessionFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new SessionFileError(
      code === 'ENOENT'
        ? `${file}: no such file`
        : code === 'EISDIR'
          ? `${file} is a folder, not a session file`
          : `${file}: cannot be read (${code ?? (error as Error).message})`,
    );
  }
  return parseSession(text, file);
}
