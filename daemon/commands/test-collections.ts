/**
 * The files `inspector-daemon test` runs: saved-request collections exported from the panel (or a bare
 * list of requests), read with the export format's own validation (shared/saved-requests.ts). A file
 * with any problem stops the run before a server is started: a test silently left out would pass.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { exceedsDepth, MAX_MESSAGE_DEPTH } from '../../shared/json-depth.ts';
import { parseSavedRequestsExport, type SavedRequest } from '../../shared/saved-requests.ts';
import { usageError } from './failure.ts';

export interface Collection {
  /** The path as given on the command line. */
  file: string;
  /** The file's name without `.json`: the suite's name in reports. */
  name: string;
  /** The server the requests were saved against (`serverId` of an export); none for a bare list. */
  serverId?: string;
  requests: SavedRequest[];
}

/** How many problems of a file are quoted before "and N more". */
const QUOTED_PROBLEMS = 5;

export async function readCollection(file: string): Promise<Collection> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw usageError(
      `cannot read ${file}${code === 'ENOENT' ? ': no such file' : `: ${(error as Error).message}`}`,
    );
  }
  let json: unknown;
  try {
    // A byte order mark (some editors write one) is not part of the JSON.
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw usageError(`${file} is not JSON: ${(error as Error).message}`);
  }
  // Parameters go to the server as a message, and a snapshot is compared with one: deeper than a message
  // may be, neither could ever hold.
  if (exceedsDepth(json, MAX_MESSAGE_DEPTH)) {
    throw usageError(`${file} nests objects or arrays more than ${MAX_MESSAGE_DEPTH} levels deep`);
  }
  const { requests, problems } = parseSavedRequestsExport(json);
  if (problems.length > 0) {
    const quoted = problems.slice(0, QUOTED_PROBLEMS).join('; ');
    const more = problems.length > QUOTED_PROBLEMS ? ` (and ${problems.length - QUOTED_PROBLEMS} more)` : '';
    throw usageError(`${file} is not a saved-requests collection: ${quoted}${more}`);
  }
  // A run of no request would pass, whatever the server does.
  if (requests.length === 0) throw usageError(`${file} holds no requests: there is nothing to test`);
  const serverId =
    typeof json === 'object' && json !== null && !Array.isArray(json) && 'serverId' in json
      ? (json as { serverId?: unknown }).serverId
      : undefined;
  return {
    file,
    name: basename(file).replace(/\.json$/i, ''),
    ...(typeof serverId === 'string' && serverId !== '' && { serverId }),
    requests,
  };
}
