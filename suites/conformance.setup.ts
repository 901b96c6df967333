// The standalone path (`npx vitest run suites`, a user's `conformance` project): runs the conformance
// check once, before any suite file, with the CLI itself (`cli/main`, so the same engine, options and
// .env reading: BASE_URL from the environment or ./.env, the embedded reference when unset), and hands
// its report to the files (provide/inject). Only summary.json is written, into a temporary directory:
// the suites present it, and the user's reporters (allure-vitest) write the rest.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { readReport } from '../lib/cli/write-reports.js';
import { fromRoot } from '../lib/paths.js';
import type { Report } from '../lib/reporting/report.js';
import type { NotRun } from './check-tests.js';

/** The catalogue's checks the run did not run: a check bound to sources the run lacked, or left out
 *  by the run's options (JUDGE_SIDES). */
export const notRunOf = (report: Report): NotRun[] => {
  const ran = new Set(report.checks.map((c) => c.id));
  return CATALOGUE.filter((c) => !ran.has(c.id)).map(({ id, title, area, operation, level, clause, sources, probe }) => ({
    id, title, area, operation, level, clause,
    why: sources ? `not run: needs ${probe ?? sources.join(' or ')}` : 'not run: left out by the run options (--judge, --only, --skip)',
  }));
};

/** Runs `cli/main` into a temporary report directory and reads its report; one line on failure. */
export async function conformanceReport(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): Promise<Report> {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-suites-'));
  try {
    const code = await new Promise<number>((resolve, reject) => {
      const args = [fromRoot('bin', 'run.mjs'), 'cli/main', '--reports', 'summary', '--report-dir', dir, '--quiet'];
      execFile(process.execPath, args, { cwd, env, maxBuffer: 16 * 1024 * 1024, timeout: 1_800_000 }, (error, _stdout, stderr) => {
        const code = typeof error?.code === 'number' ? error.code : error ? 2 : 0;
        if (code === 2 || !existsSync(join(dir, 'summary.json'))) reject(new Error(stderr.trim().split('\n').pop() || `conformance: ${error?.message ?? 'no report written'}`));
        else resolve(code);
      });
    });
    void code; // 0 or 1: the tests say which checks failed
    return readReport(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function setup(project: TestProject): Promise<void> {
  // Vite puts its own BASE_URL (the served base, "/") into the environment when it is unset: that
  // one is not the user's, who then means ./.env's or the embedded reference.
  const env = { ...process.env };
  if (env.BASE_URL === (project.vite.config.env as { BASE_URL?: string }).BASE_URL) delete env.BASE_URL;
  const check = async () => {
    const report = await conformanceReport(process.cwd(), env);
    project.provide('conformance', report);
    project.provide('conformanceNotRun', notRunOf(report));
  };
  await check();
  // Watch mode: a rerun checks the target again (a test only presents what the run found).
  project.onTestsRerun(check);
}
