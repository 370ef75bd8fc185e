import { type FunctionalComponent, h } from 'vue';
import { hiddenParts } from './hidden-text';

/**
 * A server's text as it reads, with every hidden character it holds (`hidden-text.ts`) shown in place,
 * marked, its code point and name in a tooltip. Text without one is a plain text node: lists of
 * thousands of names pay one regular-expression test each.
 */
export const ShownText: FunctionalComponent<{ text: unknown }> = (props) => {
  // A server's mistake (a number for a name, say) is shown as text, as `{{ }}` shows it.
  const text = typeof props.text === 'string' ? props.text : String(props.text ?? '');
  const parts = hiddenParts(text);
  if (!parts) return text;
  return parts.map((part) =>
    typeof part === 'string'
      ? part
      : [h('mark', { class: 'hidden-char', title: part.title }, part.shown), part.keep ? part.raw : ''],
  );
};
ShownText.props = ['text'];
