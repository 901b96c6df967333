// The in-process test files Stryker runs against mutants of lib/checks, the redactor and the tally
// (test/mutants/stryker.config.json): no file that spawns the CLI (a child would not run the
// mutant the same way, and each spawn costs seconds per mutant on a 2-core machine).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/checks.test.ts', 'test/requests.test.ts', 'test/redact.test.ts', 'test/report-redaction.test.ts', 'test/reporting.test.ts', 'test/classify.test.ts', 'test/tally.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
