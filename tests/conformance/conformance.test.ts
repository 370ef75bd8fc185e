import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ROOT } from '../daemon/helpers.ts';

const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
/** The runner splits the command on spaces and appends the scenario server's URL. */
const ADAPTER = `${process.execPath} --import tsx tests/conformance/adapter.ts`;

interface Check {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

interface RunnerResult {
  exitCode: number;
  output: string;
  checks: Check[];
}

/** Runs `conformance client` for one scenario with its results in a temporary folder. */
async function runScenario(scenario: string, command = ADAPTER): Promise<RunnerResult> {
  const outputDir = await mkdtemp(join(tmpdir(), 'conformance-results-'));
  onTestFinished(() => rm(outputDir, { recursive: true, force: true }));
  const { INSPECTOR_DAEMON_URL: _url, INSPECTOR_DAEMON_TOKEN: _token, ...env } = process.env;
  const args = [CLI, 'client', '--command', command, '--scenario', scenario, '-o', outputDir];
  const { exitCode, output } = await new Promise<{ exitCode: number; output: string }>((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, env, timeout: 50_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ exitCode: code, output: `${stdout}${stderr}` });
    });
  });
  const [resultDir] = await readdir(outputDir);
  const checks: Check[] = resultDir
    ? JSON.parse(await readFile(join(outputDir, resultDir, 'checks.json'), 'utf8'))
    : [];
  const clientStderr = resultDir
    ? await readFile(join(outputDir, resultDir, 'stderr.txt'), 'utf8').catch(() => '')
    : '';
  return { exitCode, checks, output: `${output}\n--- client stderr ---\n${clientStderr}` };
}

/** Asserts the runner's verdict and that each named check succeeded, showing the runner's output if not. */
function expectPassed(result: RunnerResult, checkIds: string[]): void {
  const verdicts = result.checks
    .filter((check) => check.status !== 'INFO')
    .map(({ id, status, errorMessage }) => ({ id, status, ...(errorMessage && { errorMessage }) }));
  expect(
    verdicts.filter((check) => check.status !== 'SUCCESS'),
    result.output,
  ).toEqual([]);
  expect(
    checkIds.map((id) => verdicts.find((check) => check.id === id)?.status),
    result.output,
  ).toEqual(checkIds.map(() => 'SUCCESS'));
  expect(result.exitCode, result.output).toBe(0);
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
});
