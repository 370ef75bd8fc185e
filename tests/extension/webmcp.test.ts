/**
 * The WebMCP agent the panel runs in the inspected page, and the checks the panel makes on what the page
 * answers. The agent runs here in happy-dom against a stand-in `document.modelContext` shaped as
 * Chromium's (the e2e test drives the real one); what comes back is read as hostile.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { agentExpression, AGENT_LIMITS, jsLiteral } from '../../extension/webmcp/webmcp-agent';
import { absentReason, readPollAnswer, readTool, resultOf } from '../../extension/webmcp/webmcp';
import { evaluateInPage, installModelContext, StandInModelContext } from './webmcp-stand-in';

afterEach(() => installModelContext(undefined));

/** Lets the agent's promise chains (getTools, executeTool) run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('passing data to the page', () => {
  it('makes a JavaScript literal of any data, which evaluates to that data and nothing else', () => {
    const hostile = {
      name: '"); globalThis.pwned = true; ("',
      quote: "'`${globalThis.pwned = true}`",
      script: '</script><script>globalThis.pwned = true</script>',
      separators: 'a\u2028b\u2029c',
      nested: [{ deep: '\\"' }],
    };
    const literal = jsLiteral(hostile);
    expect(literal).not.toMatch(/[\u2028\u2029]/);
    expect(evaluateInPage(`(${literal})`)).toEqual(hostile);
    expect((globalThis as { pwned?: boolean }).pwned).toBeUndefined();
    expect(() => jsLiteral(undefined)).toThrow('not a JSON value');
  });
});

describe('the agent in the page', () => {
  it('says the page has no WebMCP, with its protocol and whether it is a secure context', () => {
    installModelContext(undefined);
    expect(evaluateInPage(agentExpression({ op: 'poll', version: -1 }))).toMatchObject({
      webmcp: false,
      protocol: location.protocol,
    });
  });

  it('lists the tools, answers them again only when they changed, and runs a call to its answer', async () => {
    const context = new StandInModelContext();
    installModelContext(context);
    context.registerTool({
      name: 'echo',
      title: 'Echo',
      description: 'Echoes',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
      annotations: { readOnlyHint: true },
      execute: (args) => ({ content: [{ type: 'text', text: `echo: ${String(args.message)}` }] }),
    });
    const poll = (version: number) =>
      readPollAnswer(evaluateInPage(agentExpression({ op: 'poll', version })));
    poll(-1);
    await settle();
    const first = poll(-1);
    expect(first).toMatchObject({ webmcp: true, count: 1, finished: [], running: [] });
    if (!first?.webmcp) throw new Error('no WebMCP');
    expect(first.tools).toEqual([
      {
        name: 'echo',
        title: 'Echo',
        description: 'Echoes',
        origin: location.origin,
        frame: 'top',
        inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
        annotations: { readOnlyHint: true },
      },
    ]);
    // Unchanged: no list. The same agent answers each poll.
    const again = poll(first.version);
    expect(again).toMatchObject({ webmcp: true, agent: first.agent, version: first.version });
    expect(again?.webmcp && again.tools).toBeUndefined();

    expect(
      evaluateInPage(agentExpression({ op: 'call', id: 'c1', name: 'echo', args: { message: 'hi' } })),
    ).toEqual({ started: 'c1' });
    await settle();
    const answered = poll(first.version);
    expect(answered?.webmcp && answered.finished).toEqual([
      { id: 'c1', ok: true, result: '{"content":[{"type":"text","text":"echo: hi"}]}', length: 47 },
    ]);
    // Handed over once.
    const later = poll(first.version);
    expect(later?.webmcp && later.finished).toEqual([]);
  });

  it('follows tools the page adds and removes, and aborts a running call when asked', async () => {
    const context = new StandInModelContext();
    installModelContext(context);
    const controller = new AbortController();
    let seenSignal: AbortSignal | undefined;
    context.registerTool(
      {
        name: 'slow',
        description: 'Never ends by itself',
        execute: (_args, client) => {
          seenSignal = client.signal;
          return new Promise(() => undefined);
        },
      },
      { signal: controller.signal },
    );
    const poll = (version: number) =>
      readPollAnswer(evaluateInPage(agentExpression({ op: 'poll', version })));
    poll(-1);
    await settle();
    const first = poll(-1);
    if (!first?.webmcp) throw new Error('no WebMCP');
    expect(first.tools?.map((tool) => tool.name)).toEqual(['slow']);

    evaluateInPage(agentExpression({ op: 'call', id: 'c2', name: 'slow', args: {} }));
    await settle();
    expect(poll(first.version)).toMatchObject({ running: ['c2'] });
    expect(evaluateInPage(agentExpression({ op: 'cancel', id: 'c2' }))).toEqual({ cancelled: true });
    await settle();
    expect(seenSignal?.aborted).toBe(true);
    const cancelled = poll(first.version);
    expect(cancelled?.webmcp && cancelled.finished).toEqual([
      { id: 'c2', ok: false, error: 'AbortError: aborted', cancelled: true },
    ]);

    context.registerTool({ name: 'added', description: 'Later', execute: () => 'ok' });
    controller.abort();
    await settle();
    const changed = poll(first.version);
    expect(changed?.webmcp && changed.tools?.map((tool) => tool.name)).toEqual(['added']);

    // A call of a tool the page took back fails, saying so.
    evaluateInPage(agentExpression({ op: 'call', id: 'c3', name: 'slow', args: {} }));
    await settle();
    const gone = poll(-1);
    expect(gone?.webmcp && gone.finished[0]?.error).toContain('no longer registers a tool named slow');
  });
});

describe("reading the page's answers", () => {
  it('keeps what fits of a tool and drops what does not', () => {
    expect(readTool(null)).toBeNull();
    expect(readTool({ name: '' })).toBeNull();
    expect(readTool({ name: 42 })).toBeNull();
    expect(
      readTool({
        name: 'x'.repeat(1000),
        description: 7,
        frame: 'elsewhere',
        inputSchema: '{"type":"object"}',
        annotations: JSON.stringify({ readOnlyHint: true, title: 'not a hint', nested: { a: 1 } }),
        extra: 'ignored',
      }),
    ).toEqual({
      name: 'x'.repeat(AGENT_LIMITS.name),
      description: '',
      frame: 'top',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    });
    expect(readTool({ name: 'a', inputSchema: '[1]' })?.schemaProblem).toBe(
      'its input schema is not an object',
    );
    expect(readTool({ name: 'a', inputSchema: '{nope' })?.schemaProblem).toBe('its input schema is not JSON');
    expect(readTool({ name: 'a', inputSchema: { tooLarge: 5_000_000 } })?.schemaProblem).toBe(
      'its input schema is too large to show',
    );
    expect(readTool({ name: 'a', inputSchema: 'x'.repeat(AGENT_LIMITS.json + 1) })?.schemaProblem).toBe(
      'its input schema is too large to show',
    );
  });

  it('refuses an answer that is not the agent’s, and cuts lists to their limits', () => {
    expect(readPollAnswer('hello')).toBeNull();
    expect(readPollAnswer({ webmcp: true })).toBeNull();
    expect(readPollAnswer({ webmcp: false, secure: 'yes', protocol: 5 })).toEqual({
      webmcp: false,
      secure: false,
      protocol: '',
    });
    const many = readPollAnswer({
      webmcp: true,
      agent: 'a',
      version: 1,
      tools: Array.from({ length: AGENT_LIMITS.tools + 50 }, (_, i) => ({ name: `t${i}` })),
      finished: [{ id: 1 }, { id: 'ok', ok: true, result: 5 }, 'nope'],
      running: ['r', 3],
    });
    if (!many?.webmcp) throw new Error('not read');
    expect(many.tools).toHaveLength(AGENT_LIMITS.tools);
    expect(many.count).toBe(AGENT_LIMITS.tools);
    expect(many.finished).toEqual([{ id: 'ok', ok: true }]);
    expect(many.running).toEqual(['r']);
  });

  it('shows an MCP result as it is, and anything else as text, saying so', () => {
    const mcp = { content: [{ type: 'text', text: 'hi' }], structuredContent: { a: 1 } };
    expect(resultOf({ id: 'a', ok: true, result: JSON.stringify(mcp) })).toEqual({ result: mcp });
    const plain = resultOf({ id: 'b', ok: true, result: '{"a":1}' });
    expect(plain.result).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
    expect(plain.note).toContain('not an MCP tool result');
    const cut = resultOf({ id: 'c', ok: true, result: 'abc', length: 3_000_000 });
    expect(cut.note).toContain('3000000 characters; the first 3 are shown');
    expect(resultOf({ id: 'd', ok: true, result: '{"content":[1]}' }).note).toContain('not an MCP');
  });

  it('says why a page has no WebMCP', () => {
    expect(absentReason({ secure: false, protocol: 'chrome:' })).toContain('http and https pages only');
    expect(absentReason({ secure: false, protocol: 'http:' })).toContain('not a secure context');
    expect(absentReason({ secure: true, protocol: 'https:' })).toContain('--enable-features=WebMCP');
  });
});
