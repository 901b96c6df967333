// The presentation child makes its vitest before its report exists (`cli/present --ahead`,
// vitest-run.ts prepareVitest) and aims its reporter at the results once the report comes: those go
// into the directory it is given, the same as a presentation made with its report from the start
// (`cli/present REPORT DIR`) writes, and none anywhere else.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { readReport } from '../lib/cli/write-reports.js';
import { presentedReport } from '../lib/reporting/presented-report.js';
import { childEnv, ROOT, runCli, runProgram } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'present-ahead-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A results directory as content: each result's name, status and labels, and the attachments' texts. */
function contents(results: string): { results: string[]; attachments: string[]; environment: string } {
  const files = readdirSync(results);
  return {
    results: files.filter((f) => f.endsWith('-result.json')).map((f) => {
      const r = JSON.parse(readFileSync(join(results, f), 'utf8')) as { name: string; status: string; labels: unknown[] };
      return JSON.stringify([r.name, r.status, r.labels]);
    }).sort(),
    attachments: files.filter((f) => /-attachment/.test(f)).map((f) => readFileSync(join(results, f), 'utf8')).sort(),
    environment: readFileSync(join(results, 'environment.properties'), 'utf8'),
  };
}

it('writes the results of a vitest made before its report into the directory given, as one made with it does', async () => {
  const runDir = join(work, 'run');
  expect((await runCli(['--report-dir', runDir, '--reports', 'summary', '--quiet'])).code).toBe(0);
  const report = presentedReport(readReport(runDir));
  const input = join(work, 'report.json');
  writeFileSync(input, JSON.stringify(report));

  const direct = join(work, 'direct');
  mkdirSync(direct);
  const made = await runProgram('cli/present', [input, direct]);
  expect(made.code, made.stderr).toBe(0);

  const aheadDir = join(work, 'ahead');
  mkdirSync(aheadDir);
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'run.mjs'), 'cli/present', '--ahead'], { cwd: work, env: childEnv() });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Given its input once its vitest is made (or while it is being made: it waits for it either way).
  await new Promise((r) => setTimeout(r, 3000));
  child.stdin.end(JSON.stringify({ input, dir: aheadDir }));
  const code = await closed;
  expect(code, stderr).toBe(0);
  expect(JSON.parse(stdout)).toMatchObject({ allureResults: join(aheadDir, 'allure-results') });

  const [a, b] = [contents(join(aheadDir, 'allure-results')), contents(join(direct, 'allure-results'))];
  expect(a.results).toHaveLength(report.checks.length);
  expect(a).toEqual(b);
  expect(existsSync(join(work, 'allure-results'))).toBe(false); // not allure's default, in its working directory
  expect(existsSync(join(ROOT, 'dist', 'allure-results'))).toBe(false); // nor in vitest's root
}, 300_000);
