import InspectorApp from '../components/InspectorApp.vue';
import { localStorageStore } from '../lib/key-value-store';
import { mountApp } from '../lib/mount';

// Served by the daemon itself: same origin, no host permission to ask for.
mountApp(InspectorApp, {
  kind: 'web',
  store: localStorageStore(),
  defaultDaemonUrl: location.origin,
  hasHostAccess: async () => true,
  requestHostAccess: async () => true,
});
