// The CLI as a pipeline sees it: exit 0 on a conforming target, 1 when a MUST check fails, 2 when
// the run cannot proceed, each with the reports written and never a stack trace. Exit 0 on the
// embedded reference, every output written and read, is report-files.test.ts's run (past planted symlinks).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, LEAN, runCli, runProgram } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const reports = () => mkdtempSync(join(tmpdir(), 'conformance-'));
const broken = useReference({
  variants: [{
    name: 'three-digit-datetime', description: 'createdDate with three fractional digits',
    editJson: (n) => (n.t === 'object' ? { ...n, entries: n.entries.map(([k, v]) => [k, k === 'createdDate' ? { t: 'string', value: '2019-03-01T08:15:30.500' } : v] as const) } : n),
  }],
});

const advisory = useReference({
  variants: [{
    name: 'extra-member', description: 'an extra JSON member the spec does not list',
    editJson: (n) => (n.t === 'object' ? { ...n, entries: [...n.entries, ['loyaltyTier', { t: 'string', value: 'gold' }] as const] } : n),
  }],
});

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |node:internal|\.ts:\d+:\d+/);

describe.concurrent('conformance CLI', () => {
  it('npm run report rebuilds traceability.md (and what --reports names) from a report directory, and exits as the run did', async () => {
    const dir = reports();
    // The run writes summary.json (and exchanges.json) alone: the rebuild makes the rest. report.html
    // rebuilt is read in report-files.test.ts (a rebuild writing every output past planted symlinks).
    expect((await runCli(['--base-url', broken.url, '--report-dir', dir, '--reports', 'summary'])).code).toBe(1);
    expect(existsSync(join(dir, 'report.html')) || existsSync(join(dir, 'traceability.md'))).toBe(false);
    const r = await runProgram('cli/report', ['--report-dir', dir, '--reports', 'traceability,junit']);
    expect(r.code).toBe(1); // exits as the run did: a MUST check failed
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites name="conformance: NOT CONFORMANT"/);
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8')).toMatch(/\| 2 \| Resources and their fields \| NOT MET \|/);
    const empty = await runProgram('cli/report', ['--report-dir', reports()]);
    expect([empty.code, empty.stderr]).toEqual([2, expect.stringMatching(/^report: .* holds no summary\.json \(run npm run conformance first\)\n$/)]);
  });

  it('exits 1 when a MUST check fails, naming it with its evidence', async () => {
    const dir = reports();
    const r = await runCli([...LEAN, '--base-url', broken.url, '--report-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ JSON-DATETIME \[MUST, 2 Types\] login\.post: "2019-03-01T08:15:30.500" \(a string\): expected YYYY-MM-DDThh:mm:ss.fffffff .* at \$\.createdDate/);
    expect(r.stdout).toMatch(/Verdict: NOT CONFORMANT \(MUST 47 passed, 1 failed/);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.checks.find((c: { id: string }) => c.id === 'JSON-DATETIME')).toMatchObject({ status: 'failed', clause: '2 Types', level: 'MUST' });
    noStack(r.stdout + r.stderr);
  });

  it('--only runs just the named checks: leaving out the failing one, exit 0; the reports say it was filtered', async () => {
    const dir = reports();
    // The two outputs this asserts on; the Allure HTML is built by the first test of this file.
    const r = await runCli(['--base-url', broken.url, '--report-dir', dir, '--only', 'SOAP-ORDER,JSON-ENUM-SEEN', '--reports', 'traceability,allure']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/2 checks/);
    expect(r.stdout).toMatch(/MUST 1 passed, 0 failed.*SHOULD 1 passed/);
    const trace = readFileSync(join(dir, 'traceability.md'), 'utf8');
    expect(trace).toContain('**Filtered run:** 60 of the 62 checks every run can feed were left out');
    expect(trace).toMatch(/^\| 4\.1 \| SupportStateUserLoginRequest \| not selected in this run \|/m);
    expect(readdirSync(join(dir, 'allure-results')).filter((f) => f.endsWith('-globals.json'))).toHaveLength(2);
  });

  it('a SHOULD failure is reported but does not fail the verdict', async () => {
    const r = await runCli([...LEAN, '--base-url', advisory.url, '--report-dir', reports()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Advisory SHOULD findings \(1, not part of the verdict\):\n  ✗ JSON-UNKNOWN-MEMBERS/);
    expect(r.stdout).toMatch(/Verdict: CONFORMANT \(MUST 48 passed, 0 failed, 0 skipped; SHOULD 13 passed, 1 failed\)/);
  });

  it('an output that cannot be written: the verdict still reaches the console, one line names the output, exit 2', async () => {
    const dir = reports();
    mkdirSync(join(dir, 'traceability.md')); // a directory where the file must go
    const r = await runCli([...LEAN, '--report-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/Verdict: CONFORMANT/);
    expect(r.stderr).toMatch(/^conformance: cannot write traceability\.md: EISDIR: [^\n]*\n$/);
    expect(existsSync(join(dir, 'summary.json'))).toBe(true);
  });

  it('a --report-dir that is a file (a regular one, /dev/null) or empty is refused in one line before any request: exit 2', async () => {
    const empty = await runCli([...LEAN, '--base-url', 'http://127.0.0.1:9', '--report-dir', '']);
    expect([empty.code, empty.stderr, empty.stdout]).toEqual([2, 'conformance: --report-dir is empty: name the directory the reports go to\n', '']);
    const file = join(reports(), 'a-file');
    writeFileSync(file, '');
    for (const dir of [file, '/dev/null']) {
      // An unreachable target: had a request been sent, the line would say it cannot be reached.
      const r = await runCli([...LEAN, '--base-url', 'http://127.0.0.1:9', '--report-dir', dir]);
      expect([r.code, r.stderr, r.stdout]).toEqual([2, `conformance: cannot use the report directory ${dir}: ENOTDIR\n`, '']);
    }
  });

  it('exits 2 with one line naming the target when it cannot be reached', async () => {
    const r = await runCli([...LEAN, '--base-url', 'http://127.0.0.1:9', '--report-dir', reports(), '--timeout', '30000']); // refused at once: the limit never decides
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('conformance: cannot reach http://127.0.0.1:9: connection refused by 127.0.0.1:9\n');
    noStack(r.stdout + r.stderr);
  });

  it.each([
    [['--timeout', 'soon'], /--timeout must be an integer/],
    [['--base-url', 'ftp://x'], /must be http or https/],
    [['--base-url', 'http://user:pw@x'], /carries credentials/],
    [['--only', 'NOPE'], /unknown check id NOPE/],
    [['--only', 'JSON-ENUM-SEEN'], /^conformance: --only and --skip leave no MUST check, which alone decide the verdict under --fail-on must/],
    [['--header', 'Content-Type: text/plain'], /cannot be overridden/],
    // An unset variable in `--base-url "$TARGET"`: the run would judge the embedded reference and pass.
    [['--base-url', ''], /^conformance: --base-url is empty: name the deployment to check \(leave the option out to check the embedded reference\)\n$/],
    [['--legacy-url', ' '], /^conformance: --legacy-url is empty: name the legacy deployment to compare with\n$/],
    [['--accounts', ''], /^conformance: --accounts is empty: name the accounts file\n$/],
    // Fields undici refuses to send: every request would fail, blamed on the target.
    ...['Expect: 100-continue', 'Keep-Alive: timeout=5', 'Upgrade: websocket'].map((h) => [['--header', h], new RegExp(`^conformance: --header ${h.split(':')[0]} is a field of the connection that the harness's HTTP client does not send`)] as [string[], RegExp]),
    [['--header', 'X-Ok: 1', '--header', 'Authorization=Bearer sk_live_SECRET123456'], /^conformance: --header number 2 must look like "Name: value" \(a header name, a colon, the value\); it is not shown, as it may hold a secret\n$/],
    [['--frobnicate'], /^conformance: unknown option --frobnicate \(--help lists the options\)\n$/],
    [['--timeout', '-5'], /^conformance: --timeout: a value that begins with "-" is given as --timeout=VALUE\n$/],
    [['--timeout=-5'], /^conformance: --timeout must be an integer from 1 to 600000, not "-5"\n$/],
  ])('exits 2 on bad configuration %j', async (args, message) => {
    const r = await runCli([...LEAN, ...args, '--report-dir', reports()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/SECRET/);
    noStack(r.stderr);
  });

  it('exits 2 before sending anything when the report directory cannot be used', async () => {
    const file = join(reports(), 'a-file');
    writeFileSync(file, '');
    const r = await runCli([...LEAN, '--base-url', broken.url, '--report-dir', join(file, 'sub')]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/^conformance: cannot use the report directory .*a-file\/sub: ENOTDIR\n$/);
  });

  it('exits 2 on a bad request value from the environment', async () => {
    const r = await runCli([...LEAN, '--report-dir', reports()], { CONFIRM_OWNER_ID: 'forty-two' });
    expect([r.code, r.stderr]).toEqual([2, 'conformance: CONFIRM_OWNER_ID must be a 32-bit integer, not "forty-two"\n']);
  });
});

describe('a reader that goes away', () => {
  it('stdout closed after the first line (`| head -1`): the run goes on, writes its reports, exits with its verdict', async () => {
    const dir = reports();
    // summary alone: the console writes (what meets EPIPE) are the same for every choice of outputs.
    const child = spawn(process.execPath, ['bin/run.mjs', 'cli/main', '--report-dir', dir, '--quiet', '--reports', 'summary'], { cwd: join(import.meta.dirname, '..'), env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.stdout.once('data', () => child.stdout.destroy()); // the reader is gone: further writes meet EPIPE
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect([code, stderr]).toEqual([0, '']);
    // The manifest is written last, after every other output.
    expect(['summary.json', 'manifest.json'].map((f) => existsSync(join(dir, f)))).toEqual([true, true]);
  });
});
