// One run, one verdict: the console, summary.json, junit.xml, traceability.md and report.html's title
// spell the same verdict, and the exit code means what it says (issue 26). A SHOULD finding fails the
// run only under --fail-on should, in JUnit as everywhere else. A conformant target, a failed MUST
// check (its replay command and JUnit <failure>) and a difference from the legacy (in the verdict's
// words as in the exit code) are verdict-modes.test.ts's probe and differential runs: the same runs,
// made once.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../lib/reference/variants.js';
import { runCli, runProgram } from './helpers/cli.js';
import { forgeSummary } from './helpers/outputs.js';
import { startRawTarget, type RawTarget } from './helpers/raw-target.js';
import { call, useReference } from './helpers/reference.js';

const apostrophe = useReference({ variants: FAULTS.filter((f) => f.name === 'apostrophe-500') });
const conformant = useReference({});

/** A target answering every request 404 text/plain: the record checks (JSON-ENUM-SEEN, JSON-STRING)
 *  find nothing to judge, OPTIONS-ALLOWS-POST fails. */
let notFound: RawTarget;
beforeAll(async () => { notFound = await startRawTarget(() => 'HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nno'); });
afterAll(() => notFound.close());

/** A login whose request holds a member 2.2 does not name (REQ-JSON-UNKNOWN-MEMBERS, a SHOULD
 *  check of the client side). */
const loginWithUnknownMember = (): Promise<string> => recordedLogin('{"userName":"a","extra":1}');

/** A HAR of one login whose request body is `body`, answered by the reference as it answers it. */
async function recordedLogin(body: string): Promise<string> {
  const got = await call(`${conformant.url}/supportstateuser`, { body, headers: { 'content-type': 'application/json' } });
  const h = (name: string, value: string) => ({ name, value });
  const file = join(mkdtempSync(join(tmpdir(), 'verdict-har-')), 'login.har');
  writeFileSync(file, JSON.stringify({ log: { version: '1.2', entries: [{
    startedDateTime: '2026-11-25T00:00:00.000Z', time: 1,
    request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: [h('Content-Type', 'application/json')], postData: { mimeType: 'application/json', text: body } },
    response: { status: got.status, headers: [h('Content-Type', got.type ?? '')], content: { mimeType: got.type ?? '', text: got.body } },
  }] } }));
  return file;
}

/** The verdict as each output states it (report.html's title when the run wrote it). */
function verdictsIn(dir: string, stdout: string, html: boolean) {
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { verdictWords: string; exitCode: number };
  const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
  return {
    console: /^Verdict: (.+?) \((?:MUST|no MUST|no SHOULD|judged)/m.exec(stdout)?.[1],
    summary: summary.verdictWords,
    junit: /<testsuites name="conformance: ([^"]+)"/.exec(junit)?.[1],
    traceability: /^Verdict \*\*(.+?)\*\*/m.exec(readFileSync(join(dir, 'traceability.md'), 'utf8'))?.[1],
    ...(html ? { html: /<title>\s*Conformance of \S+: (.+?) \(\d{4}-/.exec(readFileSync(join(dir, 'report.html'), 'utf8'))?.[1] } : {}),
    summaryExitCode: summary.exitCode,
  };
}

/** report.html (the presentation child and Allure, most of a run's cost) is written for the SHOULD
 *  runs, whose words are this file's own; verdict-modes.test.ts reads it for every mode's conformant
 *  and failing runs. */
async function run(args: string[], { html = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'verdict-'));
  const r = await runCli([...args, '--report-dir', dir, '--quiet', ...(html ? [] : ['--reports', 'summary,traceability,junit'])]);
  return { ...r, dir, verdicts: verdictsIn(dir, r.stdout, html), junit: readFileSync(join(dir, 'junit.xml'), 'utf8') };
}

const everywhere = (words: string, code: number, html = false) =>
  ({ console: words, summary: words, junit: words, traceability: words, ...(html ? { html: words } : {}), summaryExitCode: code });

describe.concurrent('the verdict, the same in every output and the exit code', () => {
  it('only a SHOULD check failed: CONFORMANT and exit 0, and JUnit carries it as system-out, not a <failure>', async () => {
    const r = await run(['--base-url', apostrophe.url, '--generate', '10', '--seed', '9'], { html: true });
    expect(r.verdicts).toEqual(everywhere('CONFORMANT', 0, true));
    expect(r.code).toBe(0);
    expect(r.junit).toMatch(/name="ROBUST-NO-5XX [^"]+" time="0">\s*<properties>.*?<property name="status" value="failed"\/>.*?<\/properties>\s*<system-out>advisory \(SHOULD, not part of the verdict/);
    expect(r.junit).not.toContain('<failure');
    expect(r.junit).toMatch(/<testsuites name="[^"]+" tests="\d+" failures="0"/);
  });

  it('the same SHOULD failure under --fail-on should: NOT CONFORMANT everywhere, exit 1, a <failure> in JUnit', async () => {
    const r = await run(['--base-url', apostrophe.url, '--generate', '10', '--seed', '9', '--fail-on', 'should'], { html: true });
    expect(r.verdicts).toEqual(everywhere('NOT CONFORMANT', 1, true));
    expect(r.code).toBe(1);
    const failed = (JSON.parse(readFileSync(join(r.dir, 'summary.json'), 'utf8')) as { counts: { SHOULD: { failed: number } } }).counts.SHOULD.failed;
    expect(failed).toBeGreaterThan(0);
    expect(r.stdout).toContain(`\nFailed SHOULD checks (${failed}, part of the verdict: --fail-on should):\n`);
    expect(r.junit).toMatch(/name="ROBUST-NO-5XX [^"]+" time="0">\s*<properties>.*?<\/properties>\s*<failure message="[^"]+" type="SHOULD">/);
  });

  it('traffic whose client side failed only a SHOULD check: each side\'s verdict, on the verdict line and in summary.json, has the gate applied as the run\'s has', async () => {
    const har = await loginWithUnknownMember();
    const sidesOf = (r: Awaited<ReturnType<typeof run>>) => ({
      line: /^Verdict: .+? \(judged: ([^;]+);/m.exec(r.stdout)?.[1],
      summary: (JSON.parse(readFileSync(join(r.dir, 'summary.json'), 'utf8')) as { sides: unknown }).sides,
    });
    const [must, should] = await Promise.all([run(['--har', har]), run(['--har', har, '--fail-on', 'should'])]);
    expect([must.code, must.verdicts.summary, sidesOf(must)]).toEqual([0, 'CONFORMANT', { line: 'server CONFORMANT, client CONFORMANT', summary: { server: 'conformant', client: 'conformant' } }]);
    expect([should.code, should.verdicts.summary, sidesOf(should)]).toEqual([1, 'NOT CONFORMANT', { line: 'server CONFORMANT, client NOT CONFORMANT', summary: { server: 'conformant', client: 'non-conformant' } }]);
  });

  it('--fail-on should of SHOULD checks alone, every one skipped: INCOMPLETE everywhere and exit 2, never CONFORMANT of no check judged', async () => {
    const r = await run(['--base-url', notFound.url, '--fail-on', 'should', '--only', 'JSON-ENUM-SEEN,SOAP-ENUM-SEEN']);
    expect([r.code, r.verdicts]).toEqual([2, everywhere('INCOMPLETE', 2)]);
    expect(r.stdout).toMatch(/^Verdict: INCOMPLETE \(no SHOULD check failed, but some could not be evaluated; MUST 0 passed, 0 failed, 0 skipped; SHOULD 0 passed, 0 failed, 2 skipped\)$/m);
    expect(r.stderr).toMatch(/^conformance: run incomplete: 2 SHOULD check\(s\) not evaluated \(/m);
    expect(r.junit).toContain('<testcase classname="Verdict" name="the run could not judge: INCOMPLETE"');
  });

  it('under --fail-on should a failed SHOULD check fails the run although a MUST check was not evaluated, as a failed MUST check does; under must the run stays INCOMPLETE', async () => {
    const only = ['--base-url', notFound.url, '--only', 'JSON-STRING,OPTIONS-ALLOWS-POST'];
    const [should, must] = await Promise.all([run([...only, '--fail-on', 'should']), run(only)]);
    expect([should.code, should.verdicts]).toEqual([1, everywhere('NOT CONFORMANT', 1)]);
    expect([must.code, must.verdicts]).toEqual([2, everywhere('INCOMPLETE', 2)]);
    // traceability.md: the clause of the failed SHOULD check is not met where the gate counts it.
    const clause44 = (r: Awaited<ReturnType<typeof run>>) => /^\| 4\.4 \| [^|]+ \| ([^|]+) \|/m.exec(readFileSync(join(r.dir, 'traceability.md'), 'utf8'))?.[1];
    expect([clause44(should), clause44(must)]).toEqual(['NOT MET', 'advisory findings only']);
  });

  it('recorded traffic judged by SHOULD checks alone under --fail-on should: a failed one is NOT CONFORMANT (exit 1), a passed one CONFORMANT (exit 0), never "nothing observed"', async () => {
    const [bad, good] = await Promise.all([loginWithUnknownMember(), recordedLogin('{"userName":"a"}')]);
    const args = ['--fail-on', 'should', '--only', 'REQ-JSON-UNKNOWN-MEMBERS'];
    const [failed, passed] = await Promise.all([run(['--har', bad, ...args]), run(['--har', good, ...args])]);
    const sides = (r: Awaited<ReturnType<typeof run>>) => (JSON.parse(readFileSync(join(r.dir, 'summary.json'), 'utf8')) as { sides: unknown }).sides;
    expect([failed.code, failed.verdicts, sides(failed)]).toEqual([1, everywhere('NOT CONFORMANT', 1), { client: 'non-conformant' }]);
    expect([passed.code, passed.verdicts, sides(passed)]).toEqual([0, everywhere('CONFORMANT', 0), { client: 'conformant' }]);
  });

  it('shards of --fail-on should with SHOULD checks alone, every one skipped: INCOMPLETE everywhere and exit 2 in each shard, as in their merge, never CONFORMANT of no check judged', async () => {
    const accounts = join(mkdtempSync(join(tmpdir(), 'verdict-shards-')), 'accounts.jsonl');
    writeFileSync(accounts, ['ana', 'bo'].map((u) => JSON.stringify({ SupportStateUserLoginRequest: { userName: u } })).join('\n'));
    const gated = ['--base-url', notFound.url, '--fail-on', 'should', '--only', 'JSON-ENUM-SEEN', '--accounts', accounts, '--run-id', 'verdict-shards'];
    const shards = await Promise.all(['1/2', '2/2'].map((shard) => run([...gated, '--shard', shard])));
    expect(shards.map((s) => [s.code, s.verdicts])).toEqual(Array(2).fill([2, everywhere('INCOMPLETE', 2)]));
    for (const s of shards) expect(s.stderr).toMatch(/^conformance: run incomplete: 1 SHOULD check\(s\) not evaluated \(JSON-ENUM-SEEN: /m);
    const out = mkdtempSync(join(tmpdir(), 'verdict-merged-'));
    const merged = await runProgram('cli/report', ['--merge', ...shards.map((s) => s.dir), '--report-dir', out, '--reports', 'summary,traceability,junit']);
    expect([merged.code, verdictsIn(out, merged.stdout, false)]).toEqual([2, everywhere('INCOMPLETE', 2)]);
  });

  it('a rebuild (npm run report) states the verdict the results and the gate give, not the one summary.json was written with: every output and the exit code', async () => {
    // Every selected SHOULD check skipped under --fail-on should: INCOMPLETE; the harness before
    // 17c7895 wrote such a run CONFORMANT, exit 0, and a rebuild kept what it read.
    const r = await run(['--base-url', notFound.url, '--fail-on', 'should', '--only', 'JSON-ENUM-SEEN,SOAP-ENUM-SEEN']);
    expect([r.code, r.verdicts.summary]).toEqual([2, 'INCOMPLETE']);
    const summary = JSON.parse(readFileSync(join(r.dir, 'summary.json'), 'utf8')) as Record<string, unknown>;
    forgeSummary(r.dir, JSON.stringify({ ...summary, verdict: 'conformant', verdictWords: 'CONFORMANT', exitCode: 0 }, null, 2));
    const rebuilt = await runProgram('cli/report', ['--report-dir', r.dir, '--reports', 'summary,traceability,junit']);
    // Outputs it was not asked for (report.html among them) would keep CONFORMANT: written again too.
    expect([rebuilt.code, verdictsIn(r.dir, rebuilt.stdout, true)]).toEqual([2, everywhere('INCOMPLETE', 2, true)]);
    expect(rebuilt.stderr).toMatch(/^note: every output is written again: summary\.json says CONFORMANT \(exit 0\), the results it holds INCOMPLETE \(exit 2\)\n/);
    expect(rebuilt.stderr).toMatch(/^report: run incomplete: 2 SHOULD check\(s\) not evaluated \(/m);
    // A NOT CONFORMANT run rebuilt exits 1, as the run did (a rebuild exited 0 whatever the verdict).
    const failed = await run(['--base-url', notFound.url, '--only', 'JSON-STRING,OPTIONS-ALLOWS-POST', '--fail-on', 'should']);
    expect(failed.code).toBe(1);
    const again = await runProgram('cli/report', ['--report-dir', failed.dir, '--reports', 'summary,traceability,junit']);
    expect([again.code, verdictsIn(failed.dir, again.stdout, false)]).toEqual([1, everywhere('NOT CONFORMANT', 1)]);
  });

  it('--fail-on takes must or should only, refused in one line otherwise', async () => {
    const r = await runCli(['--fail-on', 'never']);
    expect(r).toMatchObject({ code: 2, stderr: 'conformance: --fail-on must be must or should, not "never"\n' });
  });
});
