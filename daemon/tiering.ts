import { setFlagsFromString } from 'node:v8';

/**
 * V8 compiles a function with its optimising compilers only after it has run many times: Maglev after
 * 400 calls, TurboFan after 3,000. Every tool call runs the same few hundred functions once (the HTTP
 * parser's callbacks, the routes, the MCP client, the log), so with V8's defaults a daemon answers its
 * first few thousand calls from baseline code, measured at about 100 µs more per call. A daemon is a
 * long-running server whose per-call path is the same every time: it tiers up after a few dozen calls.
 *
 * Set once the daemon listens, so start-up (code that runs a handful of times) is compiled as before.
 * `INSPECTOR_V8_TIERING=0` keeps V8's defaults.
 */
export const EARLY_TIERING_FLAGS = [
  '--invocation-count-for-maglev=40',
  '--minimum-invocations-after-ic-update=40',
  '--invocation-count-for-turbofan=150',
];

export function tierUpEarly(env: NodeJS.ProcessEnv): void {
  if (env.INSPECTOR_V8_TIERING === '0') return;
  for (const flag of EARLY_TIERING_FLAGS) setFlagsFromString(flag);
}
