// Report writing never writes through what already stands in the report directory: a symlink
// planted at an output's name (junit.xml -> a file elsewhere) is replaced by the output, and the
// file it pointed at keeps its bytes. Over the real CLI, for every output of a run, a rebuild and a merge.
// The run is also the CLI's run of the embedded reference with every output, whose contents are read here.
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { replaceDirectory, replaceFile } from '../lib/reporting/replace-file.js';
import { runCli, runProgram, type CliRun } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'report-files-'));
let reference: RunningReference;
beforeAll(async () => { reference = await startReference(); });
afterAll(async () => { await reference.close(); rmSync(work, { recursive: true, force: true }); });

const FILES = ['junit.xml', 'summary.json', 'exchanges.json', 'traceability.md', 'report.html'];
/** The run of the embedded reference with every output, past planted symlinks: made once, on first use. */
let embedded: Promise<{ trap: { dir: string; victims: string }; r: CliRun }> | undefined;
const embeddedRun = () => (embedded ??= (async () => {
  const trap = trapped('run');
  return { trap, r: await runCli(['--report-dir', trap.dir, '--quiet']) };
})());

/** A report directory where every output's name is a symlink to a victim outside it. */
function trapped(name: string): { dir: string; victims: string } {
  const dir = join(work, name);
  const victims = join(work, `${name}-victims`);
  mkdirSync(dir);
  mkdirSync(join(victims, 'results'), { recursive: true });
  for (const f of FILES) {
    writeFileSync(join(victims, `${f}.victim`), `victim of ${f}\n`);
    symlinkSync(join(victims, `${f}.victim`), join(dir, f));
  }
  writeFileSync(join(victims, 'results', 'kept.txt'), 'kept\n');
  symlinkSync(join(victims, 'results'), join(dir, 'allure-results'));
  return { dir, victims };
}

/** Every victim still holds its own bytes, and every output is a regular file (a directory for allure-results). */
function expectUntouched({ dir, victims }: { dir: string; victims: string }) {
  for (const f of FILES) {
    expect(readFileSync(join(victims, `${f}.victim`), 'utf8'), f).toBe(`victim of ${f}\n`);
    expect(lstatSync(join(dir, f)).isFile(), `${f} is a file of its own`).toBe(true);
  }
  expect(readdirSync(join(victims, 'results'))).toEqual(['kept.txt']);
  expect(lstatSync(join(dir, 'allure-results')).isDirectory()).toBe(true);
  expect(readdirSync(dir).filter((n) => n.startsWith('.')), 'no temporary name is left behind').toEqual([]);
}

describe('report files are renamed into place, never written through a path already there', () => {
  it('replaceFile replaces a symlink to a file elsewhere and leaves that file as it was', () => {
    const dir = join(work, 'unit');
    mkdirSync(dir);
    writeFileSync(join(work, 'unit-victim.txt'), 'victim\n');
    symlinkSync(join(work, 'unit-victim.txt'), join(dir, 'junit.xml'));
    replaceFile(join(dir, 'junit.xml'), '<testsuites/>\n');
    expect(readFileSync(join(work, 'unit-victim.txt'), 'utf8')).toBe('victim\n');
    expect([lstatSync(join(dir, 'junit.xml')).isFile(), readFileSync(join(dir, 'junit.xml'), 'utf8')]).toEqual([true, '<testsuites/>\n']);
  });

  it('replaceDirectory replaces a symlink to a directory elsewhere and removes nothing inside it', () => {
    const dir = join(work, 'unit-dir');
    mkdirSync(join(dir, '.staged'), { recursive: true });
    mkdirSync(join(work, 'unit-dir-victim'));
    writeFileSync(join(work, 'unit-dir-victim', 'kept.txt'), 'kept\n');
    writeFileSync(join(dir, '.staged', 'new.json'), '{}');
    symlinkSync(join(work, 'unit-dir-victim'), join(dir, 'allure-results'));
    replaceDirectory(join(dir, '.staged'), join(dir, 'allure-results'));
    expect(readdirSync(join(work, 'unit-dir-victim'))).toEqual(['kept.txt']);
    expect([lstatSync(join(dir, 'allure-results')).isDirectory(), readdirSync(join(dir, 'allure-results'))]).toEqual([true, ['new.json']]);
    expect(readdirSync(dir)).toEqual(['allure-results']);
  });

  it('a run writes every output (junit.xml, summary.json, exchanges.json, traceability.md, report.html, allure-results) past planted symlinks', async () => {
    const { trap, r } = await embeddedRun();
    expect([r.code, r.stderr]).toEqual([0, '']);
    expectUntouched(trap);
    expect(JSON.parse(readFileSync(join(trap.dir, 'summary.json'), 'utf8'))).toMatchObject({ verdict: 'conformant' });
  }, 240_000);

  // The CLI as a pipeline sees it (cli.test.ts has the other exits): the same run of the embedded
  // reference, every output read, so one run with the Allure HTML serves both.
  it('exits 0 on the embedded reference and writes report.html, traceability.md, summary.json, junit.xml, allure-results, and a manifest hashing each', async () => {
    const { trap: { dir }, r } = await embeddedRun();
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/Verdict: CONFORMANT \(MUST 48 passed, 0 failed/);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.verdict).toBe('conformant');
    expect(summary.checks).toHaveLength(62); // Robustness joins only with --generate
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/tests="62" failures="0"/);
    expect(lstatSync(join(dir, 'allure-results')).isDirectory()).toBe(true);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/<title>\s*Conformance of http:\/\/127\.0\.0\.1:\d+: CONFORMANT \(/);
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8')).toMatch(/^# Traceability: ` http:\/\/127\.0\.0\.1:\d+ `\n\nVerdict \*\*CONFORMANT\*\*/);
    // The manifest hashes every output, report.html and each Allure result among them.
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, string> };
    expect(manifest.files['report.html']).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(manifest.files).filter((f) => f.startsWith('allure-results/')).length).toBeGreaterThan(50);
  });

  it('a rebuild (npm run report) and a merge (npm run report -- --merge) write past planted symlinks too', async () => {
    const source = join(work, 'source');
    // The source and the shards give the rebuild and the merge what they read (summary.json and
    // exchanges.json); the outputs under test are the ones the rebuild and the merge write.
    const made = await runCli(['--report-dir', source, '--quiet', '--reports', 'summary']);
    expect(made.code).toBe(0);
    // The rebuild: the source's own summary.json and exchanges.json are read, every other output planted.
    const rebuild = trapped('rebuild');
    for (const f of ['summary.json', 'exchanges.json']) { rmSync(join(rebuild.dir, f)); writeFileSync(join(rebuild.dir, f), readFileSync(join(source, f))); }
    const r = await runProgram('cli/report', ['--report-dir', rebuild.dir]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expectUntouched(rebuild);
    expect(readFileSync(join(rebuild.dir, 'report.html'), 'utf8')).toMatch(/<title>\s*Conformance of http:\/\/127\.0\.0\.1:\d+: CONFORMANT \(/);

    const shards = [1, 2].map((i) => join(work, `shard-${i}`));
    const accounts = join(work, 'accounts.jsonl');
    writeFileSync(accounts, ['ana', 'bo'].map((u) => JSON.stringify({ SupportStateUserLoginRequest: { userName: u } })).join('\n'));
    for (const [i, d] of shards.entries()) expect((await runCli(['--base-url', reference.url, '--accounts', accounts, '--shard', `${i + 1}/2`, '--report-dir', d, '--quiet', '--reports', 'summary'])).code).toBe(0);
    const merged = trapped('merged');
    const m = await runProgram('cli/report', ['--merge', ...shards, '--report-dir', merged.dir]);
    expect([m.code, m.stderr]).toEqual([0, '']);
    expectUntouched(merged);
  }, 400_000);
});
