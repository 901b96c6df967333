// A merged report (issue 26, "The HTML an auditor opens"): each shard warns that its verdict covers
// its part only; the merge is the whole run, so it gives the merged verdict, names its shards once,
// and repeats none of those warnings: not on the console, not in summary.json, not in the Allure
// metadata report.html shows (allure-results/environment.properties) nor any other file of the
// allure-results report.html is built from. The shards write only what a merge reads; the merge
// writes every report but report.html, whose first screen (the shards named once, no shard's
// warning) report-verdict-screen.test.ts reads in a browser from the same merge.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../lib/reference/variants.js';
import { runCli, runProgram, WITHOUT_HTML, type CliRun } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const failing = useReference({ variants: FAULTS.filter((f) => f.name === 'json-guid-dashed-at-depth') });
const work = mkdtempSync(join(tmpdir(), 'merge-warning-'));
const shardDirs = [join(work, 'shard1'), join(work, 'shard2')];
const out = join(work, 'merged');
const WARNING = /covers this part only/;
let shards: CliRun[];
let merged: CliRun;

beforeAll(async () => {
  const accounts = join(work, 'accounts.jsonl');
  writeFileSync(accounts, `${[0, 1, 2, 3].map((i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` } })).join('\n')}\n`);
  shards = await Promise.all(['1/2', '2/2'].map((shard, i) =>
    runCli(['--base-url', failing.url, '--accounts', accounts, '--shard', shard, '--reports', 'summary', '--report-dir', shardDirs[i]!, '--quiet'])));
  merged = await runProgram('cli/report', ['--merge', ...shardDirs, '--report-dir', out, ...WITHOUT_HTML]);
}, 400_000);

describe('a merged report', () => {
  it('each shard warns that its verdict covers its part only (what the merge must not repeat)', () => {
    for (const [i, s] of shards.entries()) {
      expect(s.code).toBe(1);
      const summary = JSON.parse(readFileSync(join(shardDirs[i]!, 'summary.json'), 'utf8')) as { warnings: string[] };
      expect(summary.warnings.filter((w) => WARNING.test(w))).toEqual([expect.stringMatching(new RegExp(`^shard ${i + 1}/2: `))]);
    }
  });

  it('gives the merged verdict, names its shards once, and repeats no shard\'s warning anywhere', () => {
    expect([merged.code, merged.stderr]).toEqual([1, '']);
    expect(merged.stdout).toMatch(/^Verdict: NOT CONFORMANT \(/m);
    expect(merged.stdout).not.toMatch(WARNING);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { verdictWords: string; warnings: string[]; configuration: { mergedFrom: string[] } };
    expect(summary.verdictWords).toBe('NOT CONFORMANT');
    expect(summary.warnings.filter((w) => WARNING.test(w))).toEqual([]);
    expect(summary.configuration.mergedFrom).toEqual(shardDirs);
    const metadata = readFileSync(join(out, 'allure-results', 'environment.properties'), 'utf8');
    expect(metadata).not.toMatch(WARNING);
    expect(metadata.split('\n').filter((l) => l.startsWith('configuration.mergedFrom='))).toHaveLength(1);
    const results = readdirSync(join(out, 'allure-results'));
    expect(results.length).toBeGreaterThan(50);
    expect(results.filter((f) => WARNING.test(readFileSync(join(out, 'allure-results', f), 'utf8')))).toEqual([]);
  });
});
