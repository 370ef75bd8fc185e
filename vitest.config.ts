import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';
import { WxtVitest } from 'wxt/testing/vitest-plugin';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Daemon tests spawn real MCP servers; two workers suit the 2-core CI machine. npm test runs the
    // conformance suite on its own afterwards: its sse-retry scenario checks reconnection timing.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'daemon', include: ['tests/daemon/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'conformance', include: ['tests/conformance/**/*.test.ts'] },
      },
      {
        extends: true,
        // npm pack (which rebuilds dist/client and dist/server), installed and started as a user would.
        test: {
          name: 'package',
          include: ['tests/package/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        // WxtVitest does not add the Vue plugin itself. Pool and isolation are vitest's defaults, said out
        // loud: each file gets its own process and happy-dom (module-level stores and the fake browser
        // start clean), which vitest would otherwise suggest trading away at the end of every run.
        plugins: [vue(), WxtVitest()],
        test: {
          name: 'extension',
          include: ['tests/extension/**/*.test.ts'],
          environment: 'happy-dom',
          pool: 'forks',
          isolate: true,
        },
      },
      {
        extends: true,
        // Real Chromium drives the built extension (its test build, granted every loopback port, so each
        // daemon takes a free port) and web page, built once by the global setup; one file at a time.
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          globalSetup: ['tests/e2e/support/build.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        // Debian's firefox-esr over WebDriver BiDi drives the Firefox zip (npm run zip's), made once by the
        // global setup; one file at a time.
        test: {
          name: 'firefox',
          include: ['tests/firefox/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          globalSetup: ['tests/firefox/support/build.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
