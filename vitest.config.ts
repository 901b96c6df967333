// The project's own tests (`npm test`). The conformance suites in suites/ are run by the CLI,
// with their own configuration (lib/cli/vitest-run.ts), never by this file.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Most tests wait on sockets and child processes; vitest's default on two cores is one worker.
    maxWorkers: 2,
  },
});
