/**
 * `inspector-daemon diff SERVER --against SESSION.jsonl`: lists the live server's tools, resources and
 * prompts and says what was added, removed or changed (which fields) since the recording.
 * Exit 0 when the same, 4 when anything differs, 2 on a usage problem, 3 when the server cannot be reached.
 */
import type { JsonObject } from '../../shared/api.ts';
import { exchanges, SessionFileError } from '../../shared/session-file.ts';
import {
  describeDiff,
  diffListings,
  hasDifferences,
  KINDS,
  ListingProblem,
  type Kind,
  type Listings,
  recordedListings,
} from '../recording/list-diff.ts';
import { readSession } from '../recording/read-session.ts';
import { EXIT } from './exit-codes.ts';
import { classify, guarded, usageError } from './failure.ts';
import { SERVER_HELP } from './help.ts';
import { outputMode, print } from './output.ts';
import type { Session } from './session.ts';
import { parseCommand, TARGET_OPTIONS, withSession } from './target.ts';
import { terminalSafe } from './terminal-safe.ts';

const USAGE = `Usage: inspector-daemon diff SERVER --against SESSION.jsonl [--json | --pretty]

  Compares the server's tools, resources and prompts with those listed in a recorded session
  (inspector-daemon record, or the panel's Logs view): what was added, removed, and changed, with the
  fields that changed (description, inputSchema.properties.x.type, arguments[name].required…).
  Only the kinds the recording listed are compared.

  --against FILE       the recorded session to compare with
${SERVER_HELP}

Exit codes: 0 the same, 4 something differs, 2 usage, 3 no connection, 1 the server answered an error.`;

const OPTIONS = { ...TARGET_OPTIONS, against: { type: 'string' } } as const;

const LISTERS: Record<Kind, (session: Session) => Promise<JsonObject[]>> = {
  tools: (session) => session.listTools(),
  resources: (session) => session.listResources(),
  prompts: (session) => session.listPrompts(),
};

export function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return guarded('diff', async () => {
    const { values, positionals } = parseCommand(argv, OPTIONS);
    if (values.help) {
      console.log(USAGE);
      return EXIT.ok;
    }
    if (positionals.length) throw usageError(`unexpected argument "${positionals[0]}"`);
    const against = values.against as string | undefined;
    if (!against) throw usageError('--against SESSION.jsonl is needed: the recording to compare with');
    const mode = outputMode(values);
    let recorded: Listings;
    try {
      recorded = recordedListings(exchanges(await readSession(against)));
    } catch (error) {
      if (error instanceof SessionFileError) throw usageError(error.message);
      if (error instanceof ListingProblem) throw usageError(`${against}: ${error.message}`);
      throw error;
    }
    if (Object.keys(recorded).length === 0) {
      throw usageError(
        `${against} has no tools/list, resources/list or prompts/list answer to compare with; record one with inspector-daemon record`,
      );
    }
    const live = await withSession(values, env, async (session) => {
      const listings: Listings = {};
      for (const { kind } of KINDS) if (recorded[kind]) listings[kind] = await listOrNone(session, kind);
      return listings;
    });
    const diff = diffListings(recorded, live);
    const same = !hasDifferences(diff);
    print(mode, { same, ...diff }, () => describeDiff(diff));
    return same ? EXIT.ok : EXIT.assertion;
  });
}

/**
 * The live listing of a kind. A server that answers the listing with an error (it no longer declares
 * prompts, say) lists none: every recorded item shows as removed.
 */
async function listOrNone(session: Session, kind: Kind): Promise<JsonObject[]> {
  try {
    return await LISTERS[kind](session);
  } catch (error) {
    const failure = classify(error);
    if (failure.exitCode !== EXIT.serverError) throw failure;
    console.error(
      terminalSafe(`inspector-daemon diff: ${kind} cannot be listed (${failure.message}); compared as none`),
    );
    return [];
  }
}
