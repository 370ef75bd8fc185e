import { defineConfig } from 'wxt';

// The daemon's default addresses are granted at install; a daemon at any other address (another port,
// a shared daemon on another machine) is asked for at pairing or sign-in time, its host alone, through
// the optional permission (a host without a port matches every port).
export const DAEMON_HOST_PERMISSIONS = ['http://127.0.0.1:6274/*', 'http://localhost:6274/*'];
const OTHER_DAEMON_PORTS = ['http://127.0.0.1/*', 'http://localhost/*'];
const OTHER_DAEMON_ADDRESSES = ['http://*/*', 'https://*/*'];

/**
 * `INSPECTOR_TEST_BUILD=1` builds the extension the end-to-end tests drive: every loopback port is
 * granted at install (headless Chromium shows a permission prompt nobody can answer, and each test
 * daemon takes a free port), and it goes to its own folder, `.output/test-chrome-mv3`, so a test run
 * never replaces the extension `npm start` built. Nothing else differs from the production build.
 */
const TEST_BUILD = process.env.INSPECTOR_TEST_BUILD === '1';

/** The Firefox add-on's id (`browser_specific_settings.gecko.id`). */
export const FIREFOX_ADDON_ID = 'mcp-inspector@inspector-daemon';

/**
 * The policy of the widget sandbox page (public/sandbox.html), which becomes the widget's document:
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
  // `wxt zip -b firefox` also packs the sources addons.mozilla.org reviewers rebuild the extension from
  // (npm ci, then npx wxt build -b firefox): the extension, shared/ and the build files, not the daemon.
  zip: { excludeSources: ['bin/**', 'daemon/**', 'dist/**', 'docs/**', 'scripts/**', 'tests/**'] },
  ...(TEST_BUILD && { outDirTemplate: 'test-{{browser}}-mv{{manifestVersion}}{{modeSuffix}}' }),
  // Manifest V3 for Firefox too (wxt would build V2 for it): the same permissions model in both browsers.
  manifestVersion: 3,
  manifest: ({ browser }) => ({
    name: 'MCP Inspector',
    description: 'Inspect and exercise MCP servers from DevTools, through the local inspector-daemon.',
    // `identity`: a user of a shared daemon signs in through the browser's web-auth window (SPEC part 5).
    permissions: ['storage', 'identity'],
    host_permissions: TEST_BUILD ? OTHER_DAEMON_PORTS : DAEMON_HOST_PERMISSIONS,
    optional_host_permissions: OTHER_DAEMON_ADDRESSES,
    ...(browser === 'firefox'
      ? // Firefox has no sandbox pages nor a sandbox policy: the widget frame's sandbox attribute alone
        // makes sandbox.html an opaque origin, which Firefox then gives neither the extension's policy nor
        // its APIs (WidgetFrame.vue). A fixed id: addons.mozilla.org signs Manifest V3 add-ons only with
        // one, and storage stays the same across temporary installs. It also asks every extension what
        // data it collects: none, it talks to the daemon only (a key Firefox reads from 140 on).
        {
          // Firefox's default policy for extension pages upgrades insecure requests, and so turns the
          // live channel's ws:// into a wss:// the daemon does not speak; this one keeps scripts as strict.
          content_security_policy: { extension_pages: "script-src 'self'" },
          browser_specific_settings: {
            gecko: {
              id: FIREFOX_ADDON_ID,
              strict_min_version: '140.0',
              data_collection_permissions: { required: ['none'] },
            },
            // Firefox for Android reads data_collection_permissions from 142 on (web-ext lint says so).
            gecko_android: { strict_min_version: '142.0' },
          },
        }
      : // The widget sandbox page (public/sandbox.html): an opaque origin under SANDBOX_CSP.
        { sandbox: { pages: ['sandbox.html'] }, content_security_policy: { sandbox: SANDBOX_CSP } }),
  }),
});
