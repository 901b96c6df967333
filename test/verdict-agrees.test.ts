// Every output states the verdict the exit code gives: a problem that makes the run exit 2 (an output
// that cannot be written, an accounts file that changed under the run) is in summary.json, junit.xml
// and traceability.md too, never only on stderr beside outputs that say CONFORMANT and exit 0.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readReport, restateWithProblem, verifyManifest } from '../lib/cli/write-reports.js';
import { mergeReports } from '../lib/reporting/merge.js';
import { exitCodeOf } from '../lib/reporting/verdict.js';
import { runCli, runProgram } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const reports = () => mkdtempSync(join(tmpdir(), 'verdict-agrees-'));
const summaryIn = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as {
  exitCode: number; verdictWords: string; verdict: string; runProblems?: string[]; outputProblems?: string[];
};

// Truncated under the run once the reference has answered the 5th login of its accounts: the harness has read the
// file only as far as the engine pulled (one chunk of a stream), so the rest is gone for it.
const ACCOUNTS = 3000;
const accountsDir = mkdtempSync(join(tmpdir(), 'verdict-agrees-accounts-'));
const accounts = join(accountsDir, 'accounts.jsonl');
let logins = 0;
const reference = useReference({
  observer: {
    answered: (request) => {
      if (request.body?.includes('"changing') && ++logins === 5) truncateSync(accounts, 0);
    },
  },
});

describe.concurrent('one verdict in every output', () => {
  it('an output that cannot be written after summary.json: summary.json, traceability.md and the console say exit 2 with the problem', async () => {
    const dir = reports();
    mkdirSync(join(dir, 'junit.xml')); // a directory where the file must go; junit is written after the summary and traceability
    const r = await runCli(['--reports', 'summary,traceability,junit', '--report-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^conformance: cannot write junit\.xml: EISDIR: [^\n]*\n$/);
    const s = summaryIn(dir);
    expect(s.verdict).toBe('conformant'); // the judging's verdict stands; the exit code says the outputs are not whole
    expect([s.exitCode, s.verdictWords]).toEqual([2, 'CONFORMANT, 1 PROBLEM']);
    expect(s.outputProblems).toEqual([expect.stringMatching(/^cannot write junit\.xml: EISDIR/)]);
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8')).toMatch(/Verdict \*\*CONFORMANT, 1 PROBLEM\*\*/);
    expect(r.stdout).toMatch(/^Verdict: CONFORMANT, 1 PROBLEM \(/m);
  });

  it('a run whose outputs are all written has no problem: exit 0, and summary.json lists none', async () => {
    const dir = reports();
    const r = await runCli(['--reports', 'summary,traceability,junit', '--report-dir', dir]);
    expect(r.code).toBe(0);
    const s = summaryIn(dir);
    expect([s.exitCode, s.verdictWords, s.outputProblems, s.runProblems]).toEqual([0, 'CONFORMANT', undefined, undefined]);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).not.toMatch(/PROBLEM/);
  });

  it('an accounts file that changed under the run: exit 2, and summary.json, junit.xml and traceability.md name the lost accounts', async () => {
    writeFileSync(accounts, Array.from({ length: ACCOUNTS }, (_, i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `changing${i}`, searchValues: `${'s'.repeat(60)}${i}` } })).join('\n') + '\n');
    const dir = reports();
    const r = await runCli(['--base-url', reference.url, '--accounts', accounts, '--concurrency', '1', '--reports', 'summary,traceability,junit', '--report-dir', dir]);
    expect(r.code).toBe(2);
    const s = summaryIn(dir);
    expect(s.runProblems).toEqual([expect.stringMatching(new RegExp(`^${accounts.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} gave \\d+ of the ${ACCOUNTS} accounts it held when it was checked`))]);
    expect([s.exitCode, s.verdictWords]).toEqual([2, 'CONFORMANT, 1 PROBLEM']);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<property name="verdict" value="CONFORMANT, 1 PROBLEM"\/>/);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<error message="CONFORMANT, 1 PROBLEM \(exit 2\)"/);
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8')).toMatch(/Verdict \*\*CONFORMANT, 1 PROBLEM\*\*/);
    expect(r.stderr).toMatch(/gave \d+ of the 3000 accounts it held when it was checked \(was it changed during the run\?\)\n$/);
  });

  it('a merge keeps what a shard\'s evidence lost (runProblems: exit 2) and drops what its writing met (outputProblems)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'verdict-agrees-shards-')), 'accounts.jsonl');
    writeFileSync(file, ['ana', 'bo'].map((u) => JSON.stringify({ SupportStateUserLoginRequest: { userName: u } })).join('\n') + '\n');
    const dirs = [reports(), reports()];
    const runs = await Promise.all(dirs.map((d, i) => runCli(['--base-url', reference.url, '--accounts', file, '--shard', `${i + 1}/2`, '--run-id', 'merge-problems', '--reports', 'summary', '--report-dir', d])));
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    const [one, two] = dirs.map((d) => readReport(d));
    const lost = 'accounts.jsonl gave 0 of the 1 accounts it held when it was checked (was it changed during the run?)';
    const merged = mergeReports([{ ...one!, outputProblems: ['cannot write junit.xml: EISDIR'] }, { ...two!, runProblems: [lost] }], dirs);
    if (!merged.ok) throw new Error(merged.error);
    expect([merged.report.runProblems, merged.report.outputProblems, exitCodeOf(merged.report)]).toEqual([[lost], undefined, 2]);
    const clean = mergeReports([one!, two!], dirs);
    if (!clean.ok) throw new Error(clean.error);
    expect([clean.report.runProblems, exitCodeOf(clean.report)]).toEqual([undefined, 0]);
  });

  it('a run into a directory of an earlier run removes the outputs that run wrote and this one did not; a rebuild of one output removes none; a file of the user is never touched', async () => {
    const dir = reports();
    expect((await runCli(['--reports', 'summary,traceability,junit', '--report-dir', dir])).code).toBe(0);
    writeFileSync(join(dir, 'notes.txt'), 'the user\'s own file\n');
    // A rebuild (npm run report) is the same run: the outputs it does not write stay, still listed.
    const rebuilt = await runProgram('cli/report', ['--report-dir', dir, '--reports', 'traceability']);
    expect(rebuilt.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['exchanges.json', 'interface.md', 'junit.xml', 'manifest.json', 'notes.txt', 'replay.sh', 'summary.json', 'traceability.md']);
    expect(await verifyManifest(dir)).toBeUndefined();
    const r = await runCli(['--reports', 'summary', '--report-dir', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Removed from the report directory \(an earlier run's outputs, not written by this run\): interface\.md, junit\.xml, traceability\.md$/m);
    expect(readdirSync(dir).sort()).toEqual(['exchanges.json', 'manifest.json', 'notes.txt', 'replay.sh', 'summary.json']);
    expect(await verifyManifest(dir)).toBeUndefined();
  });

  it('a run that ends in exit 2 without its reports (a HAR defect) removes an earlier run\'s outputs, which said CONFORMANT; a file of the user stays', async () => {
    const dir = reports();
    expect((await runCli(['--reports', 'summary,traceability,junit', '--report-dir', dir])).code).toBe(0);
    writeFileSync(join(dir, 'notes.txt'), 'the user\'s own file\n');
    const har = join(dir, 'notes.har');
    writeFileSync(har, '{"log":{"version":"1.2","entries":[{"request":5}]}}');
    const r = await runCli(['--har', har, '--reports', 'summary,traceability,junit', '--report-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not a HAR file: .*entry 1 has request as a number/);
    expect(r.stdout).toMatch(/^Removed from the report directory \(an earlier run's outputs, not written by this run\): exchanges\.json, interface\.md, junit\.xml, manifest\.json, replay\.sh, summary\.json, traceability\.md$/m);
    expect(readdirSync(dir).sort()).toEqual(['notes.har', 'notes.txt']);
  });

  it('a merge refused (a shard without its reports) removes the outputs an earlier run left in the merged directory', async () => {
    const dir = reports();
    expect((await runCli(['--reports', 'summary,junit', '--report-dir', dir])).code).toBe(0);
    const r = await runProgram('cli/report', ['--merge', join(dir, 'no-such-shard'), '--report-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no-such-shard holds no summary\.json/);
    expect(readdirSync(dir).sort()).toEqual([]);
  });

  it('outputs a lost worker wrote of this run (the proxy\'s judge) are written again with the problem: every one says CONFORMANT, 1 PROBLEM and exit 2; an earlier run\'s are not', async () => {
    const dir = reports();
    const since = Date.now();
    const chosen = new Set(['summary', 'traceability', 'junit']);
    expect((await runCli(['--reports', [...chosen].join(','), '--report-dir', dir])).code).toBe(0);
    expect(await restateWithProblem(dir, Date.now() + 60_000, chosen, 'not this run')).toBeUndefined();
    expect(summaryIn(dir).verdictWords).toBe('CONFORMANT');
    const again = await restateWithProblem(dir, since, chosen, 'the judge stopped (exit 1): the traffic after it was forwarded, not judged');
    expect(again?.problems).toEqual(['the judge stopped (exit 1): the traffic after it was forwarded, not judged']);
    expect(summaryIn(dir)).toMatchObject({ verdictWords: 'CONFORMANT, 1 PROBLEM', exitCode: 2 });
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites name="conformance: CONFORMANT, 1 PROBLEM"/);
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8')).toMatch(/^Verdict \*\*CONFORMANT, 1 PROBLEM\*\*/m);
    expect(await verifyManifest(dir)).toBeUndefined();
  });

  it('a rebuild after the output that failed can be written states the verdict anew in summary.json too, as junit.xml and traceability.md do', async () => {
    const dir = reports();
    mkdirSync(join(dir, 'junit.xml')); // a directory where the file must go
    expect((await runCli(['--reports', 'summary,traceability,junit', '--report-dir', dir])).code).toBe(2);
    expect(summaryIn(dir)).toMatchObject({ verdictWords: 'CONFORMANT, 1 PROBLEM', exitCode: 2 });
    rmdirSync(join(dir, 'junit.xml'));
    expect((await runProgram('cli/report', ['--report-dir', dir, '--reports', 'summary,traceability,junit'])).code).toBe(0);
    expect(summaryIn(dir)).toMatchObject({ verdictWords: 'CONFORMANT', exitCode: 0 });
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites name="conformance: CONFORMANT"/);
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8')).toMatch(/^Verdict \*\*CONFORMANT\*\*/m);
  });

  it('a rebuild of one output of a run whose outputs met a problem (exit 2) writes every output again: summary.json no longer says CONFORMANT, 1 PROBLEM beside the rebuild\'s exit 0', async () => {
    const dir = reports();
    mkdirSync(join(dir, 'junit.xml')); // a directory where the file must go
    expect((await runCli(['--reports', 'summary,traceability,junit', '--report-dir', dir])).code).toBe(2);
    rmdirSync(join(dir, 'junit.xml'));
    const r = await runProgram('cli/report', ['--report-dir', dir, '--reports', 'traceability']);
    expect(r.stderr).toMatch(/^note: every output is written again: summary\.json says CONFORMANT, 1 PROBLEM \(exit 2\), the results it holds CONFORMANT \(exit 0\)\n/);
    expect(r.code).toBe(0);
    expect(summaryIn(dir)).toMatchObject({ verdictWords: 'CONFORMANT', exitCode: 0 });
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites name="conformance: CONFORMANT"/);
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8')).toMatch(/^Verdict \*\*CONFORMANT\*\*/m);
    expect(await verifyManifest(dir)).toBeUndefined();
  });

  it('a rebuild that cannot read its inputs exits 2, leaves the outputs there as they were, and says in its one line that they, stating the run\'s verdict, are not its own', async () => {
    const dir = reports();
    expect((await runCli(['--reports', 'summary,junit', '--report-dir', dir])).code).toBe(0);
    appendFileSync(join(dir, 'exchanges.json'), ' ');
    const before = readdirSync(dir).sort();
    const r = await runProgram('cli/report', ['--report-dir', dir, '--reports', 'summary,junit']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`report: ${join(dir, 'exchanges.json')} was changed after its run wrote it (its SHA-256 is not the one manifest.json gives); nothing was rebuilt: the outputs in ${dir} are left as they were (summary.json there states CONFORMANT, exit 0), and are not this command's\n`);
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(summaryIn(dir)).toMatchObject({ verdictWords: 'CONFORMANT', exitCode: 0 });
  });

  it('a directory without a manifest keeps every file: none is proved to be the harness\'s', async () => {
    const dir = reports();
    writeFileSync(join(dir, 'junit.xml'), '<testsuites name="someone else\'s"/>\n');
    expect((await runCli(['--reports', 'summary', '--report-dir', dir])).code).toBe(0);
    expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
  });

  it('an unreachable target: no check is counted failed (nothing was judged), JUnit holds one error, the verdict\'s, and exit 2', async () => {
    const dir = reports();
    const r = await runCli(['--base-url', 'http://127.0.0.1:9', '--timeout', '30000', '--reports', 'summary,junit', '--report-dir', dir]); // refused at once
    expect(r.code).toBe(2);
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { verdictWords: string; counts: { MUST: { failed: number }; SHOULD: { failed: number } }; checks: { status: string; message: string }[] };
    expect([s.verdictWords, s.counts.MUST.failed, s.counts.SHOULD.failed]).toEqual(['UNREACHABLE', 0, 0]);
    expect(s.checks.filter((c) => c.status !== 'skipped')).toEqual([]);
    expect(s.checks.filter((c) => /could not be reached/.test(c.message)).length).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites name="conformance: UNREACHABLE" tests="\d+" failures="0" errors="1" /);
  });

  it('report.html that cannot be written (the last output but the manifest): the Allure results are presented again with the problem, and the manifest verifies every file', async () => {
    const dir = reports();
    mkdirSync(join(dir, 'report.html')); // a directory where the file must go
    const r = await runCli(['--report-dir', dir]);
    expect(r.code).toBe(2);
    expect(summaryIn(dir).verdictWords).toBe('CONFORMANT, 1 PROBLEM');
    expect(readFileSync(join(dir, 'allure-results', 'environment.properties'), 'utf8')).toMatch(/CONFORMANT, 1 PROBLEM/);
    expect(r.stdout).toMatch(/^Verdict: CONFORMANT, 1 PROBLEM$/m); // said again: the first verdict line came before the problem
    expect(await verifyManifest(dir)).toBeUndefined();
  });
});
