import InspectorApp from '../app/InspectorApp.vue';
import { localStorageStore } from '../app/key-value-store';
import { mountApp } from '../app/mount';

/** On the Vite dev server (`npm run dev:web`): the development daemon's address; built: `null`. */
declare const __DEV_DAEMON_URL__: string | null;

// Served by the daemon itself: same origin, no host permission to ask for. On the dev server the daemon
// is elsewhere, and allows the dev server's origin in development (`npm run dev`).
mountApp(InspectorApp, {
  kind: 'web',
  store: localStorageStore(),
  defaultDaemonUrl: __DEV_DAEMON_URL__ ?? location.origin,
  hasHostAccess: async () => true,
  requestHostAccess: async () => true,
});
