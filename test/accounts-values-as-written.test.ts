// An --accounts file's values reach the target exactly as the user wrote them: each JSON Lines
// record's text is the request body byte for byte (a number's lexeme such as -0, a string's escapes,
// the spacing), a CSV row's integer cells keep their lexeme, and the curl lines and replay.sh the
// reports write send those same bytes. A value the contract cannot carry as written (an integer
// written with a fraction or an exponent, a leading zero in a CSV cell) stops the run in one line
// naming the file, line and field. (Account values only ever travel in JSON bodies: the one SOAP
// operation, ImpersonateLogoutRequest, has no fields, and an accounts line cannot name it.) A probe's
// value given in the environment (CONFIRM_OWNER_ID=-0) is sent as given too.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, shardOptions } from '../lib/cli/config.js';
import { openSession, selectedChecks, setupOf } from '../lib/cli/session.js';
import { accountRequests, validateAccounts } from '../lib/engine/accounts.js';
import { planProbes } from '../lib/engine/probes.js';
import { runConformance } from '../lib/engine/run.js';
import { startReference, type ReceivedRequest, type RunningReference } from '../lib/reference/server.js';
import { FAULTS } from '../lib/reference/variants.js';
import { REPLAY_FILE } from '../lib/reporting/replay-script.js';

/** Each line's records, as written: what each request body must be. Only non-sensitive fields carry
 *  the spellings, so the curl lines show them (a sensitive one is masked there). */
const CONFIRM_1 = String.raw`{"ownerId":-0,"childId":"a\u00e9\/\"b\\c","dataForMM":"\ud83d\ude00\tx","systemCode":"Unspecified"}`;
const LOGIN_2 = String.raw`{ "userName" : "bob" ,"searchValues":"s2" }`;
const CONFIRM_2 = String.raw`{ "ownerId" : -2147483648 , "isForMM" : false, "childId" : "\u0041\u002F" }`;
const JSONL = [
  `{"ConfirmEmailRequest":${CONFIRM_1}}`,
  `{ "SupportStateUserLoginRequest" : ${LOGIN_2} , "ConfirmEmailRequest":\t${CONFIRM_2}}`,
];
/** A CSV row: -0 stays -0; the strings become JSON strings of exactly their text. */
const CSV = ['ConfirmEmailRequest.ownerId,ConfirmEmailRequest.childId,ConfirmEmailRequest.isForMM', '-0,"q""\\u00e9",true'];
const CSV_BODY = String.raw`{"ownerId":-0,"childId":"q\"\\u00e9","isForMM":true}`;

const received: ReceivedRequest[] = [];
let ref: RunningReference;
let work: string;

const sh = (script: string, env: Record<string, string> = {}) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', ACCOUNT_2_LOGIN_USER_NAME: 'bob', ACCOUNT_2_LOGIN_SEARCH_VALUES: 's2', ...env }, timeout: 120_000 },
    (e, stdout, stderr) => resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

/** Runs the accounts in `name` against the reference in this process, writing summary and replay.sh. */
async function run(name: string, lines: readonly string[]) {
  const dir = mkdtempSync(join(work, 'r-'));
  const accounts = join(work, name);
  writeFileSync(accounts, `${lines.join('\n')}\n`);
  const parsed = parseConfig(['--base-url', ref.url, '--report-dir', dir, '--reports', 'summary', '--quiet', '--accounts', accounts, '--shard', '2/2'], {});
  if (parsed.ok !== true) throw new Error(`configuration refused: ${JSON.stringify(parsed)}`);
  const config = parsed.config;
  const session = openSession(setupOf(config, dir, { baseUrl: ref.url, description: 'deployment' }));
  const { ca: _ca, generate: _g, ...settings } = config;
  const from = received.length;
  // As shard 2/2 the run sends no probe (only shard 1 does); every account of the file is sent.
  const result = await runConformance({ ...settings, baseUrl: ref.url, checks: selectedChecks(config), extraHeaders: {},
    cases: accountRequests(accounts, {}, { index: 1, count: 1 }), ...shardOptions(config), useProxyEnv: false, ...session.engine() });
  const sent = received.slice(from).map((r) => `${r.url} ${r.body ?? ''}`);
  const written = await session.write(result, {});
  if (written.problems.length) throw new Error(written.problems.join('; '));
  return { dir, sent, summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: { id: string; status: string; replay?: string }[] } };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'accounts-as-written-'));
  // Every answer to a confirm fails a check: each confirm request is in a curl line and replay.sh.
  ref = await startReference({ variants: FAULTS.filter((f) => f.name === 'confirm-name-not-string'), observer: { ownRoute: (r) => { received.push(r); return undefined; } } });
}, 60_000);
afterAll(async () => {
  await ref?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('an accounts file\'s values are sent as written', () => {
  it('JSON Lines: each request body is the record\'s text on its line, byte for byte (-0, escapes, spacing)', async () => {
    const { sent } = await run('accounts.jsonl', JSONL);
    expect(sent.sort()).toEqual([
      `/supportstateuser ${LOGIN_2}`,
      `/user/confirmemail ${CONFIRM_1}`,
      `/user/confirmemail ${CONFIRM_2}`,
    ].sort());
  }, 120_000);

  it('CSV: an integer cell keeps its lexeme (-0), a string cell is the JSON string of its text', async () => {
    const { sent } = await run('accounts.csv', CSV);
    expect(sent).toEqual([`/user/confirmemail ${CSV_BODY}`]);
  }, 120_000);

  it('the curl line of a failed check, and replay.sh, send the bytes the run sent', async () => {
    const { dir, sent, summary } = await run('replayed.jsonl', [JSONL[0]!]);
    const failed = summary.checks.filter((c) => c.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    const quoted = `'${CONFIRM_1.replace(/'/g, `'\\''`)}'`;
    for (const c of failed) expect(c.replay, c.id).toContain(` --data-binary ${quoted} `);
    // exchanges.json (written with summary.json): the request's text and curl command as shown.
    const shown = (JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { id: string; request: string; curl: string }[]).find((e) => e.id === 'case-1.confirm')!;
    expect(shown.request).toContain(`\n\n${CONFIRM_1}`);
    expect(shown.curl).toContain(` --data-binary ${quoted} `);
    const from = received.length;
    const r = await sh(join(dir, REPLAY_FILE));
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(received.slice(from).map((x) => `${x.url} ${x.body ?? ''}`)).toEqual(failed.map(() => sent[0]));
  }, 120_000);

  it('replay.sh asks for a masked value the file wrote with escapes as written there, and sends the bytes the run sent', async () => {
    // recoveryToken is a credential: masked in every report, and a variable in replay.sh.
    const line = String.raw`{"ConfirmEmailRequest":{"recoveryToken":"r\u0022t\/k","ownerId":1}}`;
    const { dir, sent, summary } = await run('respelled.jsonl', [line]);
    const failed = summary.checks.filter((c) => c.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    const text = readFileSync(join(dir, REPLAY_FILE), 'utf8');
    expect(text).toContain('set ACCOUNT_1_CONFIRM_RECOVERY_TOKEN to ConfirmEmailRequest.recoveryToken of the account on line 1 of the --accounts file, as the file writes it between its quotes (its JSON escapes kept)');
    expect(text).not.toMatch(/r.u0022t|t.\/k|r"t\/k/);
    const from = received.length;
    const r = await sh(join(dir, REPLAY_FILE), { ACCOUNT_1_CONFIRM_RECOVERY_TOKEN: String.raw`r\u0022t\/k` });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(received.slice(from).map((x) => `${x.url} ${x.body ?? ''}`)).toEqual(failed.map(() => sent[0]));
    expect(sent[0]).toBe(`/user/confirmemail ${line.slice('{"ConfirmEmailRequest":'.length, -1)}`);
  }, 120_000);
});

describe('a value the contract cannot carry as written stops the run in one line', () => {
  const refusal = async (name: string, lines: readonly string[]) => {
    const path = join(work, name);
    writeFileSync(path, `${lines.join('\n')}\n`);
    const valid = await validateAccounts(path);
    return 'error' in valid ? valid.error.slice(path.length + 1) : `accepted: ${valid.cases} accounts`;
  };
  const FRACTION = 'ConfirmEmailRequest.ownerId: expected an integer literal (no fraction or exponent)';
  const cases: [string, string][] = [
    ['1.0', FRACTION],
    ['1e2', FRACTION],
    ['1E+2', FRACTION],
    ['-0.0', FRACTION],
    ['0.1000000000000000055511151231257827', FRACTION],
    ['12345678901234567890', 'ConfirmEmailRequest.ownerId: outside the 32-bit range of a .NET int'],
  ];
  for (const [lexeme, message] of cases) {
    it(`ownerId written ${lexeme}: refused, naming line and field`, async () => {
      expect(await refusal(`n-${lexeme}.jsonl`, ['{"ConfirmEmailRequest":{"ownerId":7}}', `{"ConfirmEmailRequest":{"ownerId":${lexeme}}}`])).toBe(`line 2: ${message}`);
    });
  }

  it('a number where the field is a string: refused, naming line and field', async () => {
    expect(await refusal('n-string.jsonl', ['{"ConfirmEmailRequest":{"childId":12345678901234567890}}'])).toBe('line 1: ConfirmEmailRequest.childId: expected a string');
  });

  it('CSV: an integer cell with a leading zero (no JSON number, and 7 is not what was written) is refused, naming line and field', async () => {
    for (const cell of ['007', '-00', '00']) {
      expect(await refusal(`c-${cell}.csv`, ['ConfirmEmailRequest.ownerId', '1', cell]), cell).toBe('line 3: ConfirmEmailRequest.ownerId must be a 32-bit integer written without a leading zero');
    }
    for (const cell of ['+7', '1.0', '1e2']) expect(await refusal(`c-${cell}.csv`, ['ConfirmEmailRequest.ownerId', '1', cell]), cell).toBe('line 3: ConfirmEmailRequest.ownerId must be a 32-bit integer');
  });
});

describe('a probe\'s request values from the environment are sent as given', () => {
  it('CONFIRM_OWNER_ID=-0: every confirm probe\'s body writes -0', () => {
    const parsed = parseConfig([], { CONFIRM_OWNER_ID: '-0', CONFIRM_CHILD_ID: 'c"\\1' });
    if (parsed.ok !== true) throw new Error(`configuration refused: ${JSON.stringify(parsed)}`);
    const bodies = planProbes({ namespaces: parsed.config.namespaces, values: parsed.config.values, extraHeaders: {} })
      .filter((p) => p.path.startsWith('/user/confirmemail') && p.body !== undefined).map((p) => JSON.parse(p.body!.replace('"ownerId":-0', '"ownerId":"-0"')) as Record<string, unknown>);
    expect(bodies.length).toBeGreaterThan(0);
    for (const b of bodies) expect([b.ownerId, b.childId]).toEqual(['-0', 'c"\\1']);
  });
});
