/** `inspector-daemon resources list | read URI`. */
import { EXIT } from './exit-codes.ts';
import { guarded, usageError } from './failure.ts';
import { SERVER_HELP } from './help.ts';
import { outputMode, print, readableResource, readableResources } from './output.ts';
import { parseCommand, TARGET_OPTIONS, withSession } from './target.ts';

const USAGE = `Usage: inspector-daemon resources list [SERVER]
       inspector-daemon resources read URI [SERVER]

${SERVER_HELP}

Exit codes: 0 ok, 1 the server answered an error, 2 usage, 3 no connection.`;

export function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return guarded('resources', async () => {
    const { values, positionals } = parseCommand(argv, TARGET_OPTIONS);
    if (values.help) {
      console.log(USAGE);
      return EXIT.ok;
    }
    const [action, uri, ...extra] = positionals;
    const mode = outputMode(values);
    if (action === 'list') {
      if (uri !== undefined) throw usageError(`unexpected argument "${uri}"`);
      const resources = await withSession(values, env, (s) => s.listResources());
      print(mode, { resources }, ({ resources }) => readableResources(resources));
      return EXIT.ok;
    }
    if (action === 'read') {
      if (uri === undefined) throw usageError('resources read needs the URI: resources read URI');
      if (extra.length) throw usageError(`unexpected argument "${extra[0]}"`);
      const result = await withSession(values, env, (s) => s.readResource(uri));
      print(mode, result, readableResource);
      return EXIT.ok;
    }
    throw usageError(
      action === undefined
        ? 'resources needs list or read'
        : `resources has no "${action}": use list or read`,
    );
  });
}
