// The project's own tests (`npm test`: the harness project, test/) and the conformance suites
// (suites/: `npx vitest run suites` checks BASE_URL, or the embedded reference, through the CLI's engine).
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { conformanceProject } from './suites/project.js';

/** The files that spawn the CLI, a browser, npm, dotnet or a load, longest first (the fresh-clone
 *  CI run's durations, 26 Nov 2026, less the runs since made once for several files): started
 *  first, so the two workers do not end on one long file while the other idles. Without vitest's
 *  cache (a fresh clone, CI) the default order is the directory's, which started proxy, secrets and
 *  stopping last; with it, the order follows the last run of each file, whatever the load was then. */
const HEAVY = ['report-verdict-screen', 'har-memory', 'proxy', 'auditor-report', 'package', 'report-files', 'hostile-cli', 'secrets', 'verdict-modes', 'har',
  'merge-identity', 'replay-matrix', 'differential-cli', 'cli', 'proxy-unjudged-live', 'reference-abuse', 'dotnet-oracle', 'accounts', 'stopping', 'generated',
  'verdict', 'proxy-hostile', 'judging-reference', 'vitest-workspace'].map((n) => `/test/${n}.test.ts`);
const rank = (s: TestSpecification) => { const i = HEAVY.findIndex((h) => s.moduleId.endsWith(h)); return i < 0 ? HEAVY.length : i; };

/** The files that run in the test's process alone: no CLI child, browser, npm or dotnet, no load
 *  test. `npm run test:quick` runs just these. */
export const IN_PROCESS = [
  'checks', 'classify', 'contract', 'differential', 'docs', 'hostile', 'json-parse', 'jsonp-vm', 'layers', 'named-mutations-apply', 'openapi',
  'pathological', 'progress', 'properties', 'rate-clock', 'redact', 'reference-golden', 'reference-http', 'report-redaction',
  'reporting', 'requests', 'sensitivity-matrix', 'tally', 'servicestack-client', 'transport', 'wsdl-soap-client',
  'xsd-contract', 'xsd-independent',
].map((n) => `test/${n}.test.ts`);

class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).map((s, i) => [s, i] as const).sort(([a, i], [b, j]) => rank(a) - rank(b) || i - j).map(([s]) => s);
  }
}

export default defineConfig({
  test: {
    // Two child processes (not worker threads: tests spawn programs and servers, and a thread would
    // share the runner's process-wide state), each running file after file without a fresh process
    // per file: a process, vitest's start in it and the imports cost up to 1 CPU-s per file (the 27
    // files of test:quick took 49 CPU-s so, 33 without). No test file changes process-wide state it
    // does not restore (fake timers and spies are restored after each test).
    // Two at once: most of a heavy file's time is spent waiting on its own children.
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
    sequence: { sequencer: HeavyFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'harness',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/setup/current-build.ts', 'test/setup/ram-tmpdir.ts'],
          setupFiles: ['test/setup/kill-owned.ts'],
          // Generous: many tests run the whole CLI as a child process, several at once, on a shared 2-core
          // machine. A limit only catches a hang; no test asserts on how long anything took. (240 s was
          // too short: under load the 256 MiB recording of har-memory took longer than that.)
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
      conformanceProject(),
    ],
  },
});
