// The presentation and the HTML are built in temporary directories with random names (in RAM, or
// hidden in the report directory), listed in no manifest. A run stopped at once while they exist
// removes them before it exits; the next run into the report directory removes those a killed run left.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stoppedAtOnce, useLiveGate } from '../lib/cli/write-reports.js';
import { HTML_WORK, PRESENTING, workDir } from '../lib/reporting/work-dirs.js';
import { runCli } from './helpers/cli.js';

describe('temporary directories of the presentation and the HTML', () => {
  it('a stop at once removes those this process holds: in the report directory and elsewhere (RAM), and says no reports were written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'work-dirs-stop-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'work-dirs-ram-'));
    const held = [workDir(join(dir, PRESENTING)), workDir(join(dir, HTML_WORK)), workDir(join(elsewhere, 'conformance-present-'))];
    for (const d of held) {
      mkdirSync(join(d, 'allure-results'));
      writeFileSync(join(d, 'allure-results', 'r-result.json'), '{}');
    }
    try {
      expect(stoppedAtOnce(dir, 'conformance')()).toEqual({ said: 'no reports written', code: 2 });
      expect(held.filter((d) => existsSync(d))).toEqual([]);
      expect([readdirSync(dir), readdirSync(elsewhere)]).toEqual([[], []]);
    } finally {
      useLiveGate(new SharedArrayBuffer(8)); // stoppedAtOnce closed this thread's gate
    }
  });

  it('the next run into the directory removes those a run killed there left, and its manifest never lists them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'work-dirs-left-'));
    for (const name of [`${PRESENTING}Ab12Cd/allure-results/r-result.json`, `${HTML_WORK}Ef34Gh/out/index.html`]) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), '{}');
    }
    writeFileSync(join(dir, '.the-user-s-own'), 'kept'); // a hidden file no run makes stays
    const r = await runCli(['--reports', 'summary,junit', '--report-dir', dir]);
    expect(r.code).toBe(0);
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual(['.the-user-s-own']);
    expect(readdirSync(dir).sort()).toEqual(['.the-user-s-own', 'exchanges.json', 'junit.xml', 'manifest.json', 'replay.sh', 'summary.json']);
  }, 120_000);
});
