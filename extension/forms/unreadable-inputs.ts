/**
 * Boxes whose text cannot be read: a JSON box whose text does not parse (it keeps the last value it could
 * read), a number box holding what is no number (the browser reads it as empty). A form holding one must
 * not be run or sent: what would go is not what the box shows. A form provides this registry; each such
 * box inside it says when its text can or cannot be read.
 */
import { computed, type ComputedRef, type InjectionKey, reactive } from 'vue';

export interface UnreadableInput {
  /** The textarea's element id, to take the user there. */
  id: string;
  /** What the box holds, as said in a sentence: `field “address”`, `the parameters`. */
  name: string;
  problem: string;
  /** What the box holds: JSON (the default) or a number. */
  kind?: 'json' | 'number';
}

export interface UnreadableInputs {
  /** Records the box's problem, or clears it with `undefined` (also when the box goes away). */
  set(id: string, entry: UnreadableInput | undefined): void;
}

export const UNREADABLE_INPUTS: InjectionKey<UnreadableInputs> = Symbol('unreadable inputs');

/** A registry and the first box it holds that cannot be read, in the order they were found. */
export function unreadableRegistry(): UnreadableInputs & { first: ComputedRef<UnreadableInput | undefined> } {
  const entries = reactive(new Map<string, UnreadableInput>());
  return {
    set(id, entry) {
      if (entry) entries.set(id, entry);
      else entries.delete(id);
    },
    first: computed(() => entries.values().next().value),
  };
}

/** The line shown where a form is run or sent while a box cannot be read; the box shows the problem. */
export function unreadableNote(input: UnreadableInput): string {
  if (input.kind === 'number') return `What is typed in ${input.name} is no number: fix it first.`;
  return `The JSON of ${input.name} cannot be read: fix it first.`;
}

/** Takes the user to the box that cannot be read. */
export function focusUnreadable(input: UnreadableInput): void {
  document.getElementById(input.id)?.focus();
}
