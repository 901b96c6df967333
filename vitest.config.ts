// The project's own tests (`npm test`: the harness project, test/) and the conformance suites
// (suites/: `npx vitest run suites` checks BASE_URL, or the embedded reference, through the CLI's engine).
import { defineConfig } from 'vitest/config';
import { conformanceProject } from './suites/project.js';

export default defineConfig({
  test: {
    // Most tests wait on sockets and child processes; vitest's default on two cores is one worker.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'harness',
          include: ['test/**/*.test.ts'],
          // Generous: many tests run the whole CLI as a child process, several at once, on a shared 2-core
          // machine. A limit only catches a hang; no test asserts on how long anything took.
          testTimeout: 240_000,
          hookTimeout: 240_000,
        },
      },
      conformanceProject(),
    ],
  },
});
