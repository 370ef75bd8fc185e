import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/daemon/**/*.test.ts', 'tests/conformance/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Daemon tests spawn real MCP servers; two workers suit the 2-core CI machine. npm test runs the
    // conformance suite on its own afterwards: its sse-retry scenario checks reconnection timing.
    maxWorkers: 2,
  },
});
