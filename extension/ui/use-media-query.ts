import { onBeforeUnmount, type Ref, ref } from 'vue';

/** Whether a media query matches, kept up to date while the component lives. */
export function useMediaQuery(query: string): Ref<boolean> {
  const list = matchMedia(query);
  const matches = ref(list.matches);
  const update = (event: MediaQueryListEvent): void => {
    matches.value = event.matches;
  };
  list.addEventListener('change', update);
  onBeforeUnmount(() => list.removeEventListener('change', update));
  return matches;
}
