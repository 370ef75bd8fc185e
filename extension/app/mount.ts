import { createPinia } from 'pinia';
import { type Component, createApp } from 'vue';
import '../ui/theme.css';
import '../ui/split-view.css';
import { provideAuthUser } from '../auth-user/auth-user';
import { PLATFORM, type Platform } from './platform';

/**
 * The panel set DevTools' own theme already; elsewhere the page follows the system's, also when it
 * changes while the page is open.
 */
function followSystemTheme(): void {
  const html = document.documentElement;
  if (html.dataset.theme) return;
  const dark = matchMedia('(prefers-color-scheme: dark)');
  const apply = (): void => {
    html.dataset.theme = dark.matches ? 'dark' : 'light';
  };
  apply();
  dark.addEventListener('change', apply);
}

/** Mounts one of the app's roots with its platform: the same app runs in the panel, options and web page. */
export function mountApp(root: Component, platform: Platform, selector = '#app'): void {
  followSystemTheme();
  const app = createApp(root);
  app.use(createPinia());
  app.provide(PLATFORM, platform);
  provideAuthUser(app, platform);
  app.mount(selector);
}
