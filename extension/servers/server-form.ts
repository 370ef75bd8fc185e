import type { ServerConfig, ServerEra } from '../../shared/servers';

export type TransportChoice = 'stdio' | 'sse' | 'http' | 'websocket';

/** The editor's text fields; lists are one entry per line so pasting from a terminal just works. */
export interface ServerDraft {
  id: string;
  name: string;
  transport: TransportChoice;
  command: string;
  args: string;
  env: string;
  cwd: string;
  url: string;
  headers: string;
  /** The MCP era to speak: `auto` (the default, not stored), `legacy` or `modern`. */
  era: ServerEra;
}

export function emptyDraft(): ServerDraft {
  return {
    id: '',
    name: '',
    transport: 'stdio',
    command: '',
    args: '',
    env: '',
    cwd: '',
    url: '',
    headers: '',
    era: 'auto',
  };
}

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** `KEY=value` (env) or `Name: value` (headers) lines into a map; a line without the separator is a problem. */
export function parsePairs(
  text: string,
  separator: '=' | ':',
): { values: Record<string, string>; problems: string[] } {
  const values: Record<string, string> = {};
  const problems: string[] = [];
  for (const line of lines(text)) {
    const at = line.indexOf(separator);
    if (at <= 0) problems.push(`"${line}" has no "${separator}"`);
    else values[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { values, problems };
}

export function draftFromConfig(id: string, name: string, config: ServerConfig): ServerDraft {
  const draft = { ...emptyDraft(), id, name, era: config.era ?? 'auto' };
  if (config.transport === 'stdio') {
    return {
      ...draft,
      transport: 'stdio',
      command: config.command,
      args: (config.args ?? []).join('\n'),
      env: Object.entries(config.env ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join('\n'),
      cwd: config.cwd ?? '',
    };
  }
  return {
    ...draft,
    transport: config.transport,
    url: config.url,
    headers: Object.entries(config.headers ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
  };
}

/** The config to PUT, or the problems that stop it. */
export function configFromDraft(draft: ServerDraft): { config?: ServerConfig; problems: string[] } {
  const problems: string[] = [];
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(draft.id)) {
    problems.push('Id: letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
  if (draft.transport === 'stdio') {
    if (!draft.command.trim()) problems.push('Command is required');
    const env = parsePairs(draft.env, '=');
    problems.push(...env.problems.map((p) => `Environment: ${p}`));
    const config: ServerConfig = { transport: 'stdio', command: draft.command.trim() };
    const args = lines(draft.args);
    if (args.length) config.args = args;
    if (Object.keys(env.values).length) config.env = env.values;
    if (draft.cwd.trim()) config.cwd = draft.cwd.trim();
    if (draft.era !== 'auto') config.era = draft.era;
    return problems.length ? { problems } : { config, problems };
  }
  if (draft.transport === 'websocket') {
    if (!/^wss?:\/\/\S+$/.test(draft.url.trim())) problems.push('URL must start with ws:// or wss://');
  } else if (!/^https?:\/\/\S+$/.test(draft.url.trim())) {
    problems.push('URL must start with http:// or https://');
  }
  const headers = parsePairs(draft.headers, ':');
  problems.push(...headers.problems.map((p) => `Headers: ${p}`));
  const config: ServerConfig = { transport: draft.transport, url: draft.url.trim() };
  if (Object.keys(headers.values).length) config.headers = headers.values;
  if (draft.era !== 'auto') config.era = draft.era;
  return problems.length ? { problems } : { config, problems };
}

/** Accepts `{ "mcpServers": {...} }` or the inner map alone, as users paste either. */
export function parseMcpServersJson(text: string): {
  mcpServers?: Record<string, unknown>;
  problem?: string;
} {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return { problem: 'Expected a JSON object' };
  const map = 'mcpServers' in parsed ? (parsed as { mcpServers: unknown }).mcpServers : parsed;
  if (!map || typeof map !== 'object' || Array.isArray(map) || !Object.keys(map).length) {
    return { problem: 'Expected { "mcpServers": { "<id>": { "command" … } } } with at least one server' };
  }
  return { mcpServers: map as Record<string, unknown> };
}
