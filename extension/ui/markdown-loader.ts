/**
 * markdown-it and DOMPurify (markdown.ts) are some 130 KB of script, half of what the result view would
 * load, while a Markdown resource is rare in a result: they load the first time one is shown, so the
 * popup and the panel open without them.
 */
import { shallowRef } from 'vue';

type Render = (source: string, uri?: string) => string;

/** The renderer, once loaded; views that show Markdown re-render when it arrives. */
export const markdownRenderer = shallowRef<Render | null>(null);

let loading: Promise<Render> | undefined;

/** Loads the renderer once; a failed load can be tried again. */
export function loadMarkdown(): Promise<Render> {
  loading ??= import('./markdown').then(
    ({ renderMarkdown }) => (markdownRenderer.value = renderMarkdown),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
