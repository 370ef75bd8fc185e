/** The error body of every failed API call (SPEC part 7). */
export interface McpErrorInfo {
  name: string;
  message: string;
  code?: number | string;
  data?: unknown;
  /** Only in development mode. */
  stack?: string;
}

/** One thing wrong with a request body: where (a dotted path, `body` for the whole) and what. */
export interface Problem {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: string;
  /** On a 400 for a request body: every problem found, by field, so a form can point at each. */
  problems?: Problem[];
  mcpError?: McpErrorInfo;
  /** Present on 409: the execution that holds the lock. */
  activeExecution?: { id: string; serverId: string; toolName: string };
}
