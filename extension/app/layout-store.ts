import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { Platform } from './platform';

/** The panel's layout as the user left it: kept with the app's other data (extension or page storage). */
export interface Layout {
  /** Width of the server list, in CSS pixels. */
  sidebarWidth: number;
  sidebarCollapsed: boolean;
  /** Width of the list in the Tools, Resources and Prompts views (list | detail). */
  listWidth: number;
}

export const LAYOUT_KEY = 'layout';
export const DEFAULT_LAYOUT: Layout = { sidebarWidth: 240, sidebarCollapsed: false, listWidth: 240 };
/** Below this width (the panel docked right in DevTools, a narrow window) the server list sits on top. */
export const STACKED_MAX_WIDTH = 640;

function width(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : fallback;
}

export const useLayoutStore = defineStore('layout', () => {
  const sidebarWidth = ref(DEFAULT_LAYOUT.sidebarWidth);
  const sidebarCollapsed = ref(DEFAULT_LAYOUT.sidebarCollapsed);
  const listWidth = ref(DEFAULT_LAYOUT.listWidth);
  let platform: Platform | undefined;

  async function load(from: Platform): Promise<void> {
    platform = from;
    let stored: Partial<Layout> | undefined;
    try {
      stored = await from.store.get<Partial<Layout>>(LAYOUT_KEY);
    } catch {
      stored = undefined;
    }
    sidebarWidth.value = width(stored?.sidebarWidth, DEFAULT_LAYOUT.sidebarWidth);
    sidebarCollapsed.value = stored?.sidebarCollapsed === true;
    listWidth.value = width(stored?.listWidth, DEFAULT_LAYOUT.listWidth);
  }

  async function save(): Promise<void> {
    const layout: Layout = {
      sidebarWidth: sidebarWidth.value,
      sidebarCollapsed: sidebarCollapsed.value,
      listWidth: listWidth.value,
    };
    await platform?.store.set(LAYOUT_KEY, layout);
  }

  function toggleSidebar(): void {
    sidebarCollapsed.value = !sidebarCollapsed.value;
    void save();
  }

  return { sidebarWidth, sidebarCollapsed, listWidth, load, save, toggleSidebar };
});
