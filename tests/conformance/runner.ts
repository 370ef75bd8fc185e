/** Runs `conformance client` scenarios with the daemon as the client, through tests/conformance/adapter.ts. */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { ROOT } from '../daemon/helpers.ts';

const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
/** The runner splits the command on spaces and appends the scenario server's URL. */
export const ADAPTER = `${process.execPath} --import tsx tests/conformance/adapter.ts`;

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED' | string;
  errorMessage?: string;
}

export interface RunnerResult {
  exitCode: number;
  output: string;
  checks: Check[];
}

/** The folder the runner wrote one scenario's results to: `<out>/<run>`, or `<out>/auth/<run>` for auth/*. */
async function resultDirOf(outputDir: string, scenario: string): Promise<string | undefined> {
  const parent = scenario.startsWith('auth/') ? join(outputDir, 'auth') : outputDir;
  const [dir] = await readdir(parent).catch(() => []);
  return dir ? join(parent, dir) : undefined;
}

/** Runs one scenario (at the runner's default wire, or `specVersion`), its results in a temporary folder. */
export async function runScenario(
  scenario: string,
  command = ADAPTER,
  specVersion?: string,
): Promise<RunnerResult> {
  const outputDir = await mkdtemp(join(tmpdir(), 'conformance-results-'));
  onTestFinished(() => rm(outputDir, { recursive: true, force: true }));
  const { INSPECTOR_DAEMON_URL: _url, INSPECTOR_DAEMON_TOKEN: _token, ...env } = process.env;
  const args = [CLI, 'client', '--command', command, '--scenario', scenario, '-o', outputDir];
  if (specVersion) args.push('--spec-version', specVersion);
  const { exitCode, output } = await new Promise<{ exitCode: number; output: string }>((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, env, timeout: 50_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ exitCode: code, output: `${stdout}${stderr}` });
    });
  });
  const resultDir = await resultDirOf(outputDir, scenario);
  const checks: Check[] = resultDir ? JSON.parse(await readFile(join(resultDir, 'checks.json'), 'utf8')) : [];
  const clientStderr = resultDir ? await readFile(join(resultDir, 'stderr.txt'), 'utf8').catch(() => '') : '';
  return { exitCode, checks, output: `${output}\n--- client stderr ---\n${clientStderr}` };
}

/**
 * Asserts the runner's verdict and that each named check succeeded, showing the runner's output if not.
 * INFO checks and those with a status in `ignore` do not count; with `someChecks`, at least one must.
 */
export function expectPassed(
  result: RunnerResult,
  checkIds: string[],
  { ignore = [], someChecks = false }: { ignore?: string[]; someChecks?: boolean } = {},
): void {
  const verdicts = result.checks
    .filter((check) => check.status !== 'INFO' && !ignore.includes(check.status))
    .map(({ id, status, errorMessage }) => ({ id, status, ...(errorMessage && { errorMessage }) }));
  if (someChecks) expect(verdicts.length, result.output).toBeGreaterThan(0);
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
