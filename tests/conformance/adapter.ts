/**
 * The daemon as the client under test of `@modelcontextprotocol/conformance`:
 *   node --import tsx tests/conformance/adapter.ts <serverUrl>
 * The runner appends the scenario server's URL and names the scenario in MCP_CONFORMANCE_SCENARIO.
 * Everything goes through the daemon's HTTP API, as the web app would drive it. The daemon runs in
 * this process unless INSPECTOR_DAEMON_URL (and INSPECTOR_DAEMON_TOKEN) name a running one.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionOutcome, JsonObject, ToolsListResponse } from '../../shared/api.ts';
import type { ServerRecord } from '../../shared/servers.ts';
import { authorizationUrlOf, authSettingsFor, followAuthorization } from './oauth-browser.ts';

interface Api {
  call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

interface ToolCall {
  name: string;
  arguments: JsonObject;
}

/** What each scenario needs the client to do once connected; other scenarios call every tool. */
const SCENARIO_CALLS: Record<string, ToolCall[]> = {
  initialize: [],
  tools_call: [{ name: 'add_numbers', arguments: { a: 5, b: 3 } }],
  'elicitation-sep1034-client-defaults': [{ name: 'test_client_elicitation_defaults', arguments: {} }],
  'sse-retry': [{ name: 'test_reconnection', arguments: {} }],
  // The tools are only listed: the scenario watches whether their schema's network $ref is fetched.
  'json-schema-ref-no-deref': [],
};

/** Scenarios whose calls depend on what the daemon listed. */
const LISTED_CALLS: Record<string, (listed: ToolsListResponse) => ToolCall[]> = {
  // The focal tool's inputSchema, as the daemon passed it on, is echoed back for the runner to compare.
  'json-schema-2020-12-preservation': ({ tools }) => [
    {
      name: 'json_schema_echo',
      arguments: { schema: tools.find((t) => t.name === 'json_schema_2020_12_tool')?.inputSchema ?? {} },
    },
  ],
};

/** The calls the runner asks for in MCP_CONFORMANCE_CONTEXT (`{ toolCalls: [{ name, arguments }] }`). */
function contextCalls(): ToolCall[] | undefined {
  try {
    const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { toolCalls?: ToolCall[] };
    return Array.isArray(context.toolCalls) ? context.toolCalls : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const serverUrl = process.argv.at(-1);
  if (!serverUrl || !/^https?:\/\//.test(serverUrl)) throw new Error('usage: adapter.ts <serverUrl>');
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const api = await openDaemon();
  const id = `conformance-${scenario.replace(/[^A-Za-z0-9._-]/g, '-') || 'client'}`.slice(0, 64);
  try {
    await expectStatus(
      api.call<ServerRecord>('PUT', `/servers/${id}`, {
        config: { transport: 'http', url: serverUrl, ...withAuth(authSettingsFor(scenario)) },
      }),
      [200, 201],
    );
    const record = await expectStatus(
      signedIn(() => api.call<ServerRecord>('POST', `/servers/${id}/connect`)),
      [200],
    );
    log(`connected to ${record.serverInfo?.name ?? serverUrl} (protocol ${record.protocolVersion})`);
    const listed = await expectStatus(
      signedIn(() => api.call<ToolsListResponse>('POST', '/tools/list', { serverId: id })),
      [200],
    );
    const { tools } = listed;
    log(`tools: ${tools.map((t) => t.name).join(', ') || '(none)'}`);
    const calls =
      SCENARIO_CALLS[scenario] ??
      LISTED_CALLS[scenario]?.(listed) ??
      contextCalls() ??
      tools.map((t) => ({ name: t.name, arguments: sampleArguments(t) }));
    for (const call of calls) {
      const refusal = listed.invalidHeaders?.[call.name];
      if (refusal) await expectRefused(api, id, call, refusal);
      else await execute(api, id, call);
    }
    if (scenario === 'http-standard-headers') await browse(api, id);
  } finally {
    if (process.env.INSPECTOR_DAEMON_URL) await api.call('DELETE', `/servers/${id}`).catch(() => {});
    await api.close();
  }
}

/** Runs one tool and answers every elicitation by accepting it empty, so the client's defaults apply. */
async function execute(api: Api, serverId: string, call: ToolCall): Promise<void> {
  let outcome = await expectStatus(
    signedIn(() =>
      api.call<ExecutionOutcome>('POST', '/tools/execute', {
        serverId,
        toolName: call.name,
        parameters: call.arguments,
      }),
    ),
    [200, 202],
  );
  while (outcome.status === 'elicitation_required') {
    log(`elicitation for ${call.name}: accepting with empty content`);
    outcome = await expectStatus(
      api.call<ExecutionOutcome>('POST', '/tools/respond', {
        requestId: outcome.requestId,
        response: { action: 'accept', content: {} },
      }),
      [200, 202],
    );
  }
  if (outcome.status !== 'completed') throw new Error(`${call.name} ended ${outcome.status}`);
  log(`${call.name}: ${JSON.stringify(outcome.result)}`);
}

/**
 * Lists and reads resources and prompts too, so every request that carries the standard headers is
 * sent once; what the server answers does not matter to the scenario.
 */
async function browse(api: Api, serverId: string): Promise<void> {
  const steps: Array<[string, JsonObject]> = [
    ['/resources/list', { serverId }],
    ['/resources/read', { serverId, uri: 'test://resource' }],
    ['/prompts/list', { serverId }],
    ['/prompts/get', { serverId, name: 'test_prompt' }],
  ];
  for (const [path, body] of steps) {
    const { status } = await api.call('POST', path, body);
    log(`${path}: ${status}`);
  }
}

/** A tool the daemon listed as uncallable (invalid x-mcp-header) is refused with 400, never sent. */
async function expectRefused(api: Api, serverId: string, call: ToolCall, reason: string): Promise<void> {
  const body = await expectStatus(
    api.call<{ code: string }>('POST', '/tools/execute', {
      serverId,
      toolName: call.name,
      parameters: call.arguments,
    }),
    [400],
  );
  log(`${call.name}: refused (${body.code}): ${reason}`);
}

const withAuth = <T>(auth: T | undefined) => (auth ? { auth } : {});

/**
 * A call that the daemon may answer `authorization_required`: the authorization URL is opened like a
 * browser would (the redirect ends at the daemon's callback, which connects), then the call is made
 * again. At most 3 sign-ins a call.
 */
async function signedIn<T>(
  call: () => Promise<{ status: number; body: T }>,
): Promise<{ status: number; body: T }> {
  let answer = await call();
  for (let attempt = 0; attempt < 3; attempt++) {
    const url = authorizationUrlOf(answer.body);
    if (!url) return answer;
    log(`sign-in needed: following the authorization URL`);
    const { status, page } = await followAuthorization(url);
    log(
      `callback page ${status}: ${page
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 300)}`,
    );
    answer = await call();
  }
  return answer;
}

/** A value of the right type for each required property, for scenarios this adapter does not know. */
function sampleArguments(tool: ToolsListResponse['tools'][number]): JsonObject {
  const schema = tool.inputSchema as { properties?: Record<string, { type?: string }>; required?: string[] };
  const samples: Record<string, unknown> = { number: 1, integer: 1, boolean: true, string: 'x', object: {} };
  const args: JsonObject = {};
  for (const name of schema.required ?? []) {
    const type = schema.properties?.[name]?.type ?? 'string';
    args[name] = type === 'array' ? [] : samples[type];
  }
  return args;
}

async function openDaemon(): Promise<Api> {
  const external = process.env.INSPECTOR_DAEMON_URL;
  if (external) return httpApi(external.replace(/\/$/, ''), process.env.INSPECTOR_DAEMON_TOKEN ?? null, []);
  const { createDaemon } = await import('../../daemon/app.ts');
  const { defaultOptions } = await import('../../daemon/options.ts');
  const dataDir = await mkdtemp(join(tmpdir(), 'inspector-conformance-'));
  const daemon = await createDaemon(
    defaultOptions({ port: 0, dataDir, token: randomBytes(24).toString('hex'), log }),
  );
  const url = await daemon.listen();
  return httpApi(url, daemon.token, [
    () => daemon.close(),
    () => rm(dataDir, { recursive: true, force: true }),
  ]);
}

function httpApi(baseUrl: string, token: string | null, cleanups: Array<() => Promise<void>>): Api {
  return {
    async call(method, path, body) {
      const response = await fetch(`${baseUrl}/api/mcp${path}`, {
        method,
        headers: {
          ...(token && { 'X-Inspector-Token': token }),
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as never };
    },
    async close() {
      for (const cleanup of cleanups) await cleanup();
    },
  };
}

async function expectStatus<T>(
  pending: Promise<{ status: number; body: T }>,
  statuses: number[],
): Promise<T> {
  const { status, body } = await pending;
  if (!statuses.includes(status)) throw new Error(`daemon answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** Progress goes to stderr: the runner keeps it in stderr.txt. */
function log(line: string): void {
  process.stderr.write(`[adapter] ${line}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
