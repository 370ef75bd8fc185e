/**
 * A widget's request to open a link, put to the user. Widget code is untrusted and the panel is an
 * extension page, which no popup blocker guards: nothing opens until the user clicks Open in the host's
 * own prompt (LinkConsent.vue), drawn outside the widget's frame where the widget cannot draw or click.
 * One request waits at a time per widget; the ones that come while it waits are refused and counted, so
 * a widget cannot swap the address under the user's pointer or pile up prompts.
 */
import { onScopeDispose, shallowRef, type ShallowRef } from 'vue';

/** What became of a request: opened on the user's click, dismissed by the user, or refused unasked. */
export type LinkAnswer = 'opened' | 'dismissed' | 'busy';

export interface LinkPrompt {
  /** Counts the prompts shown, so that each new one is a new component (and arms anew). */
  seq: number;
  /** The address as it will open: parsed and serialised (punycode host, non-ASCII percent-encoded). */
  url: string;
  /** Requests refused while this one waits. */
  refused: number;
}

export interface LinkConsent {
  prompt: Readonly<ShallowRef<LinkPrompt | null>>;
  /** Puts an http(s) address to the user; resolves once they answer (or at once, when one already waits). */
  ask(url: string): Promise<LinkAnswer>;
  /** The user's answer to the prompt shown: Open opens the address in a new tab, without the panel. */
  answer(open: boolean): void;
  /** Withdraws the prompt shown, as dismissed (the widget reloads or goes). */
  withdraw(): void;
}

/** The tab a link opens in gets neither the panel (`opener`) nor its address (`Referer`). */
function openTab(url: string): void {
  window.open(url, '_blank', 'noopener,noreferrer');
}

export function useLinkConsent(open: (url: string) => void = openTab): LinkConsent {
  const prompt = shallowRef<LinkPrompt | null>(null);
  let settle: ((answer: LinkAnswer) => void) | null = null;
  let seq = 0;

  function ask(url: string): Promise<LinkAnswer> {
    if (prompt.value) {
      prompt.value = { ...prompt.value, refused: prompt.value.refused + 1 };
      return Promise.resolve('busy');
    }
    prompt.value = { seq: ++seq, url: new URL(url).href, refused: 0 };
    return new Promise((resolve) => (settle = resolve));
  }

  function answer(opening: boolean): void {
    const shown = prompt.value;
    const done = settle;
    if (!shown || !done) return;
    prompt.value = null;
    settle = null;
    if (opening) open(shown.url);
    done(opening ? 'opened' : 'dismissed');
  }

  onScopeDispose(() => answer(false));

  return { prompt, ask, answer, withdraw: () => answer(false) };
}
