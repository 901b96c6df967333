// The presentation and the HTML are built in temporary directories with random names (in RAM, or
// hidden in the report directory), listed in no manifest. A run stopped at once while they exist
// removes them before it exits; the next run into the report directory removes those a killed run left.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stoppedAtOnce, useLiveGate } from '../lib/cli/write-reports.js';
import { ABANDONED_AFTER_MS, HTML_WORK, PRESENTING, removeAbandonedWorkDirs, running, sharedWorkDir, SHARED_WORK, workDir } from '../lib/reporting/work-dirs.js';
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

  // A run killed (SIGKILL, the OOM killer) cannot remove what it made in RAM or the temporary
  // directory; its name carries the maker's id, so a later run tells it from one in use.
  it('a later run removes the shared work directories whose maker is gone and which were left an hour ago; one in use, recent, or not named so stays', async () => {
    const base = mkdtempSync(join(tmpdir(), 'work-dirs-shared-'));
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    expect(running(gone)).toBe(false);
    const old = (Date.now() - ABANDONED_AFTER_MS - 60_000) / 1000;
    const make = (name: string, at?: number) => {
      mkdirSync(join(base, name, 'allure-results'), { recursive: true });
      writeFileSync(join(base, name, 'allure-results', 'r-result.json'), '{}');
      if (at !== undefined) utimesSync(join(base, name), at, at);
    };
    const removed = [`${SHARED_WORK.presenting}${gone}-Ab12Cd`, `${SHARED_WORK.html}${gone}-Ef34Gh`];
    const kept = [
      `${SHARED_WORK.presenting}${gone}-Recent`, // left less than an hour ago: perhaps another namespace's, in use
      `${SHARED_WORK.presenting}${process.pid}-Alive`, // its maker runs
      `${SHARED_WORK.presenting}notes`, // no maker named: not the harness's
      `other-${gone}-Ij56Kl`,
    ];
    for (const name of [...removed, ...kept]) make(name, name.endsWith('Recent') ? undefined : old);
    const r = await runCli(['--reports', 'summary', '--report-dir', join(base, 'reports')], { TMPDIR: base });
    expect(r.code).toBe(0);
    // What the run left there of the harness's and of the test's; not another tool's (tsx, a run from
    // source, keeps its cache in the temporary directory: tsx-<uid>).
    const ours = (n: string) => n === 'reports' || [...removed, ...kept].includes(n) || Object.values(SHARED_WORK).some((p) => n.startsWith(p));
    expect(readdirSync(base).filter(ours).sort()).toEqual([...kept, 'reports'].sort());
    expect(r.stdout).not.toContain('cannot remove');
  }, 120_000);

  it('a shared work directory is named with its maker\'s id, and one this process holds is never taken for abandoned', () => {
    const base = mkdtempSync(join(tmpdir(), 'work-dirs-own-'));
    const mine = sharedWorkDir(base, 'presenting');
    expect(mine).toMatch(new RegExp(`/${SHARED_WORK.presenting}${process.pid}-[^/]+$`));
    expect(removeAbandonedWorkDirs([base], undefined, Date.now() + 2 * ABANDONED_AFTER_MS)).toEqual([]);
    expect(existsSync(mine)).toBe(true);
  });
});
