// The `conformance` vitest project: the suites of this directory, with the setup that runs the check
// once. `vitest.config.ts` of this repository names it; a user's own workspace adds it the same way:
//   projects: [conformanceProject()]   (import { conformanceProject } from 'soap-json-conformance/suites')
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { TestProjectInlineConfiguration } from 'vitest/config';

/** suites/ in a checkout (TypeScript, which vitest reads itself), dist/suites/ when installed. */
const HERE = dirname(fileURLToPath(import.meta.url));
const EXT = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

export function conformanceProject(name = 'conformance'): TestProjectInlineConfiguration {
  return {
    test: {
      name,
      // The directory above suites/, so a file filter `suites` selects them.
      root: dirname(HERE),
      include: [`suites/*.suite.${EXT}`],
      globalSetup: [join(HERE, `conformance.setup.${EXT}`)],
      setupFiles: [fileURLToPath(import.meta.resolve('allure-vitest/setup'))],
      // The tests only present verdicts already reached.
      testTimeout: 60_000,
    },
  };
}

/** The reporter that writes the Allure results without host, thread, framework or file labels. */
export const AUDITOR_REPORTER = join(HERE, `auditor-reporter.${EXT}`);
