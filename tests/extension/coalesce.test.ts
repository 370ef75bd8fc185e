import { describe, expect, it } from 'vitest';
import { coalesced } from '../../extension/app/coalesce';

/** A run that ends when told to. */
function controlled() {
  const started: string[] = [];
  const enders: Array<() => void> = [];
  const work = (key: string) =>
    new Promise<void>((resolve, reject) => {
      started.push(key);
      enders.push(() => (key === 'fails' ? reject(new Error('no')) : resolve()));
    });
  const endNext = async (): Promise<void> => {
    enders.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { started, work, endNext };
}

describe('coalesced work', () => {
  it('runs once more after the run under way however often it was asked meanwhile, per key', async () => {
    const { started, work, endNext } = controlled();
    const run = coalesced(work);
    run('a');
    for (let i = 0; i < 1000; i++) run('a');
    run('b');
    expect(started).toEqual(['a', 'b']);
    await endNext();
    expect(started).toEqual(['a', 'b', 'a']);
    await endNext();
    await endNext();
    expect(started).toEqual(['a', 'b', 'a']);
    // Asked once more after all ended: it runs at once.
    run('a');
    expect(started).toEqual(['a', 'b', 'a', 'a']);
  });

  it('goes on after a run that fails', async () => {
    const { started, work, endNext } = controlled();
    const run = coalesced(work);
    run('fails');
    run('fails');
    await endNext();
    expect(started).toEqual(['fails', 'fails']);
    await endNext();
    run('fails');
    expect(started).toEqual(['fails', 'fails', 'fails']);
  });
});
