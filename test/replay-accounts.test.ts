// replay.sh of an --accounts run (issue 26, "Reproduction that reproduces"): an account's fields that
// the contract marks sensitive (recoveryToken a credential; userName, searchValues, verifyEmail
// personal data) are masked in every report, so the script holds none of them: each is a shell
// variable named after the account's line and the field, asked for at the script's top. Set, they
// make each failed check's request reach the target as the run sent it, to the byte (a value holding
// " and \ included), and get the run's status and body SHA-256 again. The harness runs in this
// process (as `conformance --accounts FILE --shard 2/2 --reports summary` runs it): shard 2/2 holds
// the second account alone and sends no probes, so every failure is an account's request. The probes'
// request values the user supplies (LOGIN_USER_NAME, …) are such values too, named as given.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, shardOptions } from '../lib/cli/config.js';
import { openSession, selectedChecks, setupOf } from '../lib/cli/session.js';
import { accountRequests } from '../lib/engine/accounts.js';
import { runConformance } from '../lib/engine/run.js';
import { startReference, type ReceivedRequest, type RunningReference } from '../lib/reference/server.js';
import { FAULTS } from '../lib/reference/variants.js';
import { REPLAY_FILE } from '../lib/reporting/replay-script.js';

/** The second account's values: what replay.sh must never hold, and what the user sets. */
const ACCOUNT = {
  SupportStateUserLoginRequest: { userName: 'alice.w0nderland', searchValues: 's3arch-one' },
  ConfirmEmailRequest: { recoveryToken: 'rec"0very\\t0ken-9f8e7d', verifyEmail: 'alice.w@example.org', childId: 'c1', ownerId: 7 },
};
const VARIABLES = {
  ACCOUNT_2_LOGIN_USER_NAME: ACCOUNT.SupportStateUserLoginRequest.userName,
  ACCOUNT_2_LOGIN_SEARCH_VALUES: ACCOUNT.SupportStateUserLoginRequest.searchValues,
  ACCOUNT_2_CONFIRM_RECOVERY_TOKEN: ACCOUNT.ConfirmEmailRequest.recoveryToken,
  ACCOUNT_2_CONFIRM_VERIFY_EMAIL: ACCOUNT.ConfirmEmailRequest.verifyEmail,
};

interface Summary {
  checks: { id: string; level: string; status: string; evidence: { exchange: string }[] }[];
  exchanges: { id: string; status?: number; responseSha256?: string }[];
}

const sh = (script: string, env: Record<string, string>) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  // A hang guard only: the reference answers at once.
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 120_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

const received: ReceivedRequest[] = [];
let ref: RunningReference;
let dir: string;
let summary: Summary;
let script: string;
let failed: Summary['checks'];
/** By exchange id: the request as the run sent it (the engine's record, unredacted). */
let sent: Map<string, { method: string; url: string; body?: string }>;
let fromRun: number;

beforeAll(async () => {
  // A login fault and a confirm fault: both operations' sensitive fields are in replayed requests.
  ref = await startReference({
    variants: FAULTS.filter((f) => ['json-guid-dashed-at-depth', 'confirm-name-not-string'].includes(f.name)),
    observer: { ownRoute: (r) => { received.push(r); return undefined; } },
  });
  dir = mkdtempSync(join(tmpdir(), 'replay-accounts-'));
  const accounts = join(dir, 'accounts.jsonl');
  writeFileSync(accounts, `${JSON.stringify({ SupportStateUserLoginRequest: { userName: 'bob', searchValues: 's2' } })}\n${JSON.stringify(ACCOUNT)}\n`);
  const parsed = parseConfig(['--base-url', ref.url, '--report-dir', dir, '--reports', 'summary', '--quiet', '--accounts', accounts, '--shard', '2/2'], {});
  if (parsed.ok !== true) throw new Error(`configuration refused: ${JSON.stringify(parsed)}`);
  const config = parsed.config;
  const session = openSession(setupOf(config, dir, { baseUrl: ref.url, description: 'deployment' }));
  const { ca: _ca, generate: _g, ...settings } = config;
  const result = await runConformance({ ...settings, baseUrl: ref.url, checks: selectedChecks(config), extraHeaders: {},
    cases: accountRequests(accounts, {}, config.shard), ...shardOptions(config), useProxyEnv: false, ...session.engine() });
  fromRun = received.length;
  const written = await session.write(result, {});
  if (written.problems.length) throw new Error(written.problems.join('; '));
  summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
  script = join(dir, REPLAY_FILE);
  failed = summary.checks.filter((c) => c.status === 'failed');
  sent = new Map(result.exchanges.map((e) => [e.id, { method: e.request.method, url: e.request.url.slice(ref.url.length), ...(e.request.body !== undefined ? { body: e.request.body } : {}) }]));
}, 200_000);

afterAll(async () => {
  await ref?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('replay.sh of an --accounts run', () => {
  it('holds no sensitive value of the account in any spelling; each is a variable asked for at its top (mode 0600)', () => {
    expect(failed.map((c) => [c.id, c.evidence[0]!.exchange]).sort()).toEqual([['JSON-GUID', 'case-2.login'], ['JSON-STRING', 'case-2.confirm']]);
    const text = readFileSync(script, 'utf8');
    expect(statSync(script).mode & 0o777).toBe(0o600);
    for (const value of Object.values(VARIABLES)) {
      for (const spelling of [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), Buffer.from(value).toString('base64')]) expect(text).not.toContain(spelling);
    }
    const asked = text.split('\n').filter((l) => l.startsWith(': "${'));
    expect(asked).toEqual([
      ': "${ACCOUNT_2_CONFIRM_RECOVERY_TOKEN?set ACCOUNT_2_CONFIRM_RECOVERY_TOKEN to ConfirmEmailRequest.recoveryToken of the account on line 2 of the --accounts file}"',
      ': "${ACCOUNT_2_CONFIRM_VERIFY_EMAIL?set ACCOUNT_2_CONFIRM_VERIFY_EMAIL to ConfirmEmailRequest.verifyEmail of the account on line 2 of the --accounts file}"',
      ': "${ACCOUNT_2_LOGIN_USER_NAME?set ACCOUNT_2_LOGIN_USER_NAME to SupportStateUserLoginRequest.userName of the account on line 2 of the --accounts file}"',
      ': "${ACCOUNT_2_LOGIN_SEARCH_VALUES?set ACCOUNT_2_LOGIN_SEARCH_VALUES to SupportStateUserLoginRequest.searchValues of the account on line 2 of the --accounts file}"',
    ]);
    expect(text).not.toMatch(/not replayed/);
  });

  it('with the variables set, re-sends each failed check\'s request byte for byte and gets the run\'s status and body SHA-256 again', async () => {
    const r = await sh(script, VARIABLES);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(failed.length);
    for (const c of failed) {
      const ex = summary.exchanges.find((e) => e.id === c.evidence[0]!.exchange)!;
      expect(lines).toContain(`${c.id} (${c.level}) ${ex.id}: ${ex.status} sha256 ${ex.responseSha256} (as in the run)`);
    }
    const replayed = received.slice(fromRun);
    expect(replayed).toHaveLength(failed.length);
    failed.forEach((c, i) => {
      const got = replayed[i]!;
      expect({ method: got.method, url: got.url, body: got.body }, c.id).toEqual(sent.get(c.evidence[0]!.exchange));
    });
  });

  it('without them, stops before sending anything, naming the first variable', async () => {
    const before = received.length;
    const r = await sh(script, {});
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/ACCOUNT_2_CONFIRM_RECOVERY_TOKEN: set ACCOUNT_2_CONFIRM_RECOVERY_TOKEN to ConfirmEmailRequest\.recoveryToken of the account on line 2 of the --accounts file\n$/);
    expect(received.length).toBe(before);
  });
});

describe('replay.sh of a probe run given its login values (LOGIN_USER_NAME, LOGIN_SEARCH_VALUES)', () => {
  it('asks for them by the names they were given in and, set, gets the run\'s answer again', async () => {
    const values = { LOGIN_USER_NAME: 'carol.qu1nn', LOGIN_SEARCH_VALUES: 'z"z\\9' };
    const probeDir = mkdtempSync(join(tmpdir(), 'replay-probes-'));
    try {
      const parsed = parseConfig(['--base-url', ref.url, '--report-dir', probeDir, '--reports', 'summary', '--quiet', '--only', 'JSON-GUID'], values);
      if (parsed.ok !== true) throw new Error(`configuration refused: ${JSON.stringify(parsed)}`);
      const session = openSession(setupOf(parsed.config, probeDir, { baseUrl: ref.url, description: 'deployment' }));
      const { ca: _ca, generate: _g, ...settings } = parsed.config;
      const result = await runConformance({ ...settings, baseUrl: ref.url, checks: selectedChecks(parsed.config), extraHeaders: {}, ...shardOptions(parsed.config), useProxyEnv: false, ...session.engine() });
      await session.write(result, {});
      const text = readFileSync(join(probeDir, REPLAY_FILE), 'utf8');
      for (const value of Object.values(values)) expect(text).not.toContain(value);
      expect(text.split('\n').filter((l) => l.startsWith(': "${'))).toEqual([
        ': "${LOGIN_USER_NAME?set LOGIN_USER_NAME to the SupportStateUserLoginRequest.userName the run was given in LOGIN_USER_NAME}"',
        ': "${LOGIN_SEARCH_VALUES?set LOGIN_SEARCH_VALUES to the SupportStateUserLoginRequest.searchValues the run was given in LOGIN_SEARCH_VALUES}"',
      ]);
      const probeSummary = JSON.parse(readFileSync(join(probeDir, 'summary.json'), 'utf8')) as Summary;
      const guid = probeSummary.checks.find((c) => c.id === 'JSON-GUID')!;
      const ex = probeSummary.exchanges.find((e) => e.id === guid.evidence[0]!.exchange)!;
      const r = await sh(join(probeDir, REPLAY_FILE), values);
      expect([r.code, r.stderr, r.stdout]).toEqual([0, '', `JSON-GUID (MUST) ${ex.id}: ${ex.status} sha256 ${ex.responseSha256} (as in the run)\n`]);
    } finally {
      rmSync(probeDir, { recursive: true, force: true });
    }
  });
});
