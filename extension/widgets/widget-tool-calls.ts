import { computed, onBeforeUnmount, ref } from 'vue';
import type { ElicitationRequired, ElicitationResponse, JsonObject } from '../../shared/api';
import { requireClient, useServersStore } from '../servers/servers-store';
import { newRun, ToolRunner } from '../tools/tool-run';

/**
 * Tool calls a widget makes (Apps-SDK `callTool`, MCP Apps `tools/call`): run on the widget's server
 * through the daemon (`POST /tools/execute`). When the server asks for input on the way (202), the
 * question (an elicitation or a sampling request) waits in `elicitation` for the component's
 * `ElicitationDialog`, whose answer goes to `respond`; the call then goes on. If the component goes away first, the daemon is told `cancel`.
 */
export function useWidgetToolCalls(serverId: () => string) {
  const servers = useServersStore();
  const elicitation = ref<ElicitationRequired | null>(null);
  let answer: ((response: ElicitationResponse) => void) | null = null;
  let unmounted = false;
  const runner = new ToolRunner(requireClient);

  /** Resolves with the MCP call-tool result; rejects with an Error (a cancelled or failed call). */
  function callTool(toolName: string, params: Record<string, unknown>): Promise<JsonObject> {
    return runner.complete(newRun(serverId(), toolName, params), ask);
  }

  function ask(request: ElicitationRequired): Promise<ElicitationResponse> {
    if (unmounted) return Promise.resolve({ action: 'cancel' });
    return new Promise((resolve) => {
      elicitation.value = request;
      answer = resolve;
    });
  }

  /** The user's answer to the question in `elicitation`. */
  function respond(response: ElicitationResponse): void {
    const resolve = answer;
    answer = null;
    elicitation.value = null;
    resolve?.(response);
  }

  onBeforeUnmount(() => {
    unmounted = true;
    // The daemon waits for an answer to an open elicitation: tell it the widget is gone.
    if (answer) respond({ action: 'cancel' });
  });

  const server = computed(() => servers.servers.find((s) => s.id === serverId()));
  /** The name of the widget's server, for the dialog. */
  const serverName = computed(() => server.value?.name ?? serverId());
  /** The era of its connection: the dialog marks sampling deprecated on a modern one. */
  const serverEra = computed(() => server.value?.era);

  return { callTool, elicitation, respond, serverName, serverEra };
}
