/**
 * The subcommands of `inspector-daemon` (anything but starting the daemon): each is loaded only when it
 * runs, so starting the daemon never pays for them. A command module exports
 * `run(args, env): Promise<number>` and answers the process's exit code (see exit-codes.ts).
 */
import { EXIT } from './exit-codes.ts';

type CommandModule = { run(args: string[], env: NodeJS.ProcessEnv): Promise<number> };

export const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {};

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
  return (await command.load()).run(args, env);
}
