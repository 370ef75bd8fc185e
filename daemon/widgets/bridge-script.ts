import {
  type ContentHeightMessage,
  DISPLAY_MODES,
  type HostToWidgetMessage,
  SET_GLOBALS_EVENT,
  type WidgetGlobals,
  type WidgetPageData,
  type WidgetToHostMessage,
} from '../../shared/widgets.ts';

/** Marks the injected element, so a page (or a test) can tell the bridge from the widget's own scripts. */
export const BRIDGE_ATTRIBUTE = 'data-inspector-widget-bridge';

const GLOBAL_KEYS: ReadonlyArray<keyof WidgetGlobals> = [
  'theme',
  'locale',
  'displayMode',
  'maxHeight',
  'widgetState',
  'safeArea',
  'userAgent',
  'toolInput',
  'toolOutput',
  'toolResponseMetadata',
];

const UNSAFE_IN_SCRIPT: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON that is also a safe JavaScript literal inside an HTML `<script>`: `</script>` or `<!--` in a tool's
 * output cannot end the element, and U+2028/2029 cannot end a line in older engines. Outside strings JSON
 * has none of these characters, and inside strings `\uXXXX` means the same character.
 */
export function serializeForScript(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(/[<>&\u2028\u2029]/g, (c) => UNSAFE_IN_SCRIPT[c] ?? c);
}

// The message type names, checked against the shared unions so a rename there breaks the build here.
const CALL_TOOL: WidgetToHostMessage['type'] = 'openai:callTool';
const FOLLOWUP: WidgetToHostMessage['type'] = 'openai:sendFollowupTurn';
const SET_STATE: WidgetToHostMessage['type'] = 'openai:setWidgetState';
const DISPLAY_MODE: WidgetToHostMessage['type'] = 'openai:requestDisplayMode';
const OPEN_EXTERNAL: WidgetToHostMessage['type'] = 'openai:openExternal';
const INTRINSIC_HEIGHT: WidgetToHostMessage['type'] = 'openai:notifyIntrinsicHeight';
const CALL_RESULT: HostToWidgetMessage['type'] = 'openai:callTool:result';
const SET_GLOBALS: HostToWidgetMessage['type'] = 'openai:set_globals';
const CONTENT_HEIGHT: ContentHeightMessage['type'] = 'inspector:contentHeight';

/**
 * The bridge's plain JavaScript (no modules, no build step): `window.openai`, alias `window.webplus`,
 * with the SPEC's members and the host globals, speaking the protocol of shared/widgets.ts to
 * `window.parent`. It carries the page data and nothing else: no token, no daemon address.
 *
 * Messages go out with target origin `*`: the widget runs in an opaque origin and cannot know its
 * host's, and what it posts is its own data. Messages come in only from `window.parent` and only of the
 * two host types; anything else is ignored.
 */
function bridgeSource(data: WidgetPageData): string {
  const constants = {
    modes: DISPLAY_MODES,
    globalKeys: GLOBAL_KEYS,
    event: SET_GLOBALS_EVENT,
  };
  return `(function () {
  'use strict';
  var data = ${serializeForScript(data)};
  var C = ${serializeForScript(constants)};
  var host = window.parent;
  var pending = new Map();
  var nextId = 0;
  var idPrefix = 'call-' + Math.random().toString(36).slice(2) + '-';
  var stateKey = 'openai-widget-state:' + data.toolId;

  function post(message) {
    host.postMessage(message, '*');
  }
  function announce(globals) {
    window.dispatchEvent(new CustomEvent(C.event, { detail: { globals: globals } }));
  }
  function attempt(run) {
    return new Promise(function (resolve) { resolve(run()); });
  }

  var openai = {};
  C.globalKeys.forEach(function (key) { openai[key] = data.globals[key]; });
  if (openai.widgetState === null || openai.widgetState === undefined) {
    // A sandboxed frame has an opaque origin where localStorage throws; the host's value is the real one.
    try {
      var saved = window.localStorage.getItem(stateKey);
      if (saved !== null) openai.widgetState = JSON.parse(saved);
    } catch (ignored) {}
  }

  openai.callTool = function (toolName, params) {
    return new Promise(function (resolve, reject) {
      if (typeof toolName !== 'string' || toolName === '') {
        reject(new TypeError('callTool: toolName must be a non-empty string'));
        return;
      }
      var requestId = idPrefix + ++nextId;
      var timer = setTimeout(function () {
        pending.delete(requestId);
        reject(new Error('callTool ' + toolName + ': no answer from the host within ' + data.callToolTimeoutMs + ' ms'));
      }, data.callToolTimeoutMs);
      pending.set(requestId, { resolve: resolve, reject: reject, timer: timer });
      try {
        post({ type: ${JSON.stringify(CALL_TOOL)}, requestId: requestId, toolName: toolName, params: params || {} });
      } catch (error) {
        clearTimeout(timer);
        pending.delete(requestId);
        reject(error);
      }
    });
  };

  openai.sendFollowupTurn = function (message) {
    return attempt(function () {
      if (typeof message !== 'string') throw new TypeError('sendFollowupTurn: message must be a string');
      post({ type: ${JSON.stringify(FOLLOWUP)}, message: message });
    });
  };
  openai.sendFollowUpMessage = function (options) {
    return openai.sendFollowupTurn(options && options.prompt);
  };

  openai.setWidgetState = function (state) {
    return attempt(function () {
      post({ type: ${JSON.stringify(SET_STATE)}, state: state });
      openai.widgetState = state;
      try {
        window.localStorage.setItem(stateKey, JSON.stringify(state));
      } catch (ignored) {}
      announce({ widgetState: state });
    });
  };

  openai.requestDisplayMode = function (options) {
    return attempt(function () {
      var mode = options && options.mode !== undefined ? options.mode : 'inline';
      if (C.modes.indexOf(mode) < 0) throw new TypeError('requestDisplayMode: mode must be one of ' + C.modes.join(', '));
      post({ type: ${JSON.stringify(DISPLAY_MODE)}, mode: mode });
      openai.displayMode = mode;
      announce({ displayMode: mode });
      return { mode: mode };
    });
  };

  openai.openExternal = function (options) {
    return attempt(function () {
      var href = options && options.href;
      if (typeof href !== 'string') throw new TypeError('openExternal: href must be a string');
      post({ type: ${JSON.stringify(OPEN_EXTERNAL)}, href: href });
    });
  };

  openai.notifyIntrinsicHeight = function (height) {
    return attempt(function () {
      if (typeof height !== 'number' || !isFinite(height)) throw new TypeError('notifyIntrinsicHeight: height must be a number');
      post({ type: ${JSON.stringify(INTRINSIC_HEIGHT)}, height: height });
    });
  };

  // The inspector's own measure of the page, posted whenever it changes: the host compares it with the
  // frame the widget asked for. The larger of the root's and the body's scroll height covers a page that
  // scrolls in its body (html and body at height 100%) as well as one that grows the document.
  var contentHeight = -1;
  function measure() {
    var root = document.documentElement;
    if (!root) return;
    var height = Math.ceil(Math.max(root.scrollHeight, document.body ? document.body.scrollHeight : 0));
    if (height === contentHeight) return;
    contentHeight = height;
    post({ type: ${JSON.stringify(CONTENT_HEIGHT)}, height: height });
  }
  if (typeof ResizeObserver === 'function') {
    var sizes = new ResizeObserver(measure);
    sizes.observe(document.documentElement);
    var observeBody = function () {
      if (document.body) sizes.observe(document.body);
    };
    if (document.body) observeBody();
    else document.addEventListener('DOMContentLoaded', observeBody);
  }
  window.addEventListener('load', measure);
  window.addEventListener('resize', measure);

  window.addEventListener('message', function (event) {
    if (event.source !== host) return;
    var message = event.data;
    if (!message || typeof message !== 'object') return;
    if (message.type === ${JSON.stringify(CALL_RESULT)}) {
      var call = pending.get(message.requestId);
      if (!call) return;
      pending.delete(message.requestId);
      clearTimeout(call.timer);
      if (message.error !== undefined) call.reject(new Error(String(message.error)));
      else call.resolve(message.result);
    } else if (message.type === ${JSON.stringify(SET_GLOBALS)}) {
      var given = message.globals;
      if (!given || typeof given !== 'object') return;
      var applied = {};
      var any = false;
      C.globalKeys.forEach(function (key) {
        if (Object.prototype.hasOwnProperty.call(given, key)) {
          openai[key] = given[key];
          applied[key] = given[key];
          any = true;
        }
      });
      if (any) announce(applied);
    }
  });

  window.openai = openai;
  window.webplus = openai;
})();`;
}

/** The `<script>` element to inject into a widget page. */
export function bridgeScript(data: WidgetPageData): string {
  return `<script ${BRIDGE_ATTRIBUTE}>\n${bridgeSource(data)}\n</script>`;
}
