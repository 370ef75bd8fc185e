import { type FunctionalComponent, h } from 'vue';
import { elidePlain, hiddenParts } from './hidden-text';

/**
 * A server's text as it reads, with every hidden character it holds (`hidden-text.ts`) shown in place,
 * marked, its code point and name in a tooltip. Text without one is a plain text node: lists of
 * thousands of names pay one regular-expression test each.
 */
export const ShownText: FunctionalComponent<{ text: unknown; elide?: number }> = (props) => {
  // A server's mistake (a number for a name, say) is shown as text, as `{{ }}` shows it.
  const text = typeof props.text === 'string' ? props.text : String(props.text ?? '');
  const found = hiddenParts(text);
  if (!found) return text;
  // `elide`: plain runs longer than that are cut to their ends, for the marks of a long text.
  const parts = props.elide ? elidePlain(found, props.elide) : found;
  return parts.map((part) =>
    typeof part === 'string'
      ? part
      : [h('mark', { class: 'hidden-char', title: part.title }, part.shown), part.keep ? part.raw : ''],
  );
};
ShownText.props = ['text', 'elide'];
