/**
 * `inspector-daemon test FILE…`: runs exported saved-request collections against their servers and
 * checks each request's expectations (shared/expectations.ts, as the panel checks them): a progress
 * line per request, a summary, JUnit XML with `--junit FILE`, and an exit code CI can act on.
 */
import { constants } from 'node:fs';
import { access, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { checkExpectations, describeExpectation, type Expectation } from '../../shared/expectations.ts';
import { vmTimeGuard } from '../time-guard.ts';
import type { SavedRequest } from '../../shared/saved-requests.ts';
import { EXIT } from './exit-codes.ts';
import { classify, CommandError, guarded, usageError } from './failure.ts';
import { SERVER_HELP } from './help.ts';
import { type CaseReport, junitXml, type SuiteReport } from './junit.ts';
import { terminalSafe } from './terminal-safe.ts';
import { interruption, type Session } from './session.ts';
import { type Collection, readCollection } from './test-collections.ts';
import {
  openTarget,
  parseCommand,
  resolveTarget,
  type Target,
  TARGET_OPTIONS,
  type Values,
} from './target.ts';

const USAGE = `Usage: inspector-daemon test FILE... [--junit REPORT.xml] [SERVER]

Runs every saved request of each FILE (a collection exported from the panel's Saved requests) and
checks its expectations. A request without expectations is expected not to be an error.

  --junit FILE         also write a JUnit XML report to FILE
  --answer JSON|FILE   answer to an elicitation, in order (without one an elicitation is declined)
${SERVER_HELP.replace(/^.*--json \| --pretty.*\n/, '')}

Each FILE runs against the server it was exported from (its "serverId", looked up in the registry or
--config); --server, --stdio or --url runs every FILE against that server instead.

Exit codes: 0 every expectation held, 2 usage (or a FILE that is not a collection), 3 a server could
not be reached, 4 an expectation failed or a request could not run.`;

const { json: _json, pretty: _pretty, ...CALLING_OPTIONS } = TARGET_OPTIONS;
const OPTIONS = { ...CALLING_OPTIONS, junit: { type: 'string' } } as const;

/** What a request without expectations is held to. */
const DEFAULT_EXPECTATIONS: Expectation[] = [{ kind: 'noError' }];

interface Totals {
  passed: number;
  failed: number;
  errors: number;
  /** A server could not be reached, or went away during the run. */
  unreachable: boolean;
}

export function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return guarded('test', async () => {
    const { values, positionals: files } = parseCommand(argv, OPTIONS);
    if (values.help) {
      console.log(USAGE);
      return EXIT.ok;
    }
    if (files.length === 0) throw usageError('test needs at least one collection file: test FILE...');
    const junit = typeof values.junit === 'string' ? values.junit : undefined;
    if (junit === '') throw usageError('--junit needs a file name');
    // Checked before anything runs: a report that cannot be written must not replace the run's result.
    if (junit !== undefined) {
      const folder = dirname(resolve(junit));
      await access(folder, constants.W_OK).catch((error: NodeJS.ErrnoException) => {
        throw usageError(
          `cannot write the JUnit report ${junit}: its folder ${folder} ${error.code === 'ENOENT' ? 'does not exist' : 'cannot be written'}`,
        );
      });
      if ((await stat(junit).catch(() => undefined))?.isDirectory()) {
        throw usageError(`cannot write the JUnit report ${junit}: it is a folder; name a file in it`);
      }
    }
    // Every file is read and every server resolved before anything runs: a typo fails at once.
    const collections = await Promise.all(files.map(readCollection));
    const targets: Target[] = [];
    for (const collection of collections) targets.push(await targetOf(collection, values, env));

    const started = performance.now();
    const totals: Totals = { passed: 0, failed: 0, errors: 0, unreachable: false };
    const suites: SuiteReport[] = [];
    for (const [index, collection] of collections.entries()) {
      suites.push(await runCollection(collection, targets[index]!, values, totals));
    }
    printSummary(totals, collections.length, performance.now() - started);
    if (junit !== undefined) {
      try {
        await writeFile(junit, junitXml(suites));
      } catch (error) {
        throw usageError(`cannot write the JUnit report ${junit}: ${(error as Error).message}`);
      }
      console.log(`JUnit report: ${junit}`);
    }
    if (totals.unreachable) return EXIT.connection;
    return totals.failed + totals.errors > 0 ? EXIT.assertion : EXIT.ok;
  });
}

/** A line of the run's report: titles, names and messages come from files and servers. */
const say = (line: string): void => console.log(terminalSafe(line));

/**
 * The server a collection runs against. --stdio/--url run every file against the server they give,
 * whatever the registry holds under the collection's id; otherwise --server, else the collection's own.
 */
async function targetOf(collection: Collection, values: Values, env: NodeJS.ProcessEnv): Promise<Target> {
  const inline = values.stdio !== undefined || values.url !== undefined;
  try {
    return await resolveTarget(values, env, inline ? undefined : collection.serverId);
  } catch (error) {
    if (error instanceof CommandError)
      throw new CommandError(`${collection.file}: ${error.message}`, error.exitCode);
    throw error;
  }
}

function targetName(target: Target): string {
  return target.kind === 'daemon' ? `"${target.serverId}" of the daemon` : target.label;
}

async function runCollection(
  collection: Collection,
  target: Target,
  values: Values,
  totals: Totals,
): Promise<SuiteReport> {
  const timestamp = new Date().toISOString().slice(0, 19);
  const started = performance.now();
  const count = collection.requests.length;
  say(`${collection.file}: ${count} request${count === 1 ? '' : 's'} against ${targetName(target)}`);
  const suite = (cases: CaseReport[]): SuiteReport => ({
    name: collection.name,
    properties: {
      file: collection.file,
      ...(collection.serverId && { serverId: collection.serverId }),
    },
    timestamp,
    seconds: (performance.now() - started) / 1000,
    cases,
  });

  let session: Session;
  try {
    session = await openTarget(target, values);
  } catch (error) {
    const failure = classify(error);
    if (failure.exitCode === EXIT.connection) totals.unreachable = true;
    say(`  ERROR ${failure.message}`);
    totals.errors += count;
    return suite(collection.requests.map((r) => notRun(collection, r, failure.message)));
  }
  const cases: CaseReport[] = [];
  try {
    const tools = toolsOf(session);
    for (const request of collection.requests) {
      const report = await runRequest(collection, request, session, tools);
      cases.push(report);
      if (report.error) totals.errors++;
      else if (report.failure) totals.failed++;
      else totals.passed++;
      if (report.error?.type === 'ConnectionError' || report.error?.type === 'Interrupted') {
        // The server went away (or the run was stopped): the rest cannot run, and say so rather than
        // each failing alike.
        const why =
          report.error.type === 'Interrupted' ? report.error.message : 'the server could not be reached';
        if (report.error.type === 'ConnectionError') totals.unreachable = true;
        const rest = collection.requests.slice(cases.length);
        cases.push(...rest.map((r) => notRun(collection, r, `not run: ${why}`)));
        totals.errors += rest.length;
        if (rest.length) say(`  ERROR ${rest.length} more not run: ${why}`);
        break;
      }
    }
  } finally {
    await session.close();
  }
  return suite(cases);
}

/** The tool list, asked for once and only when an outputSchema expectation needs it. */
function toolsOf(session: Session): () => Promise<Array<Record<string, unknown>>> {
  let tools: Promise<Array<Record<string, unknown>>> | undefined;
  return () => (tools ??= session.listTools());
}

async function runRequest(
  collection: Collection,
  request: SavedRequest,
  session: Session,
  tools: () => Promise<Array<Record<string, unknown>>>,
): Promise<CaseReport> {
  const className = `${collection.name}.${request.toolName}`;
  const expectations = request.expectations?.length ? request.expectations : DEFAULT_EXPECTATIONS;
  const started = performance.now();
  let result: Record<string, unknown>;
  let resultProblem: string | undefined;
  let latencyMs: number;
  let outputSchema: Record<string, unknown> | undefined;
  try {
    ({ result, resultProblem } = await session.callTool(request.toolName, request.parameters));
    latencyMs = performance.now() - started;
    if (expectations.some((e) => e.kind === 'outputSchema')) {
      const tool = (await tools()).find((t) => t.name === request.toolName);
      const schema = tool?.outputSchema;
      outputSchema =
        typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : undefined;
    }
  } catch (error) {
    const seconds = (performance.now() - started) / 1000;
    // Stopped by Ctrl+C, the call failed because of it: said as such, not as the server's failure.
    const signal = interruption();
    if (signal) {
      say(`  ERROR ${request.title} (${request.toolName}): interrupted (${signal})`);
      return {
        name: request.title,
        className,
        seconds,
        error: { message: `interrupted (${signal})`, type: 'Interrupted' },
      };
    }
    const failure = classify(error);
    say(`  ERROR ${request.title} (${request.toolName}): ${failure.message}`);
    const type = failure.exitCode === EXIT.connection ? 'ConnectionError' : 'ServerError';
    return { name: request.title, className, seconds, error: { message: failure.message, type } };
  }
  // The expectations' regular expressions (and the outputSchema's patterns) run on what the server sent:
  // each within a time budget, past which it is reported as not checked, and the request fails.
  const outcomes = checkExpectations(
    expectations,
    { result, latencyMs, ...(outputSchema && { outputSchema }) },
    { guard: vmTimeGuard },
  );
  const failed = outcomes.filter((o) => !o.pass);
  // A result that breaks the protocol's schema is checked as it came, and fails the request whatever held.
  const broken =
    resultProblem === undefined ? [] : [`The result breaks the 2026-07-28 schema: ${resultProblem}`];
  const took = `${Math.round(latencyMs)} ms`;
  const held = `${outcomes.length - failed.length}/${outcomes.length} expectations`;
  const fails = failed.length > 0 || broken.length > 0;
  say(`  ${fails ? 'FAIL ' : 'PASS '} ${request.title} (${request.toolName}, ${took}, ${held})`);
  for (const message of [...broken, ...failed.map((o) => o.message)]) say(`        ✗ ${message}`);
  const lines = [...broken, ...failed.map((o) => `${describeExpectation(o.expectation)}: ${o.message}`)];
  return {
    name: request.title,
    className,
    seconds: latencyMs / 1000,
    ...(fails && {
      failure: {
        message: broken[0] ?? `${failed.length} of ${outcomes.length} expectations failed: ${lines[0]}`,
        details: lines.join('\n'),
      },
    }),
  };
}

function notRun(
  collection: Collection,
  request: SavedRequest,
  message: string,
  type = interruption() ? 'Interrupted' : 'ConnectionError',
): CaseReport {
  return {
    name: request.title,
    className: `${collection.name}.${request.toolName}`,
    seconds: 0,
    error: { message, type },
  };
}

function printSummary(totals: Totals, files: number, elapsedMs: number): void {
  const { passed, failed, errors } = totals;
  const requests = passed + failed + errors;
  const parts = [
    `${passed} passed`,
    `${failed} failed`,
    ...(errors ? [`${errors} error${errors === 1 ? '' : 's'}`] : []),
  ];
  say(
    `\n${requests} request${requests === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}: ${parts.join(', ')} (${(elapsedMs / 1000).toFixed(1)} s)`,
  );
}
