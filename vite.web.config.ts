import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

/** The development daemon (`npm run dev`), which the page on the dev server pairs with by default. */
const DEV_DAEMON_URL = 'http://127.0.0.1:6274';

// The same Vue app as the devtools panel, built as a plain page into dist/client for the daemon to serve,
// or served by the Vite dev server with hot reload (`npm run dev:web`, port 5173).
export default defineConfig(({ command }) => ({
  root: fileURLToPath(new URL('./extension/web', import.meta.url)),
  plugins: [vue()],
  server: { port: 5173, strictPort: true },
  define: {
    // Built, the page is served by the daemon and pairs with its own origin (extension/web/main.ts).
    __DEV_DAEMON_URL__: JSON.stringify(
      command === 'serve' ? (process.env.INSPECTOR_DAEMON_URL ?? DEV_DAEMON_URL) : null,
    ),
  },
  build: {
    outDir: fileURLToPath(new URL('./dist/client', import.meta.url)),
    emptyOutDir: true,
  },
}));
