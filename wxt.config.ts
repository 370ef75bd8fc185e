import { defineConfig } from 'wxt';

// The daemon's default addresses are granted at install; a daemon on another port is asked for at
// pairing time through the optional permission (a host without a port matches every port).
export const DAEMON_HOST_PERMISSIONS = ['http://127.0.0.1:6274/*', 'http://localhost:6274/*'];

/**
 * The policy of the widget sandbox page (entrypoints/sandbox), which becomes the widget's document:
 * the floor under the policy each widget page carries in a `<meta>` (the daemon's Apps-SDK policy, or
 * the one an MCP App's declared domains make), which then narrows it further. `sandbox allow-scripts`
 * only: an opaque origin, and no popups, top navigation, forms or modal dialogs. Host sources stay open
 * to http and https here because MCP Apps may declare any (a local dev server included); no plugins,
 * no form posts, and nothing but scripts, styles, media, connections and frames.
 */
export const SANDBOX_CSP = [
  'sandbox allow-scripts',
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline' 'unsafe-eval' https: http:",
  "style-src 'self' 'unsafe-inline' https: http:",
  "img-src 'self' data: blob: https: http:",
  "font-src 'self' data: https: http:",
  "media-src 'self' data: blob: https: http:",
  'connect-src https: http: wss: ws:',
  'frame-src https: http:',
  "object-src 'none'",
  "form-action 'none'",
].join('; ');

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
    content_security_policy: { sandbox: SANDBOX_CSP },
  },
});
