import { createPinia } from 'pinia';
import { type Component, createApp } from 'vue';
import '../ui/theme.css';
import '../ui/split-view.css';
import { PLATFORM, type Platform } from './platform';

/** Mounts one of the app's roots with its platform: the same app runs in the panel, options and web page. */
export function mountApp(root: Component, platform: Platform, selector = '#app'): void {
  const html = document.documentElement;
  // The panel set DevTools' own theme already; elsewhere follow the system.
  html.dataset.theme ??= matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  const app = createApp(root);
  app.use(createPinia());
  app.provide(PLATFORM, platform);
  app.mount(selector);
}
