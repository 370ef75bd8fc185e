/** The error body of every failed API call (SPEC part 7). */
export interface McpErrorInfo {
  name: string;
  message: string;
  code?: number | string;
  data?: unknown;
  /** Only in development mode. */
  stack?: string;
}

export interface ErrorBody {
  error: string;
  mcpError?: McpErrorInfo;
  /** Present on 409: the execution that holds the lock. */
  activeExecution?: { id: string; serverId: string; toolName: string };
}
