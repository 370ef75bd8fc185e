/** `inspector-daemon prompts list | get NAME`. */
import { promptArguments } from './call-args.ts';
import { EXIT } from './exit-codes.ts';
import { guarded, usageError } from './failure.ts';
import { SERVER_HELP } from './help.ts';
import { outputMode, print, readablePrompt, readablePrompts } from './output.ts';
import { parseCommand, TARGET_OPTIONS, withSession } from './target.ts';

const USAGE = `Usage: inspector-daemon prompts list [SERVER]
       inspector-daemon prompts get NAME [--arg KEY=VALUE]... [--args JSON] [SERVER]

  --arg KEY=VALUE      one argument (repeatable); prompt arguments are strings
  --args JSON          the arguments as a JSON object
${SERVER_HELP}

Exit codes: 0 ok, 1 the server answered an error, 2 usage, 3 no connection.`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  args: { type: 'string' },
  arg: { type: 'string', multiple: true },
} as const;

export function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return guarded('prompts', async () => {
    const { values, positionals } = parseCommand(argv, OPTIONS);
    if (values.help) {
      console.log(USAGE);
      return EXIT.ok;
    }
    const [action, name, ...extra] = positionals;
    const mode = outputMode(values);
    if (action === 'list') {
      if (name !== undefined) throw usageError(`unexpected argument "${name}"`);
      const prompts = await withSession(values, env, (s) => s.listPrompts());
      print(mode, { prompts }, ({ prompts }) => readablePrompts(prompts));
      return EXIT.ok;
    }
    if (action === 'get') {
      if (name === undefined) throw usageError('prompts get needs the prompt name: prompts get NAME');
      if (extra.length) throw usageError(`unexpected argument "${extra[0]}"`);
      const args = promptArguments(
        values.args as string | undefined,
        (values.arg as string[] | undefined) ?? [],
      );
      const result = await withSession(values, env, (s) => s.getPrompt(name, args));
      print(mode, result, readablePrompt);
      return EXIT.ok;
    }
    throw usageError(
      action === undefined ? 'prompts needs list or get' : `prompts has no "${action}": use list or get`,
    );
  });
}
