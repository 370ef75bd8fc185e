/**
 * A stand-in for Chromium's `document.modelContext` (WebMCP, as Chromium 156 ships it behind
 * `--enable-features=WebMCP`; the e2e test drives the real one): `registerTool(tool, { signal })`,
 * `getTools()` (sorted by name, each with its `window`), `executeTool(tool, args, { signal })` answering
 * the result as a string (JSON for an object), and `toolchange`. Installed on happy-dom's document, with
 * `evaluateInPage`, which runs an expression there as `devtools.inspectedWindow.eval` would in the page.
 */
import { vi } from 'vitest';

interface PageTool {
  name: string;
  title?: string;
  description: string;
  inputSchema?: unknown;
  annotations?: Record<string, unknown>;
  execute(args: Record<string, unknown>, client: { signal: AbortSignal }): unknown;
}

export class StandInModelContext extends EventTarget {
  private readonly tools = new Map<string, PageTool>();

  registerTool(tool: PageTool, options: { signal?: AbortSignal } = {}): void {
    if (this.tools.has(tool.name)) throw new DOMException('Duplicate tool name', 'InvalidStateError');
    this.tools.set(tool.name, tool);
    options.signal?.addEventListener('abort', () => {
      this.tools.delete(tool.name);
      this.dispatchEvent(new Event('toolchange'));
    });
    this.dispatchEvent(new Event('toolchange'));
  }

  async getTools(): Promise<Array<Record<string, unknown>>> {
    return [...this.tools.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((tool) => ({
        name: tool.name,
        title: tool.title ?? '',
        description: tool.description,
        ...(tool.inputSchema !== undefined && { inputSchema: tool.inputSchema }),
        ...(tool.annotations && { annotations: tool.annotations }),
        origin: location.origin,
        window,
      }));
  }

  async executeTool(
    tool: { name: string },
    args: Record<string, unknown>,
    options: { signal?: AbortSignal } = {},
  ): Promise<string> {
    const found = this.tools.get(tool.name);
    if (!found) throw new DOMException('The operation failed', 'UnknownError');
    const signal = options.signal ?? new AbortController().signal;
    const result = await Promise.race([
      Promise.resolve(found.execute(args, { signal })),
      new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      ),
    ]).catch((error: unknown) => {
      if ((error as Error).name === 'AbortError') throw error;
      throw new DOMException('Tool was executed but the invocation failed', 'UnknownError');
    });
    return typeof result === 'string' ? result : String(JSON.stringify(result));
  }
}

/** Puts a stand-in `document.modelContext` on happy-dom's document (or none, `undefined`). */
export function installModelContext(context: StandInModelContext | undefined): void {
  Object.defineProperty(document, 'modelContext', { value: context, configurable: true });
  // A new document: the agent left by an earlier test goes with the old one.
  delete (window as unknown as Record<symbol, unknown>)[Symbol.for('inspector-daemon/webmcp')];
}

/** Runs an expression in the page (here: happy-dom's window) and answers its value as JSON would carry it. */
export function evaluateInPage(expression: string): unknown {
  // Indirect eval: global scope, as DevTools evaluates.
  const value: unknown = (0, eval)(expression);
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** Stands in for `chrome.devtools.inspectedWindow.eval`, evaluating in happy-dom's window. */
export function stubInspectedWindow(evaluate: (expression: string) => unknown = evaluateInPage): void {
  vi.stubGlobal('chrome', {
    devtools: {
      inspectedWindow: {
        eval(
          expression: string,
          _options: unknown,
          callback: (result: unknown, exception?: { isException: boolean; value: string }) => void,
        ) {
          let result: unknown;
          try {
            result = evaluate(expression);
          } catch (error) {
            setTimeout(() => callback(undefined, { isException: true, value: String(error) }));
            return;
          }
          setTimeout(() => callback(result));
        },
      },
    },
  });
}
