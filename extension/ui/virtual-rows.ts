/** The row element a virtual list shows for `index`, if it is in the page (rows carry `data-index`). */
function rowElement(scroller: HTMLElement | null, index: number): HTMLElement | null {
  return scroller?.querySelector<HTMLElement>(`[data-index="${index}"]`) ?? null;
}

/**
 * Focuses row `index` of a virtual list: scrolled into the page first when it is not there, waiting a few
 * frames for the virtualizer to render it. Used by the Logs view and VirtualList.vue.
 */
export async function focusVirtualRow(
  scroller: HTMLElement | null,
  virtualizer: { scrollToIndex(index: number, options: { align: 'auto' }): void },
  index: number,
): Promise<void> {
  let element = rowElement(scroller, index);
  if (!element) {
    virtualizer.scrollToIndex(index, { align: 'auto' });
    for (let tries = 0; tries < 5 && !element; tries++) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      element = rowElement(scroller, index);
    }
  }
  element?.focus({ preventScroll: true });
  element?.scrollIntoView?.({ block: 'nearest' });
}
