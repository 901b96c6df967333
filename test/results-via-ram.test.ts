// A report directory on a disk: the presentation writes the Allure results in RAM (/dev/shm), report.html
// is built from them there, and they are copied into the report directory meanwhile (vitest-run.ts).
// What lands there is every result, past a symlink planted at allure-results; the manifest holds their
// hashes; nothing is left in RAM.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../lib/paths.js';
import { inRam, ramDir } from '../lib/reporting/ram-place.js';
import { runCli } from './helpers/cli.js';

/** On the disk the project is on (the suite's temporary files are in RAM). */
const onDisk = mkdtempSync(join(PROJECT_ROOT, '.results-via-ram-'));
afterAll(() => rmSync(onDisk, { recursive: true, force: true }));

/** The run's own temporary directory, in RAM where the machine has it: what the run makes in RAM goes
 *  there (ramDir), and no other process's files are seen beside it. */
const ownRam = mkdtempSync(join(ramDir(), 'results-via-ram-'));
afterAll(() => rmSync(ownRam, { recursive: true, force: true }));
const inRamNow = () => readdirSync(ownRam).filter((f) => /^conformance-(present|html)-/.test(f));

it('a run into a directory on a disk writes every Allure result there, past a planted symlink, and leaves nothing in RAM', async (ctx) => {
  if (inRam(onDisk) || !inRam(ownRam)) ctx.skip('no RAM file system apart from the project\'s');
  const dir = join(onDisk, 'reports');
  const victim = join(onDisk, 'victim');
  mkdirSync(dir);
  mkdirSync(victim);
  writeFileSync(join(victim, 'kept.txt'), 'kept\n');
  symlinkSync(victim, join(dir, 'allure-results'));

  const r = await runCli(['--report-dir', dir, '--quiet'], { TMPDIR: ownRam });
  expect(r.code, r.stderr).toBe(0);

  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: unknown[] };
  const results = join(dir, 'allure-results');
  const files = readdirSync(results);
  expect(files.filter((f) => f.endsWith('-result.json'))).toHaveLength(summary.checks.length);
  // Every attachment a result names is there, whole.
  for (const f of files.filter((x) => x.endsWith('-result.json'))) {
    const sources = [...readFileSync(join(results, f), 'utf8').matchAll(/"source":"([^"]+)"/g)].map((m) => m[1]!);
    for (const s of sources) expect(files, f).toContain(s);
  }
  expect(readdirSync(victim)).toEqual(['kept.txt']);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Record<string, string> };
  const listed = Object.keys(manifest.files).filter((name) => name.startsWith('allure-results/'));
  expect(listed.sort()).toEqual(files.map((f) => `allure-results/${f}`).sort());
  for (const name of listed) expect(createHash('sha256').update(readFileSync(join(dir, name))).digest('hex'), name).toBe(manifest.files[name]);
  expect(readFileSync(join(dir, 'report.html'), 'latin1')).toContain('id="conformance-verdict"');
  expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]); // no staging or old results left
  expect(inRamNow()).toEqual([]);
}, 300_000);
