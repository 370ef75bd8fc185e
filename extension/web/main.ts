import InspectorApp from '../app/InspectorApp.vue';
import { localStorageStore } from '../app/key-value-store';
import { mountApp } from '../app/mount';

// Served by the daemon itself: same origin, no host permission to ask for.
mountApp(InspectorApp, {
  kind: 'web',
  store: localStorageStore(),
  defaultDaemonUrl: location.origin,
  hasHostAccess: async () => true,
  requestHostAccess: async () => true,
});
