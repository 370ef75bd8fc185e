/**
 * The script the panel runs in the inspected page (`devtools.inspectedWindow.eval`) to reach its WebMCP
 * tools (`document.modelContext`, as Chromium 156 ships it behind `--enable-features=WebMCP`):
 * `registerTool(tool, { signal })`, `getTools()` (the tools of the page and its frames, each a
 * `RegisteredTool` with `name`, `title`, `description`, `inputSchema`, `annotations`, `origin` and its
 * `window`), `executeTool(registeredTool, args, { signal })` (answers the tool's result as a string)
 * and the `toolchange` event. There is no `unregisterTool`: a page removes a tool by aborting the signal
 * it registered it with.
 *
 * The script is a constant. The one thing that varies, the request, is JSON (a JavaScript literal of
 * plain data), never code: a tool's name or origin from the page travels back only as a JSON string.
 * The first request of a document leaves a small agent on its window (under a `Symbol.for` key) that
 * keeps a snapshot of the tools, refreshed on `toolchange`, and the outcome of the calls it started;
 * the panel polls it. Everything it answers is re-checked by the panel: the page can lie, and can
 * replace the agent.
 */

/** What the panel asks the agent. */
export type AgentRequest =
  | { op: 'poll'; version: number }
  | { op: 'call'; id: string; name: string; origin?: string; args: Record<string, unknown> }
  | { op: 'cancel'; id: string };

/** Limits applied in the page, before anything is handed over (the panel checks them again). */
export const AGENT_LIMITS = {
  tools: 500,
  name: 256,
  title: 1000,
  description: 20_000,
  origin: 2000,
  /** Characters of a tool's input schema or annotations as JSON. */
  json: 200_000,
  /** Characters of a result or an error. */
  result: 2_000_000,
  error: 4000,
} as const;

const AGENT_SOURCE = `(function (request) {
  'use strict';
  var LIMITS = ${JSON.stringify(AGENT_LIMITS)};
  var KEY = Symbol.for('inspector-daemon/webmcp');
  var context = document.modelContext;
  if (!context || typeof context.getTools !== 'function' || typeof context.executeTool !== 'function') {
    return { webmcp: false, secure: Boolean(window.isSecureContext), protocol: String(location.protocol) };
  }
  var agent = window[KEY];
  if (!agent || typeof agent.handle !== 'function') {
    agent = makeAgent(context);
    Object.defineProperty(window, KEY, { value: agent, configurable: true });
  }
  return agent.handle(request);

  function makeAgent(context) {
    var state = {
      id: Math.random().toString(36).slice(2) + Date.now().toString(36),
      version: 0,
      refreshes: 0,
      tools: [],
      count: 0,
      error: null,
      calls: new Map(),
      finished: []
    };
    function text(value, max) {
      return typeof value === 'string' ? value.slice(0, max) : undefined;
    }
    function json(value) {
      if (value === undefined || value === null) return undefined;
      try {
        var out = JSON.stringify(value);
        if (typeof out !== 'string') return undefined;
        return out.length > LIMITS.json ? { tooLarge: out.length } : out;
      } catch (error) {
        return { unreadable: describe(error) };
      }
    }
    function describe(error) {
      var name = error && typeof error.name === 'string' ? error.name : 'Error';
      var message = error && typeof error.message === 'string' ? error.message : String(error);
      return (name + ': ' + message).slice(0, LIMITS.error);
    }
    function refresh() {
      var run = ++state.refreshes;
      Promise.resolve()
        .then(function () { return context.getTools(); })
        .then(function (list) {
          if (run !== state.refreshes) return;
          var tools = [];
          var count = list && typeof list.length === 'number' ? list.length : 0;
          for (var i = 0; i < count && i < LIMITS.tools; i++) {
            var tool = list[i] || {};
            tools.push({
              name: text(tool.name, LIMITS.name),
              title: text(tool.title, LIMITS.title),
              description: text(tool.description, LIMITS.description),
              origin: text(tool.origin, LIMITS.origin),
              frame: tool.window === window ? 'top' : 'frame',
              inputSchema: json(tool.inputSchema),
              annotations: json(tool.annotations)
            });
          }
          state.tools = tools;
          state.count = count;
          state.error = null;
          state.version++;
        }, function (error) {
          if (run !== state.refreshes) return;
          state.error = describe(error);
          state.version++;
        });
    }
    function finish(id, outcome) {
      state.calls.delete(id);
      state.finished.push(Object.assign({ id: id }, outcome));
      if (state.finished.length > 100) state.finished.shift();
    }
    function call(request) {
      var controller = new AbortController();
      state.calls.set(request.id, controller);
      Promise.resolve()
        .then(function () { return context.getTools(); })
        .then(function (list) {
          for (var i = 0; i < list.length; i++) {
            var tool = list[i];
            if (tool && tool.name === request.name && (request.origin === undefined || tool.origin === request.origin))
              return context.executeTool(tool, request.args, { signal: controller.signal });
          }
          throw new Error('the page no longer registers a tool named ' + request.name);
        })
        .then(function (result) {
          var out = typeof result === 'string' ? result : JSON.stringify(result);
          if (typeof out !== 'string') out = String(result);
          finish(request.id, { ok: true, result: out.slice(0, LIMITS.result), length: out.length });
        }, function (error) {
          finish(request.id, { ok: false, error: describe(error), cancelled: controller.signal.aborted });
        });
      return { started: request.id };
    }
    context.addEventListener('toolchange', refresh);
    refresh();
    return {
      handle: function (request) {
        if (request.op === 'call') return call(request);
        if (request.op === 'cancel') {
          var controller = state.calls.get(request.id);
          if (controller) controller.abort();
          return { cancelled: Boolean(controller) };
        }
        var finished = state.finished;
        state.finished = [];
        return {
          webmcp: true,
          agent: state.id,
          version: state.version,
          count: state.count,
          error: state.error,
          tools: request.version === state.version ? undefined : state.tools,
          finished: finished,
          running: Array.from(state.calls.keys())
        };
      }
    };
  }
})`;

/**
 * A value as a JavaScript literal: JSON, with the two line separators JSON leaves bare escaped. Data,
 * never code, whatever strings it holds.
 */
export function jsLiteral(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('not a JSON value');
  return json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The expression that hands the page's agent one request. */
export function agentExpression(request: AgentRequest): string {
  return `${AGENT_SOURCE}(${jsLiteral(request)})`;
}
