/**
 * The WebMCP store: the sidebar's "This page (WebMCP)". It reaches the page through a stand-in
 * `chrome.devtools.inspectedWindow.eval` that evaluates in happy-dom, where a stand-in
 * `document.modelContext` shaped as Chromium's holds the tools (the e2e test drives both for real).
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { usePageTrafficStore } from '../../extension/page/page-traffic-store';
import { pageContext } from '../../extension/page/page-traffic';
import { useWebMcpStore } from '../../extension/webmcp/webmcp-store';
import {
  evaluateInPage,
  installModelContext,
  StandInModelContext,
  stubInspectedWindow,
} from './webmcp-stand-in';

beforeEach(() => {
  setActivePinia(createPinia());
});
afterEach(() => {
  vi.unstubAllGlobals();
  installModelContext(undefined);
});

/** Polls until the page's agent has listed its tools (its first list comes a moment after it starts). */
async function pollUntil(store: ReturnType<typeof useWebMcpStore>, check: () => boolean): Promise<void> {
  await vi.waitFor(async () => {
    await store.poll();
    expect(check()).toBe(true);
  });
}

describe('the WebMCP store', () => {
  it('is there only inside DevTools', () => {
    vi.stubGlobal('chrome', { runtime: {} });
    vi.stubGlobal('browser', undefined);
    const webmcp = useWebMcpStore();
    expect(webmcp.available).toBe(false);
    expect(webmcp.state).toBe('outside');
  });

  it('says plainly when the page has no WebMCP, and when the page cannot be asked', async () => {
    stubInspectedWindow();
    installModelContext(undefined);
    const webmcp = useWebMcpStore();
    expect(webmcp.available).toBe(true);
    expect(webmcp.state).toBe('checking');
    await webmcp.poll();
    expect(webmcp.state).toBe('absent');
    expect(webmcp.reason).toContain('WebMCP');

    stubInspectedWindow(() => {
      throw new Error('Cannot access a chrome:// URL');
    });
    setActivePinia(createPinia());
    const failing = useWebMcpStore();
    await failing.poll();
    expect(failing.state).toBe('failed');
    expect(failing.reason).toContain('Cannot access a chrome:// URL');

    // Once listing, one poll the page cannot answer (it is between documents) is forgiven; two are not.
    let down = false;
    stubInspectedWindow((expression) => {
      if (down) throw new Error('Inspected frame has gone');
      return evaluateInPage(expression);
    });
    installModelContext(new StandInModelContext());
    setActivePinia(createPinia());
    const flaky = useWebMcpStore();
    await flaky.poll();
    expect(flaky.state).toBe('ready');
    down = true;
    await flaky.poll();
    expect(flaky.state).toBe('ready');
    await flaky.poll();
    expect(flaky.state).toBe('failed');
    expect(flaky.reason).toContain('Inspected frame has gone');
    down = false;
    await flaky.poll();
    expect(flaky.state).toBe('ready');

    // Something that is not the agent's answer (the page replaced the agent).
    stubInspectedWindow(() => ({ webmcp: true, tools: 'all of them' }));
    setActivePinia(createPinia());
    const fooled = useWebMcpStore();
    await fooled.poll();
    expect(fooled.state).toBe('failed');
    expect(fooled.tools).toEqual([]);
  });

  it('lists the tools, runs one in the page to its result, and lists the call as WebMCP', async () => {
    stubInspectedWindow();
    const context = new StandInModelContext();
    installModelContext(context);
    const controller = new AbortController();
    context.registerTool({
      name: 'echo',
      description: 'Echoes',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string' }, times: { type: 'integer' } },
        required: ['message'],
      },
      execute: (args) => ({ content: [{ type: 'text', text: `echo: ${String(args.message)}` }] }),
    });
    context.registerTool(
      { name: 'fails', description: 'Throws', execute: () => Promise.reject(new Error('no')) },
      { signal: controller.signal },
    );
    const webmcp = useWebMcpStore();
    await pollUntil(webmcp, () => webmcp.tools.length === 2);
    expect(webmcp.state).toBe('ready');
    expect(webmcp.count).toBe(2);
    expect(webmcp.tools.map((tool) => tool.name)).toEqual(['echo', 'fails']);
    // The first tool is selected, its form filled from its schema.
    expect(webmcp.selectedName).toBe('echo');
    webmcp.currentValue = { message: 'hello', times: '' };
    await webmcp.execute();
    await vi.waitFor(async () => {
      await webmcp.poll();
      expect(webmcp.run?.state).toBe('completed');
    });
    expect(webmcp.run?.result).toEqual({ content: [{ type: 'text', text: 'echo: hello' }] });
    // Only what the form sends: the empty optional field is left out.
    expect(webmcp.run?.parameters).toEqual({ message: 'hello' });

    const page = usePageTrafficStore();
    const rows = page.visibleRows;
    expect(rows.map((row) => [row.kind, row.method, row.status])).toEqual([['request', 'tools/call', 'ok']]);
    expect(pageContext(rows[0]!)?.webmcp).toEqual({ origin: location.origin });
    expect(rows[0]?.serverId).toBe(`WebMCP · ${location.host}`);
    expect(page.candidate(rows[0]!).ok).toBe(false);
    expect(page.replayTarget(rows[0]!).ok).toBe(false);
    const exported = page
      .exportJsonl()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as object);
    expect(exported).toEqual([
      expect.objectContaining({ webmcp: true, direction: 'send' }),
      expect.objectContaining({ webmcp: true, direction: 'receive' }),
    ]);

    webmcp.select('fails');
    await webmcp.execute();
    await vi.waitFor(async () => {
      await webmcp.poll();
      expect(webmcp.run?.state).toBe('failed');
    });
    expect(webmcp.run?.error).toContain("The page's tool failed: UnknownError");
    expect(page.visibleRows.at(-1)?.status).toBe('error');

    // The page aborts the tool's signal: it goes from the list, and the selection with it.
    controller.abort();
    await pollUntil(webmcp, () => webmcp.tools.length === 1);
    expect(webmcp.tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(webmcp.selectedName).toBe('echo');
  });

  it('cancels a running call by aborting the signal the page gave its tool', async () => {
    stubInspectedWindow();
    const context = new StandInModelContext();
    installModelContext(context);
    let signal: AbortSignal | undefined;
    context.registerTool({
      name: 'slow',
      description: 'Waits for ever',
      execute: (_args, client) => {
        signal = client.signal;
        return new Promise(() => undefined);
      },
    });
    const webmcp = useWebMcpStore();
    await pollUntil(webmcp, () => webmcp.tools.length === 1);
    await webmcp.execute();
    expect(webmcp.run?.state).toBe('running');
    await webmcp.cancel();
    await vi.waitFor(async () => {
      await webmcp.poll();
      expect(webmcp.run?.state).toBe('cancelled');
    });
    expect(signal?.aborted).toBe(true);
    // The Page view lists the call cancelled, and the cancel itself.
    expect(usePageTrafficStore().visibleRows.map((row) => [row.method, row.status])).toEqual([
      ['tools/call', 'cancelled'],
      ['notifications/cancelled', undefined],
    ]);
  });
});
