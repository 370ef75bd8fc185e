/** `inspector-daemon tools list | call NAME`: a server's tools, and calling one. */
import { EXIT } from './exit-codes.ts';
import { callArguments } from './call-args.ts';
import { guarded, usageError } from './failure.ts';
import { outputMode, print, readableToolResult, readableTools } from './output.ts';
import { parseCommand, TARGET_OPTIONS, withSession } from './target.ts';
import { SERVER_HELP } from './help.ts';
import { terminalSafe } from './terminal-safe.ts';

const USAGE = `Usage: inspector-daemon tools list [SERVER]
       inspector-daemon tools call NAME [--args JSON] [--arg KEY=VALUE]... [--answer JSON|FILE]... [SERVER]

  --args JSON          the tool's arguments as a JSON object
  --arg KEY=VALUE      one argument (repeatable); VALUE is parsed as JSON when it parses
  --answer JSON|FILE   answer to an elicitation, in order ({"action":"accept","content":{…}}; a list
                       for several); without one an elicitation is declined
${SERVER_HELP}

Exit codes: 0 ok, 1 the server answered an error (or the result has isError), 2 usage, 3 no connection.`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  args: { type: 'string' },
  arg: { type: 'string', multiple: true },
} as const;

export function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return guarded('tools', async () => {
    const { values, positionals } = parseCommand(argv, OPTIONS);
    if (values.help) {
      console.log(USAGE);
      return EXIT.ok;
    }
    const [action, name, ...extra] = positionals;
    const mode = outputMode(values);
    if (action === 'list') {
      if (name !== undefined) throw usageError(`unexpected argument "${name}"`);
      const tools = await withSession(values, env, (s) => s.listTools());
      print(mode, { tools }, ({ tools }) => readableTools(tools));
      return EXIT.ok;
    }
    if (action === 'call') {
      if (name === undefined) throw usageError('tools call needs the tool name: tools call NAME');
      if (extra.length) throw usageError(`unexpected argument "${extra[0]}"`);
      const args = callArguments(
        values.args as string | undefined,
        (values.arg as string[] | undefined) ?? [],
      );
      const { result, resultProblem } = await withSession(values, env, (s) => s.callTool(name, args));
      print(mode, result, readableToolResult);
      if (resultProblem !== undefined) {
        console.error(
          terminalSafe(
            `inspector-daemon tools: "${name}" returned a result that breaks the 2026-07-28 schema: ${resultProblem}`,
          ),
        );
        return EXIT.serverError;
      }
      if (result.isError === true) {
        console.error(`inspector-daemon tools: "${name}" returned an error result (isError)`);
        return EXIT.serverError;
      }
      return EXIT.ok;
    }
    throw usageError(
      action === undefined ? 'tools needs list or call' : `tools has no "${action}": use list or call`,
    );
  });
}
