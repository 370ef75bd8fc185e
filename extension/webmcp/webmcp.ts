/**
 * The inspected page's WebMCP tools as the panel reads them from the page's agent (webmcp-agent.ts).
 * Every value comes from the page and may be hostile: each answer is checked for its shape and cut to
 * size here, and anything that does not fit is dropped or named, never thrown on.
 */
import type { JsonObject } from '../../shared/api';
import { AGENT_LIMITS } from './webmcp-agent';

/** Runs an expression in the inspected page and answers its (JSON) value; rejects with the page's error. */
export type Evaluate = (expression: string) => Promise<unknown>;

/** WebMCP annotations Chromium keeps (`readOnlyHint`, `untrustedContentHint`, …): booleans only. */
export type WebMcpAnnotations = Record<string, boolean>;

export interface WebMcpTool {
  name: string;
  title?: string;
  description: string;
  /** The origin of the document that registered it. */
  origin?: string;
  /** Registered by the top document, or by a frame in it. */
  frame: 'top' | 'frame';
  inputSchema?: Record<string, unknown>;
  annotations?: WebMcpAnnotations;
  /** Why the input schema is not shown: too large, not JSON, not an object. */
  schemaProblem?: string;
}

export interface FinishedCall {
  id: string;
  ok: boolean;
  /** The tool's result as the page answered it: a string. */
  result?: string;
  /** Its length before the page's agent cut it. */
  length?: number;
  error?: string;
  cancelled?: boolean;
}

/** One poll of the page. */
export type PollAnswer =
  | { webmcp: false; secure: boolean; protocol: string }
  | {
      webmcp: true;
      agent: string;
      version: number;
      /** How many tools the page has (only the first `AGENT_LIMITS.tools` are listed). */
      count: number;
      /** The page failed to list its tools. */
      error?: string;
      /** Absent when unchanged since the version the panel has. */
      tools?: WebMcpTool[];
      finished: FinishedCall[];
      running: string[];
    };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown, max: number): string | undefined {
  return typeof value === 'string' ? value.slice(0, max) : undefined;
}

/** A JSON text of an object from the page, parsed, or why it is not shown. */
function jsonObject(value: unknown, what: string): { value?: Record<string, unknown>; problem?: string } {
  if (value === undefined || value === null) return {};
  if (isObject(value)) {
    if (typeof value.tooLarge === 'number') return { problem: `its ${what} is too large to show` };
    return { problem: `its ${what} could not be read` };
  }
  if (typeof value !== 'string') return { problem: `its ${what} is not JSON` };
  if (value.length > AGENT_LIMITS.json) return { problem: `its ${what} is too large to show` };
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) ? { value: parsed } : { problem: `its ${what} is not an object` };
  } catch {
    return { problem: `its ${what} is not JSON` };
  }
}

/** One tool of the page's snapshot, or null when it has no usable name. */
export function readTool(raw: unknown): WebMcpTool | null {
  if (!isObject(raw)) return null;
  const name = text(raw.name, AGENT_LIMITS.name);
  if (!name) return null;
  const schema = jsonObject(raw.inputSchema, 'input schema');
  const annotations = jsonObject(raw.annotations, 'annotations');
  const hints: WebMcpAnnotations = {};
  for (const [key, value] of Object.entries(annotations.value ?? {}).slice(0, 50)) {
    if (typeof value === 'boolean' && key.length <= 64) hints[key] = value;
  }
  const title = text(raw.title, AGENT_LIMITS.title);
  const origin = text(raw.origin, AGENT_LIMITS.origin);
  return {
    name,
    ...(title && { title }),
    description: text(raw.description, AGENT_LIMITS.description) ?? '',
    ...(origin && { origin }),
    frame: raw.frame === 'frame' ? 'frame' : 'top',
    ...(schema.value && { inputSchema: schema.value }),
    ...(schema.problem && { schemaProblem: schema.problem }),
    ...(Object.keys(hints).length > 0 && { annotations: hints }),
  };
}

function readFinished(raw: unknown): FinishedCall | null {
  if (!isObject(raw) || typeof raw.id !== 'string') return null;
  const length = typeof raw.length === 'number' && Number.isFinite(raw.length) ? raw.length : undefined;
  const result = text(raw.result, AGENT_LIMITS.result);
  const error = text(raw.error, AGENT_LIMITS.error);
  return {
    id: raw.id,
    ok: raw.ok === true,
    ...(result !== undefined && { result }),
    ...(length !== undefined && { length }),
    ...(error !== undefined && { error }),
    ...(raw.cancelled === true && { cancelled: true }),
  };
}

/** The agent's answer to a poll, checked; null when it is not one (the page replaced the agent). */
export function readPollAnswer(raw: unknown): PollAnswer | null {
  if (!isObject(raw)) return null;
  if (raw.webmcp === false)
    return { webmcp: false, secure: raw.secure === true, protocol: text(raw.protocol, 32) ?? '' };
  if (raw.webmcp !== true || typeof raw.agent !== 'string' || typeof raw.version !== 'number') return null;
  const tools = Array.isArray(raw.tools)
    ? raw.tools
        .slice(0, AGENT_LIMITS.tools)
        .map(readTool)
        .filter((tool): tool is WebMcpTool => tool !== null)
    : undefined;
  const error = text(raw.error, AGENT_LIMITS.error);
  return {
    webmcp: true,
    agent: raw.agent.slice(0, 64),
    version: raw.version,
    count: typeof raw.count === 'number' && Number.isFinite(raw.count) ? raw.count : (tools?.length ?? 0),
    ...(error && { error }),
    ...(tools && { tools }),
    finished: Array.isArray(raw.finished)
      ? raw.finished
          .slice(0, 100)
          .map(readFinished)
          .filter((call): call is FinishedCall => call !== null)
      : [],
    running: Array.isArray(raw.running)
      ? raw.running.filter((id): id is string => typeof id === 'string').slice(0, 100)
      : [],
  };
}

/**
 * A WebMCP tool's result (the string `executeTool` answers) as an MCP tool result for the result view:
 * the result itself when it is one (`content` a list of objects), else the text as one text item.
 */
export function resultOf(call: FinishedCall): { result: JsonObject; note?: string } {
  const textResult = call.result ?? '';
  const cut =
    call.length !== undefined && call.length > textResult.length
      ? `The page's result was ${call.length} characters; the first ${textResult.length} are shown.`
      : undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(textResult);
  } catch {
    parsed = undefined;
  }
  if (isObject(parsed) && Array.isArray(parsed.content) && parsed.content.every(isObject))
    return { result: parsed as JsonObject, ...(cut && { note: cut }) };
  const note = [
    'The tool answered a value that is not an MCP tool result (no content list): shown as text.',
    cut,
  ]
    .filter(Boolean)
    .join(' ');
  return { result: { content: [{ type: 'text', text: textResult }] }, note };
}

/** What the view says when the page has no WebMCP. */
export function absentReason(answer: { secure: boolean; protocol: string }): string {
  if (!/^https?:$/.test(answer.protocol))
    return `This page (${answer.protocol || 'no address'}) has no WebMCP: Chromium offers document.modelContext on http and https pages only.`;
  if (!answer.secure)
    return 'This page has no WebMCP: it is not a secure context (use https, or http on localhost).';
  return 'This page has no WebMCP (no document.modelContext): the browser does not offer it. Chromium has it behind a flag: start it with --enable-features=WebMCP (or turn on Experimental Web Platform features in chrome://flags).';
}

interface InspectedWindowChrome {
  eval(
    expression: string,
    options: Record<string, unknown>,
    callback: (result: unknown, exception?: ExceptionInfo) => void,
  ): void;
}
interface InspectedWindowFirefox {
  eval(expression: string): Promise<[unknown, ExceptionInfo | undefined]>;
}
interface ExceptionInfo {
  isError?: boolean;
  isException?: boolean;
  code?: string;
  description?: string;
  value?: unknown;
}
interface DevtoolsScope {
  devtools?: { inspectedWindow?: { eval?: unknown } };
}

function exceptionText(info: ExceptionInfo): string {
  const text = info.isException ? String(info.value) : (info.description ?? info.code ?? 'evaluation failed');
  return text.slice(0, AGENT_LIMITS.error);
}

/**
 * `devtools.inspectedWindow.eval` when the panel runs inside DevTools, else undefined. Read from the
 * global, not the polyfill (the web page cannot load it): Chromium's answers by callback, Firefox's with
 * a promise of `[result, exceptionInfo]`.
 */
export function inspectedWindowEval(): Evaluate | undefined {
  const scope = globalThis as { chrome?: DevtoolsScope; browser?: DevtoolsScope };
  const chromeWindow = scope.chrome?.devtools?.inspectedWindow;
  if (typeof chromeWindow?.eval === 'function') {
    const target = chromeWindow as InspectedWindowChrome;
    return (expression) =>
      new Promise((resolve, reject) => {
        target.eval(expression, {}, (result, exception) => {
          if (exception && (exception.isError || exception.isException))
            reject(new Error(exceptionText(exception)));
          else resolve(result);
        });
      });
  }
  const browserWindow = scope.browser?.devtools?.inspectedWindow;
  if (typeof browserWindow?.eval === 'function') {
    const target = browserWindow as InspectedWindowFirefox;
    return async (expression) => {
      const answer = await target.eval(expression);
      const [result, exception] = Array.isArray(answer) ? answer : [answer, undefined];
      if (exception && (exception.isError || exception.isException))
        throw new Error(exceptionText(exception));
      return result;
    };
  }
  return undefined;
}
