import { describe, it } from 'vitest';
import { ADAPTER, expectPassed as expectAllPassed, type RunnerResult, runScenario } from './runner.ts';

/** Every check succeeded but those SKIPPED: checks of a request the era does not have (initialize on 2026-07-28). */
function expectPassed(result: RunnerResult, checkIds: string[]): void {
  expectAllPassed(result, checkIds, { ignore: ['SKIPPED'] });
}

describe('MCP conformance suite with the daemon as the client', () => {
  it('initializes with a supported protocol version and its client name and version', async () => {
    expectPassed(await runScenario('initialize'), ['mcp-client-initialization']);
  });

  it('calls a tool with the arguments given through the API', async () => {
    expectPassed(await runScenario('tools_call'), ['tool-add-numbers']);
  });

  it('fills in schema defaults when an elicitation is accepted with empty content', async () => {
    expectPassed(await runScenario('elicitation-sep1034-client-defaults'), [
      'client-elicitation-sep1034-string-default',
      'client-elicitation-sep1034-integer-default',
      'client-elicitation-sep1034-number-default',
      'client-elicitation-sep1034-enum-default',
      'client-elicitation-sep1034-boolean-default',
    ]);
  });

  it('resumes a closed tool-call stream over GET with Last-Event-ID after the retry interval', async () => {
    expectPassed(await runScenario('sse-retry'), [
      'client-sse-graceful-reconnect',
      'client-sse-retry-timing',
      'client-sse-last-event-id',
    ]);
  });

  it('satisfies a scenario it is not told about by listing and calling every tool', async () => {
    const result = await runScenario(
      'elicitation-sep1034-client-defaults',
      `env -u MCP_CONFORMANCE_SCENARIO ${ADAPTER}`,
    );
    expectPassed(result, ['client-elicitation-sep1034-string-default']);
  });
  it('passes tool schemas on with every JSON Schema 2020-12 keyword kept', async () => {
    expectPassed(await runScenario('json-schema-2020-12-preservation'), SCHEMA_PRESERVATION_CHECKS);
  });
});

const SCHEMA_PRESERVATION_CHECKS = [
  'json-schema-2020-12-client-tool-found',
  'json-schema-2020-12-client-echo-completed',
  'json-schema-2020-12-client-$schema-preserved',
  'json-schema-2020-12-client-$defs-preserved',
  'json-schema-2020-12-client-additionalProperties-preserved',
  'sep-2106-client-anchor-keyword-preserved',
  'sep-2106-client-composition-keywords-preserved',
  'sep-2106-client-conditional-keywords-preserved',
];

describe('MCP conformance suite at 2026-07-28 with the daemon as the client (era auto)', () => {
  const modern = (scenario: string): Promise<RunnerResult> => runScenario(scenario, ADAPTER, '2026-07-28');

  it('calls a tool after server/discover', async () => {
    expectPassed(await modern('tools_call'), ['tool-add-numbers']);
  });

  it('sends the per-request _meta envelope and the protocol version header, and retries a version the server supports', async () => {
    expectPassed(await modern('request-metadata'), [
      'sep-2575-client-populates-meta',
      'sep-2575-client-sends-client-info',
      'sep-2575-client-declares-elicitation-capability',
      'sep-2575-client-declares-sampling-capability',
      'sep-2575-client-declares-roots-capability',
      'sep-2575-client-retry-supported-version',
      'sep-2575-http-client-sends-version-header',
      'sep-2575-http-version-header-matches-meta',
    ]);
  });

  it('answers input_required rounds, echoing requestState, and takes a result without resultType as complete', async () => {
    expectPassed(await modern('sep-2322-client-request-state'), [
      'sep-2322-client-request-state-echoed',
      'sep-2322-client-jsonrpc-id-different',
      'sep-2322-client-no-state-omitted',
      'sep-2322-client-parallel-isolation',
      'sep-2322-default-result-type-complete',
    ]);
  });

  it('sends Mcp-Method and Mcp-Name on tools, resources and prompts requests', async () => {
    expectPassed(await modern('http-standard-headers'), ['sep-2243-client-includes-standard-headers']);
  });

  it('mirrors x-mcp-header arguments into Mcp-Param-* headers, Base64 where needed, none for null', async () => {
    expectPassed(await modern('http-custom-headers'), [
      'sep-2243-client-supports-custom-headers',
      'sep-2243-client-mirrors-designated-params',
      'sep-2243-client-encode-values',
      'sep-2243-client-base64-unsafe',
      'sep-2243-client-omit-null',
    ]);
  });

  it('refuses to call tools whose x-mcp-header marks break the rules, and calls the valid one', async () => {
    expectPassed(await modern('http-invalid-tool-headers'), [
      'sep-2243-client-reject-invalid-tool',
      'sep-2243-x-mcp-header-not-empty',
      'sep-2243-x-mcp-header-primitive-only',
      'sep-2243-x-mcp-header-unique',
      'sep-2243-x-mcp-header-charset',
    ]);
  });

  it('never fetches a network $ref of a tool schema', async () => {
    expectPassed(await modern('json-schema-ref-no-deref'), ['sep-2106-no-network-ref-deref']);
  });

  it('passes tool schemas on with every JSON Schema 2020-12 keyword kept', async () => {
    expectPassed(await modern('json-schema-2020-12-preservation'), SCHEMA_PRESERVATION_CHECKS);
  });
});
