/**
 * happy-dom lays nothing out: every element measures 0 px, so a virtual list (extension/ui/VirtualList.vue)
 * would show no row. This gives every element the height of a list row and every scroll container a
 * height of `viewport` px, until the test ends: the virtualizer then shows the rows that fit, and some
 * around them. A scroll container's content is as tall as its first child says in its style (the
 * virtual list's sizer), so the list can be scrolled.
 */
import { onTestFinished } from 'vitest';

export const ROW = 44;

export function layOutLists(viewport = 440): void {
  const stubs = {
    clientHeight: () => viewport,
    clientWidth: () => 300,
    offsetHeight: () => ROW,
    scrollHeight(this: Element) {
      const child = this.firstElementChild;
      const height = child instanceof HTMLElement ? Number.parseFloat(child.style.height) : Number.NaN;
      return Number.isNaN(height) ? viewport : Math.max(height, viewport);
    },
  } as const;
  for (const [name, get] of Object.entries(stubs)) {
    const owner = [HTMLElement.prototype, Element.prototype].find((proto) =>
      Object.getOwnPropertyDescriptor(proto, name),
    );
    if (!owner) throw new Error(`happy-dom has no ${name}`);
    const original = Object.getOwnPropertyDescriptor(owner, name)!;
    Object.defineProperty(owner, name, { configurable: true, get });
    onTestFinished(() => {
      Object.defineProperty(owner, name, original);
    });
  }
}
