import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { extensionStore } from '../../extension/app/extension-store';
import ExpectationsPanel from '../../extension/saved-requests/ExpectationsPanel.vue';
import { useSavedRequestsStore } from '../../extension/saved-requests/saved-requests-store';
import type { Run } from '../../extension/tools/tool-run';
import { setPatternWorkerFactory } from '../../extension/validation/pattern-jobs.ts';
import type { Expectation } from '../../shared/expectations.ts';
import type { JsonSchema } from '../../extension/forms/forms';
import { fakePatternWorker } from './support/fake-pattern-worker.ts';

/**
 * The panel for `echo`, its saved request holding `expectations` (and `parameters`), after a run that
 * answered `text` (made with `ran`).
 */
async function panelWith(
  expectations: Expectation[],
  text: string,
  {
    parameters = {},
    ran = {},
    inputSchema,
  }: { parameters?: object; ran?: object; inputSchema?: JsonSchema } = {},
) {
  const pinia = createPinia();
  setActivePinia(pinia);
  const store = useSavedRequestsStore();
  await store.load(extensionStore(), 'everything');
  const saved = await store.save({ title: 'Echo', toolName: 'echo', parameters: { ...parameters } });
  for (const expectation of expectations) await store.addExpectation(saved.id, expectation);
  store.attach('echo', saved.id);
  const run: Run = {
    id: 'r1',
    serverId: 'everything',
    toolName: 'echo',
    parameters: ran,
    state: 'completed',
    startedAt: 0,
    finishedAt: 5,
    result: { content: [{ type: 'text', text }] },
  } as Run;
  return mount(ExpectationsPanel, {
    props: { toolName: 'echo', run, ...(inputSchema && { inputSchema }) },
    global: { plugins: [pinia] },
  });
}

const outcomeTexts = (wrapper: ReturnType<typeof mount>): string[] =>
  wrapper.findAll('[data-outcome]').map((row) => `${row.attributes('data-outcome')}: ${row.text()}`);

describe('expectations that run a regular expression, in the panel', { timeout: 10_000 }, () => {
  beforeEach(() => fakeBrowser.reset());

  it('are checked in the pattern worker: a /text/ passes, a backtracking one is not checked', async () => {
    setPatternWorkerFactory(() => fakePatternWorker(300));
    onTestFinished(() => setPatternWorkerFactory(undefined));
    const wrapper = await panelWith(
      [
        { kind: 'text', text: '/^a+!$/' },
        { kind: 'jsonPath', path: '$.content[0].text', op: 'matches', pattern: '^(a|a)*$' },
        { kind: 'noError' },
      ],
      `${'a'.repeat(40)}!`,
    );
    await flushPromises();
    // Being checked is neither a pass nor a failure, in the row and in the tally.
    const checking = outcomeTexts(wrapper);
    expect(checking[1]).toMatch(/^checking: …Being checked:.*Checking the pattern…/);
    expect(wrapper.find('[data-testid="expectations-tally"]').text()).toMatch(
      /^• \d of 3 pass, \d being checked$/,
    );
    expect(wrapper.find('[data-testid="expectations-tally"]').classes()).toContain('unchecked');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await flushPromises();
    const rows = outcomeTexts(wrapper);
    expect(rows[0]).toMatch(/^pass: /);
    expect(rows[1]).toMatch(/^unchecked: •Not checked:.*pattern not checked: it took longer than 1,000 ms/);
    expect(rows[1]).not.toMatch(/Not checked: pattern not checked/);
    expect(rows[2]).toMatch(/^pass: /);
    const tally = wrapper.find('[data-testid="expectations-tally"]');
    expect(tally.text()).toBe('• 2 of 3 pass, 1 not checked');
    expect(tally.classes()).toContain('unchecked');
  });

  it('offers no button for a kind of expectation the request has already', async () => {
    const fresh = await panelWith([{ kind: 'text', text: 'hi' }], 'hi');
    await flushPromises();
    expect(fresh.find('[data-testid="expect-success"]').exists()).toBe(true);
    fakeBrowser.reset();
    const expecting = await panelWith([{ kind: 'noError' }], 'hi');
    await flushPromises();
    expect(expecting.find('[data-testid="expect-success"]').exists()).toBe(false);
    expect(expecting.find('[data-testid="expect-snapshot"]').exists()).toBe(true);
  });

  it('says a run was made with other parameters only when it was: a field the request leaves out is not its default', async () => {
    const inputSchema = {
      type: 'object',
      properties: {
        message: { type: 'string' },
        loud: { type: 'boolean' },
        times: { type: 'integer', default: 2 },
      },
    };
    const other = '[data-testid="expectations-other-parameters"]';
    const same = await panelWith([{ kind: 'noError' }], 'hi', {
      parameters: { message: 'hi' },
      ran: { message: 'hi' },
      inputSchema,
    });
    await flushPromises();
    expect(same.find(other).exists()).toBe(false);
    fakeBrowser.reset();
    const edited = await panelWith([{ kind: 'noError' }], 'hi', {
      parameters: { message: 'hi' },
      ran: { message: 'hi', loud: true },
      inputSchema,
    });
    await flushPromises();
    expect(edited.find(other).text()).toContain('Save them to “Echo”');
  });
});
