import vm from 'node:vm';
import type { TimeGuard } from '../shared/time-guard.ts';

/**
 * The command line's time guard (see shared/time-guard.ts): `work` is called from a script run in a `vm`
 * context with a timeout. The timeout is a watchdog that terminates whatever JavaScript runs on this thread,
 * a regular expression mid-match included, and the `vm` call throws; the process goes on.
 */
const context = vm.createContext({});

export const vmTimeGuard: TimeGuard = <T>(work: () => T, budgetMs: number) => {
  const holder: { work: () => T; value?: T } = { work };
  try {
    vm.runInContext('holder.value = holder.work()', Object.assign(context, { holder }), {
      timeout: Math.max(1, Math.round(budgetMs)),
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return undefined;
    throw error;
  } finally {
    delete (context as { holder?: unknown }).holder;
  }
  return { value: holder.value as T };
};
