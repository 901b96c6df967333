// The project's own tests (`npm test`). The presentation in presentation/ is run by the CLI,
// with their own configuration (lib/cli/vitest-run.ts), never by this file.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: many tests run the whole CLI as a child process, several at once, on a shared 2-core
    // machine. A limit only catches a hang; no test asserts on how long anything took.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    // Most tests wait on sockets and child processes; vitest's default on two cores is one worker.
    maxWorkers: 2,
  },
});
