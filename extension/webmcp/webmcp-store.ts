import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef } from 'vue';
import { initialValue, parametersFromValue } from '../forms/forms';
import { usePageTrafficStore } from '../page/page-traffic-store';
import { newRun, type Run } from '../tools/tool-run';
import { newId } from '../ui/new-id';
import { agentExpression, type AgentRequest } from './webmcp-agent';
import {
  absentReason,
  type Evaluate,
  type FinishedCall,
  inspectedWindowEval,
  readPollAnswer,
  resultOf,
  type WebMcpTool,
} from './webmcp';

export type { WebMcpTool };

/** How often the page is asked for its tools and finished calls. */
export const POLL_MS = 1000;

/**
 * - `outside`: not in DevTools (no inspected page to ask);
 * - `checking`: asked, no answer yet;
 * - `absent`: the page has no `document.modelContext` (`reason` says why);
 * - `ready`: its tools are listed (maybe none);
 * - `failed`: the page could not be asked (a browser page extensions cannot run in), or answered nonsense.
 */
export type WebMcpState = 'outside' | 'checking' | 'absent' | 'ready' | 'failed';

/** A WebMCP tool call: the tool form's run, with the page's note on its result. */
export interface WebMcpRun extends Run {
  callId: string;
  origin?: string;
  note?: string;
}

/**
 * The inspected page's WebMCP tools, shown beside the daemon's servers as one more "server": listed
 * from the page (polled while the panel is open, so tools the page adds or removes come and go), run in
 * the page with `executeTool`, each call listed in the Page view marked as WebMCP.
 */
export const useWebMcpStore = defineStore('webmcp', () => {
  const evaluate: Evaluate | undefined = inspectedWindowEval();
  /** Inside DevTools: the sidebar offers "This page (WebMCP)". */
  const available = evaluate !== undefined;
  const state = ref<WebMcpState>(available ? 'checking' : 'outside');
  const reason = ref('');
  const tools = shallowRef<WebMcpTool[]>([]);
  /** How many tools the page registers (more than are listed when over the limit). */
  const count = ref(0);
  /** The sidebar's WebMCP entry is the selected "server". */
  const selected = ref(false);
  const query = ref('');
  const selectedName = ref<string | null>(null);
  const values = ref<Record<string, Record<string, unknown>>>({});
  const runs = ref<Record<string, WebMcpRun>>({});
  let agent = '';
  let version = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let polling = false;
  let inFlight: Promise<void> | null = null;
  /** Polls in a row the page could not answer: one is forgiven (the page was between documents). */
  let failures = 0;

  const filtered = computed(() => {
    const q = query.value.trim().toLowerCase();
    if (!q) return tools.value;
    return tools.value.filter((t) =>
      [t.name, t.title ?? '', t.description].some((text) => text.toLowerCase().includes(q)),
    );
  });
  const selectedTool = computed(() => tools.value.find((t) => t.name === selectedName.value) ?? null);
  const run = computed(() => (selectedName.value ? (runs.value[selectedName.value] ?? null) : null));
  const currentValue = computed({
    get: () => (selectedName.value ? (values.value[selectedName.value] ?? {}) : {}),
    set: (value: Record<string, unknown>) => {
      if (selectedName.value) values.value[selectedName.value] = value;
    },
  });

  function ask(request: AgentRequest): Promise<unknown> {
    if (!evaluate) return Promise.reject(new Error('Not in DevTools: there is no inspected page.'));
    return evaluate(agentExpression(request));
  }

  function select(name: string): void {
    selectedName.value = name;
    const tool = tools.value.find((t) => t.name === name);
    values.value[name] ??= initialValue(tool?.inputSchema);
  }

  function setTools(next: WebMcpTool[]): void {
    tools.value = markRaw(next);
    if (selectedName.value && !next.some((t) => t.name === selectedName.value)) selectedName.value = null;
    if (!selectedName.value && next[0]) select(next[0].name);
  }

  /** A finished call: its run settles and its answer is listed in the Page view. */
  function settle(call: FinishedCall): void {
    const target = Object.values(runs.value).find((r) => r.callId === call.id);
    if (!target) return;
    target.finishedAt = Date.now();
    const id = `webmcp-${call.id}`;
    const page = usePageTrafficStore();
    if (call.ok) {
      const { result, note } = resultOf(call);
      target.state = 'completed';
      target.result = result;
      target.note = note;
      page.addWebMcp('receive', { jsonrpc: '2.0', id, result }, target.origin);
    } else {
      target.state = call.cancelled ? 'cancelled' : 'failed';
      target.error = `The page's tool failed: ${call.error ?? 'no reason given'}`;
      page.addWebMcp(
        'receive',
        { jsonrpc: '2.0', id, error: { code: -32603, message: call.error ?? 'failed' } },
        target.origin,
      );
    }
  }

  /** Whatever answered is not what the agent answers: the page replaced it, or is a browser page. */
  function fail(text: string): void {
    state.value = 'failed';
    reason.value = text;
    setTools([]);
    version = -1;
  }

  /** Asks the page once: its tools when they changed, and the calls that finished. */
  async function poll(): Promise<void> {
    if (inFlight) return inFlight;
    inFlight = (async () => {
      let raw: unknown;
      try {
        raw = await ask({ op: 'poll', version });
      } catch (error) {
        failures++;
        if (failures > 1 || state.value === 'checking')
          fail(`The inspected page cannot be asked for its WebMCP tools: ${(error as Error).message}`);
        return;
      }
      failures = 0;
      const answer = readPollAnswer(raw);
      if (!answer) {
        fail('The page answered something that is not the panel’s WebMCP agent (did the page replace it?).');
        return;
      }
      if (!answer.webmcp) {
        state.value = 'absent';
        reason.value = absentReason(answer);
        setTools([]);
        version = -1;
        return;
      }
      if (answer.agent !== agent) {
        // A new document (the page navigated or reloaded): its tools and calls start afresh.
        agent = answer.agent;
        for (const r of Object.values(runs.value)) {
          if (r.state === 'running')
            settle({ id: r.callId, ok: false, error: 'the page navigated away during the call' });
        }
        if (answer.tools === undefined) version = -1;
      }
      state.value = 'ready';
      reason.value = answer.error ? `The page failed to list its tools: ${answer.error}` : '';
      count.value = answer.count;
      if (answer.tools) {
        setTools(answer.tools);
        version = answer.version;
      }
      for (const call of answer.finished) settle(call);
    })();
    try {
      await inFlight;
    } finally {
      inFlight = null;
    }
  }

  function schedule(): void {
    clearTimeout(timer);
    if (polling) timer = setTimeout(() => void poll().finally(schedule), POLL_MS);
  }

  /** Polls the page while the panel is open. */
  function start(): void {
    if (!available || polling) return;
    polling = true;
    void poll().finally(schedule);
  }

  function stop(): void {
    polling = false;
    clearTimeout(timer);
  }

  /** Runs the selected tool in the page with the form's value; its answer comes with a later poll. */
  async function execute(): Promise<void> {
    const tool = selectedTool.value;
    if (!tool || runs.value[tool.name]?.state === 'running') return;
    const parameters = parametersFromValue(tool.inputSchema, currentValue.value);
    const callId = newId();
    runs.value[tool.name] = {
      ...newRun('webmcp', tool.name, parameters),
      callId,
      ...(tool.origin !== undefined && { origin: tool.origin }),
    };
    const target = runs.value[tool.name]!;
    usePageTrafficStore().addWebMcp(
      'send',
      {
        jsonrpc: '2.0',
        id: `webmcp-${callId}`,
        method: 'tools/call',
        params: { name: tool.name, arguments: parameters },
      },
      tool.origin,
    );
    try {
      await ask({
        op: 'call',
        id: callId,
        name: tool.name,
        ...(tool.origin !== undefined && { origin: tool.origin }),
        args: parameters,
      });
    } catch (error) {
      settle({ id: callId, ok: false, error: (error as Error).message });
      return;
    }
    // The answer of a quick tool comes with the next poll: ask now rather than wait for the timer.
    await poll();
    if (target.state === 'running') setTimeout(() => void poll(), 100);
  }

  /** Aborts the signal the page's tool was called with; the page decides what that does. */
  async function cancel(): Promise<void> {
    const target = run.value;
    if (target?.state !== 'running') return;
    // Listed as the Logs view lists a cancel: the call's row then reads cancelled.
    usePageTrafficStore().addWebMcp(
      'send',
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: `webmcp-${target.callId}`, reason: 'Cancelled in the panel' },
      },
      target.origin,
    );
    await ask({ op: 'cancel', id: target.callId }).catch(() => undefined);
    await poll();
  }

  return {
    available,
    state,
    reason,
    tools,
    count,
    selected,
    query,
    selectedName,
    values,
    runs,
    filtered,
    selectedTool,
    run,
    currentValue,
    select,
    poll,
    start,
    stop,
    execute,
    cancel,
  };
});
