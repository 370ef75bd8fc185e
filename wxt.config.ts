import { defineConfig } from 'wxt';

// The daemon's default addresses are granted at install; a daemon on another port is asked for at
// pairing time through the optional permission (a host without a port matches every port).
export const DAEMON_HOST_PERMISSIONS = ['http://127.0.0.1:6274/*', 'http://localhost:6274/*'];

export default defineConfig({
  srcDir: 'extension',
  publicDir: 'extension/public',
  // Explicit imports everywhere: a reader sees where each name comes from.
  imports: false,
  modules: ['@wxt-dev/module-vue', '@wxt-dev/webextension-polyfill'],
  manifest: {
    name: 'MCP Inspector',
    description: 'Inspect and exercise MCP servers from DevTools, through the local inspector-daemon.',
    permissions: ['storage'],
    host_permissions: DAEMON_HOST_PERMISSIONS,
    optional_host_permissions: ['http://127.0.0.1/*', 'http://localhost/*'],
  },
});
