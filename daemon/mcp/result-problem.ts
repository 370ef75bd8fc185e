import type { JsonObject, ResultProblem } from '../../shared/api.ts';
import { UpstreamError } from '../errors.ts';
import type { LogicalCall } from '../logs/logical-call.ts';

/**
 * A server's result that breaks the 2026-07-28 schema, shown anyway. At 2025-11-25 the daemon asks the
 * SDK for any result and passes it on unchecked; at 2026-07-28 the SDK's codec checks every complete
 * result against the revision's schema and, when it fails, keeps only its complaint (INVALID_RESULT).
 * An inspector must show what the server sent: the result is passed on as it came, the complaint beside
 * it as `resultProblem` (shared/api.ts), which every route that answers a server's result adds.
 */

/** The results passed on despite the SDK's complaint, with what it said. */
const problems = new WeakMap<JsonObject, string>();

/** What the SDK calls a result that breaks the schema, before it says how: said again in the problem. */
const SDK_PREFIX = /^Invalid result for [^:]+: /;

/**
 * A result may break the schema in a thousand places: the problem names the first issues and says how
 * many more there are, and is cut at a length a warning can show.
 */
const MAX_ISSUES = 20;
const MAX_PROBLEM_CHARS = 2_000;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The result a request's call last received, when the SDK refused it as a complete result that breaks
 * the schema; anything else is thrown again. A result that is not an object, or one that is not complete
 * (a malformed `input_required`, a `resultType` that is not a string) has nothing to show: it stays an
 * error, whose message says which rule it breaks.
 */
export function passBrokenResult(call: LogicalCall, error: unknown): JsonObject {
  if (!(error instanceof UpstreamError) || error.code !== 'INVALID_RESULT') throw error;
  const sent = call.sentResult;
  if (!isObject(sent) || (sent.resultType !== undefined && sent.resultType !== 'complete')) {
    error.message = `The server's ${call.method} result breaks the 2026-07-28 schema: ${error.message.replace(SDK_PREFIX, '')}`;
    throw error;
  }
  noteResultProblem(sent, error.message);
  return sent;
}

/**
 * Keeps what breaks a result passed on as it came (`complaint`: the SDK's INVALID_RESULT message), for
 * `resultProblemOf`. Also for a result the SDK never checked itself, checked by its codec
 * (`ServerConnection.checkTaskResult`).
 */
export function noteResultProblem(result: JsonObject, complaint: string): void {
  problems.set(result, describeComplaint(complaint));
}

/**
 * `{ resultProblem }` for a result passed on despite the SDK's complaint, else undefined: spread it into
 * the answer that carries the result.
 */
export function resultProblemOf(result: unknown): ResultProblem | undefined {
  const problem = isObject(result) ? problems.get(result) : undefined;
  return problem === undefined ? undefined : { resultProblem: problem };
}

/** One issue of the SDK's schema check (zod's), as its message lists them in JSON. */
interface Issue {
  code?: string;
  path?: unknown[];
  message?: string;
  /** The values a literal may take (`invalid_value`). */
  values?: unknown[];
  /** A union's members, each with the issues it found (`invalid_union`). */
  errors?: Issue[][];
}

/**
 * The SDK's complaint in a line, each issue as `path: message`. A complaint that is not the usual list
 * of issues stays as the SDK wrote it. Also for the SDK's check of OAuth metadata (oauth-manager.ts).
 */
export function describeComplaint(message: string): string {
  const detail = message.replace(SDK_PREFIX, '');
  let issues: unknown;
  try {
    issues = JSON.parse(detail);
  } catch {
    return cut(detail);
  }
  if (!Array.isArray(issues) || !issues.length) return cut(detail);
  const said = (issues as Issue[]).slice(0, MAX_ISSUES).map((issue) => sayIssue(issue, []));
  const more = issues.length - said.length;
  return cut(said.join('; ') + (more > 0 ? `; and ${more} more` : ''));
}

function cut(text: string): string {
  return text.length > MAX_PROBLEM_CHARS ? `${text.slice(0, MAX_PROBLEM_CHARS)}…` : text;
}

function sayIssue(issue: Issue, parent: unknown[]): string {
  const path = [...parent, ...(Array.isArray(issue.path) ? issue.path : [])];
  if (Array.isArray(issue.errors) && issue.errors.length) return sayUnion(issue.errors, path);
  return `${where(path)}: ${issue.message ?? 'invalid'}`;
}

/**
 * A value no member of a union took (a content block, say). When its kind (`type`) matched a member,
 * that member's issues say what is wrong with it; when it matched none, the kinds it may be are named.
 * Otherwise the members with the fewest issues speak, one or the other.
 */
function sayUnion(members: Issue[][], path: unknown[]): string {
  const misses = members.map(kindMiss);
  const ofKind = members.filter((_, index) => !misses[index]);
  const missedAt = new Set(misses.map((miss) => miss && where(miss.path ?? [])));
  if (!ofKind.length && missedAt.size === 1) {
    const kinds = misses.flatMap((miss) => miss!.values!.map((value) => JSON.stringify(value)));
    return `${where([...path, ...(misses[0]!.path ?? [])])}: expected one of ${kinds.join(', ')}`;
  }
  const candidates = ofKind.length ? ofKind : members;
  const fewest = Math.min(...candidates.map((member) => member.length));
  return candidates
    .filter((member) => member.length === fewest)
    .map((member) => member.map((issue) => sayIssue(issue, path)).join('; '))
    .join(', or ');
}

/** The issue of a union member whose kind the value is not: its literal (`type: "text"`) did not match. */
function kindMiss(member: Issue[]): Issue | undefined {
  return member.find((issue) => issue.code === 'invalid_value' && Array.isArray(issue.values));
}

/** A JSON path as the problem names it: `content.1.type`, or `(result)` for the result itself. */
function where(path: unknown[]): string {
  return path.length ? path.map(String).join('.') : '(result)';
}
