/**
 * The subcommands of `inspector-daemon` (anything but starting the daemon): each is loaded only when it
 * runs, so starting the daemon never pays for them. A command module exports
 * `run(args, env): Promise<number>` and answers the process's exit code (see exit-codes.ts).
 */
import { EXIT } from './exit-codes.ts';
import { endWhenOutputCloses } from './session.ts';

type CommandModule = { run(args: string[], env: NodeJS.ProcessEnv): Promise<number> };

export const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  tools: { summary: "list a server's tools, or call one", load: () => import('./tools.ts') },
  resources: { summary: "list a server's resources, or read one", load: () => import('./resources.ts') },
  prompts: { summary: "list a server's prompts, or get one", load: () => import('./prompts.ts') },
  servers: { summary: 'list, add or remove servers of the registry', load: () => import('./servers.ts') },
  test: {
    summary: 'run saved-request collections as tests (JUnit XML with --junit)',
    load: () => import('./test.ts'),
  },
  record: { summary: 'record a session with a server to a .jsonl file', load: () => import('./record.ts') },
  replay: { summary: 'serve a recorded session as an MCP server', load: () => import('./replay.ts') },
  diff: {
    summary: "compare a server's tools, resources and prompts with a recording",
    load: () => import('./diff.ts'),
  },
};

/** Whether `word` names a subcommand (the first argument that is not an option). */
export function isCommand(word: string | undefined): boolean {
  return word !== undefined && Object.hasOwn(COMMANDS, word);
}

export async function runCommand(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const command = COMMANDS[name];
  if (!command) {
    console.error(`inspector-daemon: unknown command "${name}" (see --help)`);
    return EXIT.usage;
  }
  endWhenOutputCloses(name === 'test');
  return (await command.load()).run(args, env);
}
