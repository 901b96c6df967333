// A rebuild or a merge reads a report directory's JSON files within stated bounds (REPORT_FILE_BYTES
// and REPORT_FILE_VALUES, lib/cli/write-reports.ts): a file past one is refused in one line naming it,
// exit 2, before it is parsed, so its peak RSS stays that of a small read (the unbounded read of a
// manifest with a 30-million-item member took 826 MB). And a rebuild of some outputs keeps its
// sources listed in the manifest, so that the next rebuild or merge still reads them.
import { createHash } from 'node:crypto';
import { closeSync, cpSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXCHANGES_FILE, REPORT_FILE_BYTES } from '../lib/cli/write-reports.js';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { MAX_EXAMPLE_EXCHANGES } from '../lib/engine/tally.js';
import { MAX_SHOWN_TEXT } from '../lib/reporting/redact.js';
import { runCli, runProgram, runProgramMeasured } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const work = mkdtempSync(join(tmpdir(), 'report-input-bounds-'));
const reference = useReference();
const probeRun = join(work, 'probes');
const shard = (i: number) => join(work, `shard-${i}`);
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A copy of a report directory to spoil. */
function copyOf(dir: string): string {
  const copy = mkdtempSync(join(work, 'copy-'));
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** `file` (a JSON object or array) with `count` more values, each `unit` (`0,`, `{},`), written a
 *  chunk at a time: an object gets them in a member "pad", an array as items. */
function pad(file: string, unit: string, count: number): void {
  const text = readFileSync(file, 'utf8').trimEnd();
  const array = text.startsWith('[');
  const fd = openSync(file, 'w');
  writeSync(fd, `${text.slice(0, -1)}${array ? (text.length > 2 ? ',' : '') : ',"pad":['}`);
  const chunk = Buffer.from(unit.repeat(100_000));
  for (let n = 0; n + 100_000 <= count; n += 100_000) writeSync(fd, chunk);
  writeSync(fd, `${unit.repeat(count % 100_000)}0]${array ? '' : '}'}\n`);
  closeSync(fd);
}

/** The manifest of `dir` given the SHA-256 `name` has now, as a forger would. */
function rehash(dir: string, name: string): void {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, string> };
  manifest.files[name] = createHash('sha256').update(readFileSync(join(dir, name))).digest('hex');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
}

/** What a rebuild refused adds to its line: the outputs there, a probe run's, are not its own. */
const leftAsTheyWere = (dir: string) => `; nothing was rebuilt: the outputs in ${escaped(dir)} are left as they were \\(summary\\.json there states CONFORMANT, exit 0\\), and are not this command's`;
const rebuild = (dir: string, reports = 'summary') => runProgramMeasured('cli/report', ['--report-dir', dir, '--reports', reports]);

beforeAll(async () => {
  const accounts = join(work, 'accounts.jsonl');
  writeFileSync(accounts, `${['ana', 'bo'].map((u) => JSON.stringify({ SupportStateUserLoginRequest: { userName: u } })).join('\n')}\n`);
  const runs = await Promise.all([
    runCli(['--base-url', reference.url, '--reports', 'summary', '--report-dir', probeRun]),
    ...[1, 2].map((i) => runCli(['--base-url', reference.url, '--accounts', accounts, '--shard', `${i}/2`, '--run-id', 'bounds', '--reports', 'summary', '--report-dir', shard(i)])),
  ]);
  expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
});

describe('report inputs are read within their bounds', () => {
  it('a manifest.json past its 16 MiB cap (20 MiB of empty objects): one line naming it and the cap, exit 2, peak RSS under 200 MB', async () => {
    const dir = copyOf(probeRun);
    pad(join(dir, 'manifest.json'), '{},', 7_000_000);
    const r = await rebuild(dir);
    expect(r.stderr).toMatch(new RegExp(`^report: ${escaped(join(dir, 'manifest.json'))} is \\d+ MiB, past the 16 MiB a report directory's manifest\\.json may hold \\(no run writes one so large\\): not read${leftAsTheyWere(dir)}\\n$`));
    expect(r.code).toBe(2);
    expect(r.peakMb).toBeLessThan(200);
    rmSync(dir, { recursive: true });
  });

  it('an exchanges.json within its size cap but of 4,000,000 values: one line naming it and the 1,000,000 values, exit 2, peak RSS under 250 MB', async () => {
    const dir = copyOf(probeRun);
    pad(join(dir, EXCHANGES_FILE), '{},', 4_000_000);
    rehash(dir, EXCHANGES_FILE);
    const r = await rebuild(dir);
    expect(r.stderr).toMatch(new RegExp(`^report: ${escaped(join(dir, EXCHANGES_FILE))} holds more than 1,000,000 JSON values \\(no run writes so many\\): not read${leftAsTheyWere(dir)}\\n$`));
    expect(r.code).toBe(2);
    expect(r.peakMb).toBeLessThan(250);
    rmSync(dir, { recursive: true });
  });

  it('a merge reads each shard within the bounds of one report directory: a shard whose exchanges.json holds 1,200,000 values is named in one line, exit 2', async () => {
    const dirs = [1, 2].map((i) => copyOf(shard(i)));
    pad(join(dirs[1]!, EXCHANGES_FILE), '0,', 1_200_000);
    rehash(dirs[1]!, EXCHANGES_FILE);
    const r = await runProgram('cli/report', ['--merge', ...dirs, '--report-dir', mkdtempSync(join(work, 'merged-')), '--reports', 'summary']);
    expect(r.stderr).toMatch(new RegExp(`^report: ${escaped(join(dirs[1]!, EXCHANGES_FILE))} holds more than 1,000,000 JSON values \\(no run writes so many\\): not read\\n$`));
    expect(r.code).toBe(2);
  });

  it('the exchanges.json cap is above what a run keeps: every probe and MAX_EXAMPLE_EXCHANGES per check, each showing MAX_SHOWN_TEXT of its answer, half again for JSON escapes', () => {
    const probes = (JSON.parse(readFileSync(join(probeRun, EXCHANGES_FILE), 'utf8')) as unknown[]).length;
    expect(REPORT_FILE_BYTES[EXCHANGES_FILE]).toBeGreaterThan((probes + MAX_EXAMPLE_EXCHANGES * CATALOGUE.length) * MAX_SHOWN_TEXT * 1.5);
  });
});

describe('a rebuild of some outputs', () => {
  it('of a directory without a manifest, --reports junit: its manifest lists summary.json and exchanges.json as they are, and the next rebuild reads them (exit 0)', async () => {
    const dir = copyOf(probeRun);
    rmSync(join(dir, 'manifest.json'));
    expect((await rebuild(dir, 'junit')).code).toBe(0);
    const files = (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, string> }).files;
    for (const name of ['summary.json', EXCHANGES_FILE]) expect(files[name], name).toBe(createHash('sha256').update(readFileSync(join(dir, name))).digest('hex'));
    const again = await rebuild(dir, 'junit');
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
  });
});
