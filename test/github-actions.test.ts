// Under GitHub Actions (GITHUB_ACTIONS=true), the run writes one workflow annotation per distinct
// finding (::error for what fails the run, ::warning for an advisory SHOULD finding) and a Markdown
// job summary; every distinct finding has an id that is the same from run to run.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../lib/reference/variants.js';
import { runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const failing = useReference({ variants: [FAULTS.find((f) => f.name === 'login-options-refused')!] });
const conformant = useReference({});

async function run(url: string, github: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'github-'));
  const stepSummary = join(dir, 'step-summary.md');
  writeFileSync(stepSummary, '');
  // The annotations and the job summary come from the report, whichever outputs are written.
  const r = await runCli(['--base-url', url, '--report-dir', dir, '--quiet', '--reports', 'summary'], github ? { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary } : { GITHUB_ACTIONS: '' });
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: { id: string; status: string; groups: { id: string; message: string }[] }[] };
  return { ...r, stepSummary: readFileSync(stepSummary, 'utf8'), summary };
}

describe.concurrent('GitHub Actions', () => {
  it('one ::error per distinct MUST finding and one ::warning per advisory one, each naming its finding id; a job summary with the verdict', async () => {
    const r = await run(failing.url, true);
    expect(r.code).toBe(1);
    const failed = r.summary.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id).sort()).toEqual(['OPTIONS-ALLOWS-POST', 'ROUTE-LOGIN-OPTIONS']);
    const annotations = r.stdout.split('\n').filter((l) => l.startsWith('::'));
    const expected = failed.flatMap((c) => c.groups.map((g) => [c.id === 'ROUTE-LOGIN-OPTIONS' ? 'error' : 'warning', c.id, g.id]));
    expect(annotations.map((l) => [/^::(\w+)/.exec(l)![1], /title=([A-Z0-9-]+) /.exec(l)![1], /\[finding ([0-9a-f]{12})\]$/.exec(l)![1]]).sort()).toEqual(expected.sort());
    expect(annotations.find((l) => l.startsWith('::error'))).toMatch(/^::error title=ROUTE-LOGIN-OPTIONS \(MUST%2C interface\.md 4\.1\)::1 × /);
    expect(r.stepSummary).toMatch(/^## Conformance of ` http:\/\/127\.0\.0\.1:\d+ `: NOT CONFORMANT\n/);
    expect(r.stepSummary).toMatch(/\| ROUTE-LOGIN-OPTIONS \| MUST \| 4\.1 \| 1 of 1 \|/);
    expect(r.stepSummary).toMatch(/\| OPTIONS-ALLOWS-POST \| SHOULD \(advisory\) \|/);
  });

  it('the same finding has the same id in a second run', async () => {
    const [a, b] = await Promise.all([run(failing.url, false), run(failing.url, false)]);
    const ids = (r: typeof a) => r.summary.checks.flatMap((c) => c.groups.map((g) => g.id)).sort();
    expect(ids(a).length).toBeGreaterThan(1);
    expect(ids(a)).toEqual(ids(b));
  });

  it('no annotation when GITHUB_ACTIONS is not set, and none for a conformant run when it is', async () => {
    const plain = await run(failing.url, false);
    expect(plain.stdout).not.toMatch(/^::/m);
    const clean = await run(conformant.url, true);
    expect(clean.stdout).not.toMatch(/^::/m);
    expect(clean.stepSummary).toMatch(/^## Conformance of ` http:\/\/127\.0\.0\.1:\d+ `: CONFORMANT\n/);
  });
});
