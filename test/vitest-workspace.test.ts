// The README's vitest-workspace example, run as a user would: its vitest.config.ts in an empty
// project that has the package installed (a symlink, as `npm link` makes), BASE_URL in that
// project's .env, `vitest run --project conformance`. Every check must come out as the CLI's run on
// the same target says: the suites present the CLI's results, they do not judge again.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { LEAN, runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const ROOT = resolve(import.meta.dirname, '..');

/** A MUST failure (createdDate with three fractional digits) and a SHOULD one (an extra member). */
const faulty = useReference({
  variants: [{
    name: 'three-digit-datetime', description: 'createdDate with three fractional digits',
    editJson: (n) => (n.t === 'object' ? { ...n, entries: n.entries.map(([k, v]) => [k, k === 'createdDate' ? { t: 'string', value: '2019-03-01T08:15:30.500' } : v] as const) } : n),
  }, {
    name: 'extra-member', description: 'an extra JSON member the spec does not list',
    editJson: (n) => (n.t === 'object' ? { ...n, entries: [...n.entries, ['loyaltyTier', { t: 'string', value: 'gold' }] as const] } : n),
  }],
});

/** The README's example: the first TypeScript block after its marker. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf('<!-- vitest-workspace example');
  expect(at, 'the README marks its vitest-workspace example').toBeGreaterThan(0);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  return block![1]!;
}

interface AllureResult { name: string; fullName: string; status: string; titlePath: string[]; labels: { name: string; value: string }[] }

describe('the README vitest-workspace example', () => {
  it('runs the conformance project against .env\'s BASE_URL: each check as the CLI judged it, labelled by area, check, level and clause only', async () => {
    // A user's project: the example config, the package and vitest in node_modules, BASE_URL in .env.
    const project = mkdtempSync(join(tmpdir(), 'vitest-workspace-'));
    writeFileSync(join(project, 'vitest.config.ts'), readmeExample());
    writeFileSync(join(project, '.env'), `BASE_URL=${faulty.url}\n`);
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(ROOT, join(project, 'node_modules', 'soap-json-conformance'), 'dir');
    symlinkSync(join(ROOT, 'node_modules', 'vitest'), join(project, 'node_modules', 'vitest'), 'dir');
    const env: NodeJS.ProcessEnv = { ...process.env, QUIET: '1' };
    delete env.BASE_URL;
    delete env.VITEST;
    const vitest = await new Promise<{ code: number; output: string }>((done) => {
      execFile(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'conformance'], { cwd: project, env, timeout: 200_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        done({ code: typeof error?.code === 'number' ? error.code : error ? -1 : 0, output: `${stdout}\n${stderr}` });
      });
    });

    // The CLI on the same target.
    const reports = mkdtempSync(join(tmpdir(), 'vitest-workspace-cli-'));
    const cli = await runCli(['--base-url', faulty.url, '--report-dir', reports, ...LEAN]);
    expect(cli.code, cli.stderr).toBe(1);
    const checks = (JSON.parse(readFileSync(join(reports, 'summary.json'), 'utf8')) as { checks: { id: string; level: string; status: string }[] }).checks;
    expect(checks.filter((c) => c.status === 'failed').map((c) => c.level).sort()).toEqual(['MUST', 'SHOULD']);

    expect(vitest.code, vitest.output).toBe(1); // a MUST check failed
    const dir = join(project, 'allure-results');
    const results = readdirSync(dir).filter((f) => f.endsWith('-result.json')).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as AllureResult);
    const label = (r: AllureResult, name: string) => r.labels.find((l) => l.name === name)?.value;
    const byCheck = new Map(results.map((r) => [label(r, 'check'), r]));
    expect(byCheck.size).toBe(results.length);

    // In Allure, the CLI's checks as the CLI judged them, and every other check of the catalogue
    // skipped, as not run.
    const expected = Object.fromEntries(CATALOGUE.map((c) => {
      const judged = checks.find((x) => x.id === c.id);
      return [c.id, !judged ? 'skipped' : judged.status];
    }));
    expect(Object.fromEntries(results.map((r) => [label(r, 'check'), r.status]))).toEqual(expected);
    const should = checks.find((c) => c.status === 'failed' && c.level === 'SHOULD')!;
    expect(label(byCheck.get(should.id)!, 'result')).toBe('SHOULD not met');
    expect((byCheck.get(should.id)! as { statusDetails?: { message?: string } }).statusDetails?.message).toMatch(new RegExp(`^SHOULD not met \\(the run gates on MUST only\\): ${should.id} \\(SHOULD`));
    // In vitest, as the exit code: the failed MUST checks fail their tests, the SHOULD one does not.
    const failedTests = [...new Set([...stripVTControlCharacters(vitest.output).matchAll(/FAIL .*? > ([A-Z0-9]+(?:-[A-Z0-9]+)+) /g)].map((m) => m[1]))].sort();
    expect(failedTests).toEqual(checks.filter((c) => c.status === 'failed' && c.level === 'MUST').map((c) => c.id).sort());

    for (const r of results) {
      const c = CATALOGUE.find((x) => x.id === label(r, 'check'))!;
      expect(r.name).toBe(`${c.id} ${c.title}`);
      expect([label(r, 'area'), label(r, 'level'), label(r, 'clause')]).toEqual([c.area, c.level, c.clause]);
      expect(r.labels.map((l) => l.name).filter((n) => ['host', 'thread', 'framework', 'language', 'package', '_fallbackTestCaseId'].includes(n))).toEqual([]);
      expect(JSON.stringify([r.fullName, r.titlePath, r.labels])).not.toMatch(/suite\.[jt]s|suites\//);
    }
  });
});
