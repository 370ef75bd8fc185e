// @vitest-environment node
/**
 * Cancel in the Resources and Prompts views, through their stores, against a real daemon and the slow
 * fixture server (its `slow://wait` and prompt `wait` answer only when cancelled): the read or get ends
 * as cancelled, the server is told, and the next read answers.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { usePromptsStore } from '../../extension/prompts/prompts-store';
import { useResourcesStore } from '../../extension/resources/resources-store';
import { CANCELLED } from '../../extension/ui/mcp-error';
import { fixtureStdio, registerAndConnect, startDaemon, type TestDaemon } from '../daemon/helpers';
import { pairWith } from './daemon-pairing';

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startDaemon();
  expect((await registerAndConnect(daemon, 'slow', fixtureStdio('slow-server.ts'))).status).toBe(200);
});
afterAll(async () => {
  await daemon?.close();
});
beforeEach(async () => {
  setActivePinia(createPinia());
  await pairWith(daemon);
});

/** How many requests with `method` the daemon has sent the server. */
const sent = (method: string): number =>
  daemon.daemon.bus.since(0).filter((e) => e.direction === 'send' && e.message.method === method).length;

/** Waits until `check` holds, or fails after 10 s. */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What the fixture says was cancelled. */
async function cancelledAtServer(): Promise<string[]> {
  const { body } = await daemon.api('POST', '/api/mcp/servers/slow/tools/cancellations/call', {});
  return JSON.parse(body.result.content[0].text) as string[];
}

/**
 * Waits until the daemon has sent a `notifications/cancelled` beyond the `cancelsBefore` it had sent, then
 * until the server noted `note`: a failure says which of the two did not act.
 */
async function untilServerTold(cancelsBefore: number, note: string): Promise<void> {
  await until(
    'the daemon sent notifications/cancelled',
    () => sent('notifications/cancelled') > cancelsBefore,
  );
  await until('the server noted the cancellation', async () => (await cancelledAtServer()).includes(note));
}

describe('cancelling a read or a prompt', () => {
  it('ends a resource read as cancelled, tells the server, and reads the next URI', async () => {
    const resources = useResourcesStore();
    await resources.load('slow');
    const before = sent('resources/read');
    const cancels = sent('notifications/cancelled');
    const reading = resources.selectResource('slow://wait');
    await until('the read went to the server', () => sent('resources/read') > before);
    expect(resources.current?.loading).toBe(true);
    resources.cancelRead('slow://wait');
    await reading;
    expect(resources.current).toMatchObject({ loading: false, error: CANCELLED });
    await untilServerTold(cancels, 'resources/read slow://wait');
    await resources.selectResource('slow://now');
    expect(resources.current?.error).toBeUndefined();
    expect(JSON.stringify(resources.current?.result)).toContain('at once');
  });

  it('ends a prompt get as cancelled and tells the server', async () => {
    const prompts = usePromptsStore();
    await prompts.load('slow');
    prompts.select('wait');
    const before = sent('prompts/get');
    const cancels = sent('notifications/cancelled');
    const getting = prompts.get();
    await until('the get went to the server', () => sent('prompts/get') > before);
    expect(prompts.run?.loading).toBe(true);
    prompts.cancel();
    await getting;
    expect(prompts.run).toMatchObject({ loading: false, error: CANCELLED });
    await untilServerTold(cancels, 'prompts/get wait');
  });
});
