// Every mode ends the same way (issue 26): one session builds the report, and the verdict word is the
// same in the console, summary.json, junit.xml, traceability.md and report.html's title, and means
// what the exit code means (0 CONFORMANT, 1 NOT CONFORMANT or a difference from the legacy). For each
// mode, a conformant target and a failing one. report.html (the presentation child and Allure, most
// of a run's cost) is read where its writing takes a path of its own, in one run of each: the probes'
// failing run (the session's end, which every run mode shares) and the failing proxy (the traffic
// modes' stop, lib/cli/live-judging.ts, which the judging reference shares) here, and a failing merge
// (npm run report) in report-verdict-screen.test.ts, whose merged run is held to one verdict in every
// output, report.html's title among them; their conformant twins take the same path to other words,
// which every other output states. The accounts, recording, differential and generated runs end in
// that same session code as the probes, so their report.html would repeat the probes' check;
// report-verdict-screen.test.ts reads it painted for a conformant, a generated failing, a
// differential and a merged run. The differential mode's two runs are differential-cli.test.ts's
// first two, held to one verdict in every output there.
// The traffic modes (proxy, judging reference) also state the options they were given, as every other
// mode's reports do.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../lib/reference/variants.js';
import { VALUE_FAULTS } from '../lib/reference/value-faults.js';
import { runCli, runProgram, servingProgram } from './helpers/cli.js';
import { call, useReference } from './helpers/reference.js';
import { expectOneVerdict } from './helpers/verdict-words.js';

const fault = (name: string) => [...FAULTS, ...VALUE_FAULTS].find((f) => f.name === name)!;
const conformant = useReference({});
const failing = useReference({ variants: [fault('login-reply-missing')] });

const work = mkdtempSync(join(tmpdir(), 'verdict-modes-'));
const dirOf = () => mkdtempSync(join(work, 'reports-'));

/** A login a client sends: its member named as the contract names it, or in PascalCase (which
 *  REQ-JSON-MEMBER-NAMES fails). */
const LOGIN = { good: '{"userName":"a"}', bad: '{"UserName":"a"}' } as const;

/** Every report but the presentation's (allure-results, report.html). */
const LIGHT = ['--reports', 'summary,traceability,junit'];

const cli = async (args: readonly string[]) => {
  const dir = dirOf();
  const r = await runCli([...args, '--report-dir', dir, '--quiet']);
  return { ...r, dir };
};

const accountsFile = (n: number) => {
  const file = join(work, `accounts-${n}.jsonl`);
  writeFileSync(file, Array.from({ length: n }, (_, i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` } })).join('\n'));
  return file;
};

/** A HAR of one login: the client's request and the reference's real answer to it. */
async function recording(body: string): Promise<string> {
  const got = await call(`${conformant.url}/supportstateuser`, { body, headers: { 'content-type': 'application/json' } });
  const h = (name: string, value: string) => ({ name, value });
  const entry = {
    startedDateTime: '2026-11-25T00:00:00.000Z', time: 1,
    request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: [h('Content-Type', 'application/json')], postData: { mimeType: 'application/json', text: body } },
    response: { status: got.status, headers: [h('Content-Type', got.type ?? 'application/json')], content: { mimeType: got.type ?? 'application/json', text: got.body } },
  };
  const file = join(work, `login-${Math.random().toString(36).slice(2)}.har`);
  writeFileSync(file, JSON.stringify({ log: { version: '1.2', entries: [entry] } }));
  return file;
}

/** A program that serves until stopped: one login sent through it, then SIGTERM; its exit and output. */
async function served(program: string, args: readonly string[], path: string, body: string) {
  const s = servingProgram(program, args);
  try {
    const url = await s.url;
    await call(`${url}${path}`, { body, headers: { 'content-type': 'application/json' } });
    s.child.kill('SIGTERM');
    return { code: await s.exit, printed: s.output() };
  } finally {
    s.child.kill('SIGKILL');
  }
}

const given = (dir: string) => (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { configuration: { options?: Record<string, unknown> } }).configuration.options;

// Generous: each test runs two to six CLI runs, some with the presentation child, all at once on a shared machine.
describe.concurrent('every mode: one verdict in every output, meaning the exit code', { timeout: 600_000 }, () => {
  it('probes: CONFORMANT (exit 0), NOT CONFORMANT (exit 1); the failed check with its replay command on the console, a <failure> in JUnit under its area', async () => {
    const [ok, bad] = await Promise.all([cli([...LIGHT, '--base-url', conformant.url]), cli(['--base-url', failing.url])]);
    expectOneVerdict(ok.dir, ok.stdout, ok.code, 'CONFORMANT', false);
    expectOneVerdict(bad.dir, bad.stdout, bad.code, 'NOT CONFORMANT');
    // Each failed check carries the command that replays it, in the console too.
    expect(bad.stdout).toMatch(/^ {2}✗ ROUTE-LOGIN-REPLY .*\n(?: {6}.*\n)*? {6}replay: curl -sS --connect-timeout 10 --max-time 30 -i -X POST .*'http:\/\/127\.0\.0\.1:\d+\/json\/reply\/SupportStateUserLoginRequest'$/m);
    expect(readFileSync(join(bad.dir, 'junit.xml'), 'utf8')).toMatch(/<testcase classname="Routes" name="ROUTE-LOGIN-REPLY [^"]+" time="0">\s*<properties>.*?<property name="level" value="MUST"\/>.*?<\/properties>\s*<failure message="[^"]+" type="MUST">/);
  });

  it('accounts: CONFORMANT (exit 0), NOT CONFORMANT (exit 1)', async () => {
    const accounts = accountsFile(3);
    const [ok, bad] = await Promise.all([cli([...LIGHT, '--base-url', conformant.url, '--accounts', accounts]), cli([...LIGHT, '--base-url', failing.url, '--accounts', accounts])]);
    expectOneVerdict(ok.dir, ok.stdout, ok.code, 'CONFORMANT', false);
    expectOneVerdict(bad.dir, bad.stdout, bad.code, 'NOT CONFORMANT', false);
  });

  it('shards merged: CONFORMANT (exit 0), NOT CONFORMANT (exit 1)', async () => {
    const accounts = accountsFile(4);
    // The shards write only what a merge reads; the merged report writes every output.
    await Promise.all(([[conformant, 'CONFORMANT', 0], [failing, 'NOT CONFORMANT', 1]] as const).map(async ([target, words, code]) => {
      const shards = await Promise.all(['1/2', '2/2'].map((shard) => cli(['--base-url', target.url, '--accounts', accounts, '--shard', shard, '--reports', 'summary'])));
      const out = dirOf();
      const merged = await runProgram('cli/report', ['--merge', ...shards.map((s) => s.dir), '--report-dir', out, ...LIGHT]);
      expect(merged.stderr).toBe('');
      expectOneVerdict(out, merged.stdout, merged.code, words, false);
      expect(merged.code).toBe(code);
    }));
  });

  it('a recording (--har): CONFORMANT (exit 0), NOT CONFORMANT (exit 1)', async () => {
    const [ok, bad] = await Promise.all([cli([...LIGHT, '--har', await recording(LOGIN.good)]), cli([...LIGHT, '--har', await recording(LOGIN.bad)])]);
    expectOneVerdict(ok.dir, ok.stdout, ok.code, 'CONFORMANT', false);
    expectOneVerdict(bad.dir, bad.stdout, bad.code, 'NOT CONFORMANT', false);
  });

  it('the proxy: CONFORMANT (exit 0), NOT CONFORMANT (exit 1), its reports stating the options given', async () => {
    const [okDir, badDir] = [dirOf(), dirOf()];
    const [ok, bad] = await Promise.all([
      served('cli/main', [...LIGHT, '--proxy', '0', '--base-url', conformant.url, '--report-dir', okDir], '/supportstateuser', LOGIN.good),
      served('cli/main', ['--proxy', '0', '--base-url', conformant.url, '--report-dir', badDir], '/supportstateuser', LOGIN.bad),
    ]);
    expectOneVerdict(okDir, ok.printed, ok.code, 'CONFORMANT', false);
    expectOneVerdict(badDir, bad.printed, bad.code, 'NOT CONFORMANT');
    expect(given(okDir)).toMatchObject({ 'base-url': conformant.url, proxy: '0', 'report-dir': okDir });
  });

  it('the judging reference: CONFORMANT (exit 0), NOT CONFORMANT (exit 1), its reports stating the options given', async () => {
    const [okDir, badDir] = [dirOf(), dirOf()];
    const args = (dir: string) => ['--port', '0', '--judge-clients', '--report-dir', dir];
    const [ok, bad] = await Promise.all([
      served('cli/reference', [...args(okDir), ...LIGHT], '/supportstateuser', LOGIN.good),
      served('cli/reference', [...args(badDir), ...LIGHT], '/supportstateuser', LOGIN.bad),
    ]);
    expectOneVerdict(okDir, ok.printed, ok.code, 'CONFORMANT', false);
    expectOneVerdict(badDir, bad.printed, bad.code, 'NOT CONFORMANT', false);
    expect(given(okDir)).toEqual({ port: 0, 'judge-clients': true, 'report-dir': okDir, reports: ['summary', 'traceability', 'junit'] });
  });

  it('generated requests (--generate): CONFORMANT (exit 0), NOT CONFORMANT (exit 1)', async () => {
    const [ok, bad] = await Promise.all([cli([...LIGHT, '--base-url', conformant.url, '--generate', '10', '--seed', '3']), cli([...LIGHT, '--base-url', failing.url, '--generate', '10', '--seed', '3'])]);
    expectOneVerdict(ok.dir, ok.stdout, ok.code, 'CONFORMANT', false);
    expectOneVerdict(bad.dir, bad.stdout, bad.code, 'NOT CONFORMANT', false);
  });
});
