import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ElicitationResponse, McpTask, TaskParams } from '../../shared/api';
import type { Tool } from '../../shared/mcp';
import type { ServerRecord } from '../../shared/servers';
import { serverHasTasks } from '../../shared/tasks';
import { useLiveStore } from '../app/live-store';
import { requireClient, useServersStore } from '../servers/servers-store';
import { failRun, isActive, newRun, type Run, settleRun, ToolRunner } from './tool-run';

/** What a tool says of tasks (`execution.taskSupport`): `forbidden` when it says nothing. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/**
 * What the tool says of tasks. Tools of the modern era (2026-07-28) say nothing: on a server with the
 * tasks extension any of them may be asked to run as a task, and the server decides.
 */
export function taskSupportOf(
  tool: Pick<Tool, 'execution'> | null | undefined,
  server?: Pick<ServerRecord, 'era' | 'capabilities'> | null,
): TaskSupport {
  const support = tool?.execution?.taskSupport;
  if (support === 'optional' || support === 'required') return support;
  return server?.era === 'modern' && serverHasTasks(server) ? 'optional' : 'forbidden';
}

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
export const isTerminal = (task: Pick<McpTask, 'status'>): boolean => TERMINAL.has(task.status);

/** From its creation to its last update, in milliseconds since the epoch, when both times read. */
export function taskSpan(
  task: Pick<McpTask, 'createdAt' | 'lastUpdatedAt'>,
): { startedAt: number; finishedAt: number } | undefined {
  const startedAt = Date.parse(task.createdAt);
  const finishedAt = Date.parse(task.lastUpdatedAt);
  return Number.isFinite(startedAt) && Number.isFinite(finishedAt) && finishedAt >= startedAt
    ? { startedAt, finishedAt }
    : undefined;
}

/** Shortest and longest wait between two `tasks/get` of a running task, whatever its pollInterval says. */
const MIN_POLL_MS = 250;
const MAX_POLL_MS = 10_000;

/**
 * The MCP tasks of the selected server (2025-11-25, experimental): the list (`tasks/list`), each
 * running task polled with `tasks/get` at its pollInterval and updated by `notifications/tasks/status`,
 * a task's result (its elicitations answered like a tool call's), cancel, and the "Run as task" choice
 * of each tool whose taskSupport is `optional`.
 */
export const useTasksStore = defineStore('tasks', () => {
  const serverId = ref<string | null>(null);
  const tasks = ref<McpTask[]>([]);
  const loading = ref(false);
  const error = ref<string | null>(null);
  /** Server and tool → run it as a task (tools whose taskSupport is `optional`). */
  const asTask = ref<Record<string, boolean>>({});
  /** The task whose result is shown, with the run that fetched (or waits for) it. */
  const viewed = ref<{ taskId: string; run: Run } | null>(null);
  const runner = new ToolRunner(requireClient);
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  let polling = false;

  const sorted = computed(() => [...tasks.value].sort((a, b) => b.createdAt.localeCompare(a.createdAt)));

  const live = useLiveStore();
  live.on('notification', (message) => {
    if (message.method !== 'notifications/tasks/status' || message.serverId !== serverId.value) return;
    const task = message.params as McpTask | undefined;
    if (task && typeof task.taskId === 'string') upsert(task);
  });

  const key = (server: string, tool: string) => `${server}\n${tool}`;

  function runAsTask(server: string, tool: string): boolean {
    return asTask.value[key(server, tool)] ?? false;
  }

  function setRunAsTask(server: string, tool: string, on: boolean): void {
    asTask.value[key(server, tool)] = on;
  }

  /** The `task` of an execute for this tool: only when it may run as a task and the person asked. */
  function taskParamsFor(server: string, tool: Tool): TaskParams | undefined {
    const record = useServersStore().servers.find((s) => s.id === server);
    return taskSupportOf(tool, record) === 'optional' && runAsTask(server, tool.name) ? {} : undefined;
  }

  function upsert(task: McpTask): void {
    const index = tasks.value.findIndex((t) => t.taskId === task.taskId);
    const known = tasks.value[index];
    // A late answer never takes a task back: not out of an end, nor to an older update.
    if (known && (isTerminal(known) || task.lastUpdatedAt < known.lastUpdatedAt)) return;
    if (known) tasks.value[index] = { ...known, ...task };
    else tasks.value.push(task);
    schedule(task);
  }

  async function load(id: string): Promise<void> {
    if (serverId.value !== id) {
      // Another server's tasks stop being polled; polling itself stays on (TasksPanel turns it on first).
      clearTimers();
      tasks.value = [];
      viewed.value = null;
      serverId.value = id;
    }
    await refresh();
  }

  async function refresh(): Promise<void> {
    const id = serverId.value;
    if (!id) return;
    loading.value = true;
    error.value = null;
    try {
      const listed = await requireClient().listTasks(id);
      if (serverId.value !== id) return;
      tasks.value = listed.tasks;
      for (const task of tasks.value) schedule(task);
    } catch (failure) {
      if (serverId.value === id) error.value = (failure as Error).message;
    } finally {
      loading.value = false;
    }
  }

  /** Polls a running task at its pollInterval until it ends (while polling is on). */
  function schedule(task: McpTask): void {
    clearTimeout(timers.get(task.taskId));
    timers.delete(task.taskId);
    if (!polling || isTerminal(task)) return;
    const wait = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollInterval ?? 1000));
    const id = serverId.value;
    timers.set(
      task.taskId,
      setTimeout(() => {
        timers.delete(task.taskId);
        if (!id || serverId.value !== id) return;
        requireClient()
          .getTask(id, task.taskId)
          .then(
            (got) => serverId.value === id && upsert(got),
            () => {
              // The task may have expired (its ttl); the next refresh tells.
            },
          );
      }, wait),
    );
  }

  function startPolling(): void {
    polling = true;
    for (const task of tasks.value) schedule(task);
  }

  function stopPolling(): void {
    polling = false;
    clearTimers();
  }

  function clearTimers(): void {
    for (const timer of timers.values()) clearTimeout(timer);
    timers.clear();
  }

  /** A task a run just created (Run as task), shown at once; one already listed is left as it is. */
  function track(server: string, task: McpTask): void {
    if (server !== serverId.value || tasks.value.some((t) => t.taskId === task.taskId)) return;
    upsert(task);
  }

  async function cancel(taskId: string): Promise<void> {
    const id = serverId.value;
    if (!id) return;
    error.value = null;
    try {
      upsert(await requireClient().cancelTask(id, taskId));
    } catch (failure) {
      error.value = (failure as Error).message;
    }
  }

  /** Fetches the task's result into the viewer; for a running task, waits for it (under the daemon's lock). */
  async function showResult(taskId: string): Promise<void> {
    const id = serverId.value;
    if (!id || (viewed.value && isActive(viewed.value.run))) return;
    viewed.value = { taskId, run: newRun(id, `task ${taskId}`, {}) };
    // The reactive proxy, so updates after the await reach the view.
    const run = viewed.value.run;
    // The result shows the task's own time, by the server's clock, not how long fetching it took: from
    // the task as listed, in the same turn as the result (no other time shows first), then as refreshed.
    const ownTime = (): void => {
      const task = tasks.value.find((t) => t.taskId === taskId);
      const span = task && isTerminal(task) ? taskSpan(task) : undefined;
      if (span && viewed.value?.run === run) Object.assign(run, span);
    };
    try {
      settleRun(run, await requireClient().taskResult(id, taskId));
      ownTime();
    } catch (failure) {
      failRun(run, failure);
    }
    if (serverId.value !== id) return;
    await refresh();
    ownTime();
  }

  async function respond(response: ElicitationResponse): Promise<void> {
    const run = viewed.value?.run;
    if (run) await runner.respond(run, response);
  }

  async function cancelWait(): Promise<void> {
    const run = viewed.value?.run;
    if (run) await runner.cancel(run);
  }

  function closeResult(): void {
    if (viewed.value && !isActive(viewed.value.run)) viewed.value = null;
  }

  return {
    serverId,
    tasks,
    sorted,
    loading,
    error,
    viewed,
    runAsTask,
    setRunAsTask,
    taskParamsFor,
    load,
    refresh,
    track,
    cancel,
    showResult,
    respond,
    cancelWait,
    closeResult,
    startPolling,
    stopPolling,
  };
});
