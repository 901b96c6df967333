// Many accounts per run: every line is checked before anything is sent (a bad one stops the run with
// one line naming the line and the field, never the value), each account's requests are sent and
// judged against its own record, a fault that only some accounts see is found with its rate and its
// cases, and a run split into shards and merged is the run it was split from.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { FAULTS } from '../lib/reference/variants.js';
import { validateAccounts } from '../lib/engine/accounts.js';
import { LEAN, runCli, runProgram } from './helpers/cli.js';
import { startHostile, type Hostile } from './helpers/hostile.js';

const work = mkdtempSync(join(tmpdir(), 'accounts-'));
const file = (name: string, lines: readonly string[]) => { const p = join(work, name); writeFileSync(p, `${lines.join('\n')}\n`); return p; };
const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
const reports = () => mkdtempSync(join(work, 'r-'));
/** The targets are served from this process, which a loaded machine may keep waiting past the default
 *  10 s: how fast they answer is not what is tested. */
const PATIENT = ['--timeout', '60000'];

const account = (i: number) => JSON.stringify({
  SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` },
  ...(i % 3 === 0 ? { ConfirmEmailRequest: { recoveryToken: `rt${i}`, verifyEmail: `u${i}@example.org`, ownerId: i, isForMM: i % 2 === 0, systemCode: 'Unspecified' } } : {}),
});
const accounts = (n: number) => file(`accounts-${n}.jsonl`, Array.from({ length: n }, (_, i) => account(i)));

let counting: Hostile;
let faulty: RunningReference;
let plain: RunningReference;
beforeAll(async () => {
  [counting, plain, faulty] = await Promise.all([
    startHostile('silent'),
    startReference(),
    // A dashed guid at depth, for 5% of the accounts (deterministic per account).
    startReference({ variants: FAULTS.filter((f) => f.name === 'json-guid-dashed-at-depth'), faultRate: 0.05 }),
  ]);
});
afterAll(async () => { await Promise.all([counting.close(), plain.close(), faulty.close()]); });

describe('a bad accounts file stops the run before anything is sent', () => {
  const SECRET = 'CANARY-ACCOUNT-SECRET-51';
  const good = account(1);
  const cases: [string, string[], RegExp][] = [
    ['not JSON', [good, '{"SupportStateUserLoginRequest":'], /line 2: not valid JSON \(.*\)/],
    // V8's own message would quote the line around the bad character: the secret, cut off.
    ['a bare value', [good, `{"ConfirmEmailRequest":{"recoveryToken":${SECRET}}}`], /line 2: not valid JSON \(Unexpected character at column 41\)/],
    ['a line of 3 MiB', [good, `{"ConfirmEmailRequest":{"recoveryToken":"${SECRET}${'x'.repeat(3 * 1024 * 1024)}"}}`], /line 2: the line is longer than 1 MiB/],
    ['not an object', [good, '[1,2]'], /line 2: a line must be a JSON object keyed by request name/],
    ['an unknown request', [good, good, `{"LoginRequest":{"userName":"${SECRET}"}}`], /line 3: unknown request "LoginRequest" \(expected SupportStateUserLoginRequest or ConfirmEmailRequest\)/],
    ['an unknown field', [`{"SupportStateUserLoginRequest":{"password":"${SECRET}"}}`], /line 1: SupportStateUserLoginRequest\.password is not a field of SupportStateUserLoginRequest/],
    ['a wrong type', [good, `{"ConfirmEmailRequest":{"recoveryToken":"${SECRET}","ownerId":"12"}}`], /line 2: ConfirmEmailRequest\.ownerId: expected an integer/],
    ['an integer past 32 bits', [`{"ConfirmEmailRequest":{"ownerId":4294967296}}`], /line 1: ConfirmEmailRequest\.ownerId: outside the 32-bit range of a \.NET int/],
    ['a null value type', [`{"ConfirmEmailRequest":{"isForMM":null}}`], /line 1: ConfirmEmailRequest\.isForMM: expected a value, not null/],
    ['no request', [good, '{}'], /line 2: the line holds no request/],
  ];
  // What each bad file is refused with is read in-process (validateAccounts, what the CLI runs
  // before sending anything); that the CLI then exits 2 with it, sending nothing, once below.
  const refusal = async (name: string, lines: readonly string[]) => {
    const valid = await validateAccounts(file(name, lines));
    return 'error' in valid ? valid.error : `accepted: ${valid.cases} accounts`;
  };
  for (const [why, lines, message] of cases) {
    it(`${why}: one line naming the line and field, never the value`, async () => {
      const error = await refusal(`bad-${why.replace(/\W/g, '-')}.jsonl`, lines);
      expect(error).toMatch(new RegExp(`^\\S+ ${message.source}$`));
      expect(error).not.toContain(SECRET);
    });
  }

  it('the CLI: exit 2 with the reason in one line, and nothing sent', async () => {
    const [why, lines, message] = cases[4]!;
    const r = await runCli([...LEAN, '--base-url', counting.url, '--accounts', file(`cli-${why.replace(/\W/g, '-')}.jsonl`, lines), '--report-dir', reports()]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(new RegExp(`^conformance: \\S+ ${message.source}\\n$`));
    expect(r.stderr).not.toContain(SECRET);
    expect(counting.requests()).toBe(0); // nothing was sent, by any test of this file
  });

  it('CSV: a header that is not Request.field, and a bad cell, each in one line', async () => {
    expect(await refusal('bad-header.csv', ['SupportStateUserLoginRequest.userName,nickname', 'a,b'])).toMatch(/^\S+ line 1: column "nickname" is not Request\.field$/);
    expect(await refusal('bad-cell.csv', ['ConfirmEmailRequest.ownerId,ConfirmEmailRequest.isForMM', '1,true', '2,maybe'])).toMatch(/^\S+ line 3: ConfirmEmailRequest\.isForMM must be true or false$/);
  });

  it('CSV: a quote in a cell holding a secret, and a column given twice, each in one line that quotes nothing', async () => {
    const quote = await refusal('bad-quote.csv', ['ConfirmEmailRequest.recoveryToken,SupportStateUserLoginRequest.userName', `${SECRET}"z,bob`]);
    expect(quote).toMatch(/^\S+ line 2: not valid CSV: a quote inside a field that is not quoted \(field 1\)$/);
    expect(quote).not.toContain(SECRET.slice(0, 10));
    expect(await refusal('twice.csv', ['SupportStateUserLoginRequest.userName,SupportStateUserLoginRequest.userName', 'a,b'])).toMatch(/^\S+ line 1: column "SupportStateUserLoginRequest\.userName" appears twice/);
  });

  it('CSV: a row of more or fewer fields than its header says how many of each, not a field past the row\'s end', async () => {
    const header = 'SupportStateUserLoginRequest.userName,SupportStateUserLoginRequest.searchValues';
    expect(await refusal('long-row.csv', [header, 'u1,7,9'])).toMatch(/^\S+ line 2: not valid CSV: the row has 3 fields where the header has 2$/);
    expect(await refusal('short-row.csv', [header, 'u0,1', 'u1'])).toMatch(/^\S+ line 3: not valid CSV: the row has 1 field where the header has 2$/);
  });

  it('a pipe is refused in one line: the accounts are read twice', async () => {
    const fifo = join(mkdtempSync(join(tmpdir(), 'accounts-fifo-')), 'accounts.jsonl');
    execFileSync('mkfifo', [fifo]);
    const valid = await validateAccounts(fifo);
    expect(valid).toEqual({ error: expect.stringMatching(/^\S+ is not a regular file: the accounts are read twice/) });
  });
});

describe('JSON Lines as editors write them', () => {
  it('a byte-order mark and CRLF line ends are read as any other file', async () => {
    const bom = file('bom.jsonl', []);
    writeFileSync(bom, `\ufeff${account(1)}\r\n${account(2)}\r\n`);
    const r = await runCli([...LEAN, ...PATIENT, '--base-url', plain.url, '--accounts', bom, '--report-dir', reports(), '--quiet']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/, 2 accounts/);
  });
});

describe('accounts judged one by one', () => {
  it('CSV and JSON Lines alike: every account\'s requests judged against its own record', async () => {
    const csv = file('accounts.csv', [
      'SupportStateUserLoginRequest.userName,SupportStateUserLoginRequest.searchValues,ConfirmEmailRequest.ownerId,ConfirmEmailRequest.verifyEmail',
      'alice,"x, with a comma",,',
      'bob,y,42,bob@example.org',
      '"carol ""the"" third",z,,',
    ]);
    const dir = reports();
    const r = await runCli([...LEAN, ...PATIENT, '--base-url', plain.url, '--accounts', csv, '--report-dir', dir, '--quiet']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const s = summaryOf(dir);
    expect(s.counts.exchanges).toMatchObject({ cases: 3, bySource: { probe: 20, case: 4 } });
    expect(r.stdout).toMatch(/checking \S+ \(deployment\), 62 checks, 3 accounts/);
  });

  // No second run of the same 1200 accounts against a reference without the fault: that every other
  // MUST check passes on them, with nothing on stderr, says what that run would.
  it('a fault 5% of accounts see: exit 1, its check the only MUST failing, exactly the 69 of 1200 logins the seeded 5% picks failed, examples name their cases', async () => {
    const dir = reports();
    const r = await runCli([...LEAN, ...PATIENT, '--base-url', faulty.url, '--accounts', accounts(1200), '--report-dir', dir, '--quiet']);
    expect([r.code, r.stderr]).toEqual([1, '']);
    const must = (summaryOf(dir).checks as { id: string; level: string; status: string }[]).filter((c) => c.level === 'MUST');
    expect(must.filter((c) => c.status !== 'passed').map((c) => c.id)).toEqual(['JSON-GUID']);
    const guid = summaryOf(dir).checks.find((c: { id: string }) => c.id === 'JSON-GUID');
    expect(guid.status).toBe('failed');
    // Only login answers carry enrollmentInfo.siteId: 1200 of the 1620 exchanges judged.
    // Which accounts a fault hits is fixed per account (population.ts hitByFault): at 5%, 69 of these
    // 1200 (5.75%, within the binomial spread of 60 +- 7.5); a changed rate or draw changes the figure.
    expect(guid.counts.failed).toBe(69);
    expect(guid.message).toMatch(/^failed on \d+ of \d+ exchanges \([\d.]+%\); first: case-\d+\.login \(case \d+\): "[0-9a-f-]{36}" \(a string\): expected 32 hex digits without dashes at \$\.enrollmentInfo\.siteId/);
    expect(guid.evidence.every((e: { case?: number; path: string }) => e.case! > 0 && e.path === '$.enrollmentInfo.siteId')).toBe(true);
    expect(guid.groups).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{12}$/), path: '$.enrollmentInfo.siteId', message: '"…" (a string): expected 32 hex digits without dashes', count: guid.counts.failed }]);
  });
});

describe('shards', () => {
  it('--shard 1/2 and 2/2, merged, give the verdict and counts of one whole run', async () => {
    const file400 = accounts(400);
    const [whole, one, two] = [reports(), reports(), reports()];
    const runs = await Promise.all([
      runCli([...LEAN, ...PATIENT, '--base-url', faulty.url, '--accounts', file400, '--report-dir', whole, '--quiet']),
      runCli([...LEAN, ...PATIENT, '--base-url', faulty.url, '--accounts', file400, '--shard', '1/2', '--report-dir', one, '--quiet']),
      runCli([...LEAN, ...PATIENT, '--base-url', faulty.url, '--accounts', file400, '--shard', '2/2', '--report-dir', two, '--quiet']),
    ]);
    expect(runs.map((r) => r.stderr)).toEqual(['', '', '']);
    // Only the first shard sends the probes.
    expect([summaryOf(one).counts.exchanges.bySource.probe, summaryOf(two).counts.exchanges.bySource.probe]).toEqual([20, undefined]);
    const merged = join(work, 'merged');
    const m = await runProgram('cli/report', ['--merge', one, two, '--report-dir', merged, ...LEAN]);
    const [a, b] = [summaryOf(whole), summaryOf(merged)];
    expect(m.code).toBe(runs[0]!.code);
    expect(b.verdict).toBe(a.verdict);
    expect(b.counts).toEqual(a.counts);
    const shape = (s: { checks: { id: string; status: string; counts: unknown; groups: unknown }[] }) => s.checks.map((c) => [c.id, c.status, c.counts, c.groups]);
    expect(shape(b)).toEqual(shape(a));
    // The examples and the exchanges kept for them are the whole run's too: the first ones it met,
    // as many as it keeps (each shard kept its own first ones, twice as many in all).
    const shown = (s: { checks: { id: string; evidence: unknown; exchanges: string[] }[]; exchanges: { id: string }[] }) =>
      [s.checks.map((c) => [c.id, c.evidence, [...c.exchanges].sort()]), s.exchanges.map((ex) => ex.id).sort()];
    expect(shown(b)).toEqual(shown(a));
    // Neither shard nor a part of shards is a run: duplicates, gaps and strangers are refused.
    for (const [dirs, why] of [
      [[one, one], /are both shard 1\/2/], [[one], /shard 2 of 2 is missing/], [[one, whole], /is not a shard of a run/],
    ] as const) {
      const r = await runProgram('cli/report', ['--merge', ...dirs, '--report-dir', reports()]);
      expect([r.code, r.stderr], dirs.join()).toEqual([2, expect.stringMatching(why)]);
    }
  });

  it('a shard without probes, of a conformant target, exits 0: its checks left without evidence await the merge', async () => {
    const dir = reports();
    const r = await runCli([...LEAN, ...PATIENT, '--base-url', plain.url, '--accounts', accounts(20), '--shard', '2/2', '--report-dir', dir, '--quiet']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/! shard 2\/2: one part of a run/);
    const route = summaryOf(dir).checks.find((c: { id: string }) => c.id === 'ROUTE-LOGIN-REPLY');
    expect(route).toMatchObject({ status: 'skipped', message: 'no exchange of its kind in shard 2/2 (the merged report judges it)' });
  });

  it('a shard without --accounts, or not I/N, is refused in one line', async () => {
    const r = await runCli([...LEAN, '--shard', '3/2']);
    expect([r.code, r.stderr]).toEqual([2, 'conformance: --shard must be I/N with 1 <= I <= N, not "3/2"\n']);
    const s = await runCli([...LEAN, '--shard', '1/2']);
    expect([s.code, s.stderr]).toEqual([2, 'conformance: --shard divides the accounts of --accounts; there are none\n']);
  });
});
