/**
 * Finds the recorded answer to a request: same method, params deep-equal with key order ignored and
 * `_meta` (where progress tokens travel) left out. A request recorded several times is answered with
 * each recorded answer in turn, then with the last one again.
 */
import type { Exchange } from '../../shared/session-file.ts';

export type Lookup =
  { found: true; exchange: Exchange } | { found: false; code: -32601 | -32602; message: string };

/** The params as compared: keys sorted at every level, `_meta` dropped at the top. */
export function canonical(params: unknown): string {
  if (params && typeof params === 'object' && !Array.isArray(params)) {
    const { _meta: _ignored, ...rest } = params as Record<string, unknown>;
    return sorted(rest);
  }
  return sorted(params ?? {});
}

function sorted(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sorted).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${sorted(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export class Matcher {
  /** method → canonical params → the recorded answers and how many were given. */
  private readonly recorded = new Map<string, Map<string, { answers: Exchange[]; next: number }>>();

  constructor(
    exchanges: Exchange[],
    private readonly source: string,
  ) {
    for (const exchange of exchanges) {
      let byParams = this.recorded.get(exchange.method);
      if (!byParams) this.recorded.set(exchange.method, (byParams = new Map()));
      const key = canonical(exchange.params);
      const slot = byParams.get(key);
      if (slot) slot.answers.push(exchange);
      else byParams.set(key, { answers: [exchange], next: 0 });
    }
  }

  get methods(): string[] {
    return [...this.recorded.keys()];
  }

  lookup(method: string, params: unknown): Lookup {
    const byParams = this.recorded.get(method);
    if (!byParams) {
      return {
        found: false,
        code: -32601,
        message: `${method} was not recorded in ${this.source} (it has ${this.methodList()})`,
      };
    }
    const slot = byParams.get(canonical(params));
    if (!slot) {
      const shown = canonical(params);
      const others = `${byParams.size} other ${method} request${byParams.size === 1 ? '' : 's'}`;
      return {
        found: false,
        code: -32602,
        message: `${method} was not recorded with these params in ${this.source} (it has ${others}): ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown}`,
      };
    }
    const exchange = slot.answers[Math.min(slot.next, slot.answers.length - 1)] as Exchange;
    slot.next++;
    return { found: true, exchange };
  }

  private methodList(): string {
    const methods = this.methods;
    return methods.length ? methods.join(', ') : 'no requests';
  }
}
