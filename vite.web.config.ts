import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

// The same Vue app as the devtools panel, built as a plain page into dist/client for the daemon to serve.
export default defineConfig({
  root: fileURLToPath(new URL('./extension/web', import.meta.url)),
  plugins: [vue()],
  server: { port: 5173, strictPort: true },
  build: {
    outDir: fileURLToPath(new URL('./dist/client', import.meta.url)),
    emptyOutDir: true,
  },
});
