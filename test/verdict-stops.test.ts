// What a stopped or still-going run states, found by an independent review: a rebuild of the reports a
// live run wrote as it went on read them CONFORMANT, exit 0 (the run had said INCOMPLETE, exit 2);
// each side of a stopped traffic run was stated CONFORMANT beside the run's INCOMPLETE; and a second
// stop after the console printed the verdict removed the reports and exited 2 under that verdict.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeOf, reportVerdict, sideVerdicts } from '../lib/reporting/verdict.js';
import { childEnv, ROOT, runCli } from './helpers/cli.js';

type Side = 'request' | undefined;
const check = (status: 'pass' | 'fail' | 'skip', side?: Side) => ({ level: 'MUST', status, ...(side ? { side } : {}) });
const PASSED = [check('pass'), check('pass', 'request')];

describe('the verdict of a run stopped or going on', () => {
  it('a report written while a live run went on (inProgress) is INCOMPLETE when read again, exit 2; the same report ended is CONFORMANT', () => {
    const written = { mode: 'traffic' as const, configuration: {}, counts: { exchanges: { kinds: { login: 1 } } }, checks: PASSED };
    const stated = (r: typeof written & { inProgress?: boolean }) => { const verdict = reportVerdict(r); return [verdict, exitCodeOf({ verdict })]; };
    expect([stated({ ...written, inProgress: true }), stated(written)]).toEqual([['incomplete', 2], ['conformant', 0]]);
  });

  it('each side of it is INCOMPLETE where none of its MUST checks failed, NOT CONFORMANT where one did; ended, CONFORMANT', () => {
    expect([
      sideVerdicts(PASSED, 'must', true),
      sideVerdicts([...PASSED, check('fail', 'request')], 'must', true),
      sideVerdicts(PASSED, 'must', false),
    ]).toEqual([
      { server: 'incomplete', client: 'incomplete' },
      { server: 'incomplete', client: 'non-conformant' },
      { server: 'conformant', client: 'conformant' },
    ]);
  });
});

it('stopped twice after the console printed its verdict, while the reports were written: the verdict is said again as INCOMPLETE, the exit 2, no report left', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'verdict-stops-'));
  const child = spawn(process.execPath, [join(ROOT, 'bin/run.mjs'), 'cli/main', '--report-dir', dir], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    const first = !/^Verdict: /m.test(stdout);
    stdout += d;
    // Both stops as soon as the verdict is printed: the presentation, written after it, takes seconds.
    if (first && /^Verdict: /m.test(stdout)) { child.kill('SIGTERM'); setTimeout(() => child.kill('SIGTERM'), 100); }
  });
  child.stderr.resume();
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  const verdicts = stdout.split('\n').filter((l) => l.startsWith('Verdict: '));
  expect([code, verdicts.length, verdicts.at(-1), readdirSync(dir).filter((n) => !n.startsWith('.'))])
    .toEqual([2, 2, 'Verdict: INCOMPLETE (stopped at once while the reports were written: none kept)', []]);
}, 120_000);

it('refused before its report directory is made (an accounts file missing), a run removes an earlier run\'s outputs there, which stated CONFORMANT, exit 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'verdict-refused-'));
  expect((await runCli(['--report-dir', dir, '--reports', 'summary,junit'])).code).toBe(0);
  const r = await runCli(['--report-dir', dir, '--reports', 'summary,junit', '--accounts', join(dir, 'no-such-accounts.jsonl')]);
  expect([r.code, r.stdout.includes('Removed from the report directory'), ['summary.json', 'junit.xml'].filter((f) => existsSync(join(dir, f)))]).toEqual([2, true, []]);
}, 60_000);
