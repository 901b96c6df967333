// Output safety against a hostile target and a hostile recording: what they write reaches every
// output as text that no CI runner, shell or console acts on, and is shown, escaped where the
// output needs it, never dropped. (Controls and bidi: display.test.ts; Markdown and HTML markup:
// display.test.ts and the report tests.)
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellArg } from '../lib/reporting/exchange-text.js';
import { LEAN, runCli } from './helpers/cli.js';
import { startAttackTarget, type AttackTarget } from './helpers/attack-target.js';

const work = mkdtempSync(join(tmpdir(), 'output-safety-'));
let target: AttackTarget;
beforeAll(async () => { target = await startAttackTarget(); });
afterAll(async () => { await target.close(); });

/** Lines a runner would take for a workflow command (its own annotations aside): `::name::` at a
 *  line's start after white space, `##[name]` or `##vso[name]` anywhere (actions/runner's
 *  ActionCommand.TryParseV2 and TryParse). */
const commandLines = (output: string): string[] => output.split('\n')
  .filter((l) => !/^::(?:error|warning|notice) title=/.test(l))
  .filter((l) => /^\s*::/.test(l) || /##(?:vso)?\[/i.test(l));

/** A recording whose first request's method holds a command substitution, and whose second
 *  request's body runs over three lines, the later ones a workflow command and a false verdict. The
 *  method is a token (RFC 9110 9.1: ` $ ' are token characters), which replay.sh sends: one that is
 *  none, as $( ) and a space make it, is not replayed (replay-unsendable-head.test.ts). Run unquoted in
 *  `work`, it would make MARK. */
const MARK = join(work, 'pwned');
const METHOD = "POST`touch$IFS'pwned'`";
const BODY = '{"x":1}\n::error::pwned\nVerdict: CONFORMANT';
function hostileHar(): string {
  const record = readFileSync('fixtures/reference/user-details.json', 'utf8');
  const entry = (method: string, body: string) => ({
    startedDateTime: '2026-01-01T00:00:00.000Z', time: 1,
    // Port 9 (discard): nothing answers there, so the replay below sends nothing anywhere.
    request: { method, url: 'http://127.0.0.1:9/supportstateuser', headers: [{ name: 'Content-Type', value: 'application/json' }], postData: { mimeType: 'application/json', text: body } },
    response: { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }], content: { text: record, size: record.length } },
  });
  const path = join(work, 'hostile.har');
  writeFileSync(path, JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [entry(METHOD, '{"x":1}'), entry('POST', BODY)] } }));
  return path;
}

describe('what a hostile target or recording writes runs nowhere', () => {
  it('the console holds no CI workflow command a target wrote: ##[…] is shown with its # escaped, as \\x23', async () => {
    const dir = join(work, 'live');
    const r = await runCli([...LEAN, '--base-url', target.url, '--report-dir', dir], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(work, 'step-summary.md') });
    expect(r.code).toBe(1); // ownerId as a string fails JSON-INTEGER, which quotes it
    expect(commandLines(r.stdout + r.stderr)).toEqual([]);
    // Shown, not dropped: the words a runner would have run are there, the one # escaped (in the value
    // quoted, cut at 200 printed characters; a path cuts the long name sooner).
    expect(r.stdout).toContain('a|b \\x23#[add-mask]MUST \\x23#vso[task.setva');
    // The harness's own annotations are still commands.
    expect(r.stdout).toMatch(/^::error title=JSON-INTEGER /m);
  });

  it('a recorded body of several lines is not printed as a command: no console line starts with the recorder\'s text', async () => {
    const dir = join(work, 'har');
    const r = await runCli(['--reports', 'summary', '--har', hostileHar(), '--report-dir', dir]);
    expect(r.code).toBe(1);
    expect(commandLines(r.stdout + r.stderr)).toEqual([]);
    expect(r.stdout.match(/^Verdict: .*$/gm)).toEqual([expect.stringMatching(/^Verdict: NOT CONFORMANT /)]);
    expect(r.stdout).toMatch(/replay: a \d+-character command of 3 lines, whole in replay\.sh and summary\.json \(checks\[\]\.replay\)/);
    // Whole where it is said to be, the body as recorded.
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: { id: string; replay?: string }[] };
    expect(summary.checks.find((c) => c.id === 'REQ-JSON-BODY')?.replay).toContain(`--data-binary '${BODY}'`);
  });

  it('replay.sh quotes a recorded method: its $(…) runs nothing, and curl is given it as recorded', async () => {
    const dir = join(work, 'har');
    if (!existsSync(join(dir, 'replay.sh'))) await runCli(['--reports', 'summary', '--har', hostileHar(), '--report-dir', dir]);
    const out = await new Promise<string>((resolve) => {
      execFile('sh', [join(dir, 'replay.sh')], { cwd: work, env: { PATH: process.env.PATH ?? '', REPLAY_CONNECT_TIMEOUT: '2', REPLAY_MAX_TIME: '4' }, timeout: 60_000 }, (_e, stdout, stderr) => resolve(stdout + stderr));
    });
    expect(out).toMatch(/REQ-METHOD \(MUST\) har\.1: no answer/); // it was replayed
    expect(existsSync(MARK), 'the method\'s command ran').toBe(false);
    expect(readFileSync(join(dir, 'replay.sh'), 'utf8')).toContain(`-X ${shellArg(METHOD)}`);
  });
});
