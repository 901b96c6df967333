// replay.sh holds every failure that reaches the verdict. A differential run fails (exit 1) on a
// difference from the legacy alone: the script re-sends the request of each differing path's first
// example to the legacy, then to the candidate, each beside what the run got from that side, with
// the run's secrets as variables (never written). And every curl in it is bounded by the run's
// --timeout: a target that never answers is "no answer", not a replay that hangs; so is each curl of
// summary.json, copied and run by hand.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReport } from '../lib/cli/write-reports.js';
import { VALUE_FAULTS } from '../lib/reference/value-faults.js';
import { junitXml } from '../lib/reporting/junit.js';
import { escapeText } from '../lib/xml/write.js';
import { FAULTS } from '../lib/reference/variants.js';
import { runCli, type CliRun } from './helpers/cli.js';
import { startHostile, type Hostile } from './helpers/hostile.js';
import { useReference } from './helpers/reference.js';

const legacy = useReference({});
const candidate = useReference({ variants: VALUE_FAULTS.filter((f) => f.name === 'role-dropped') });
const SECRET = 'k3y-0f-the-d1ff-run-4c5b';
// Shard 2/2 of two accounts sends the second account's requests alone (no probes): every difference is
// shown by its request, whose sensitive values are the script's variables.
const ACCOUNTS = [{ userName: 'alice.d1ff', searchValues: 's3arch-one' }, { userName: 'carol.d1ff', searchValues: 's3arch-two' }];
const VARIABLES = { ACCOUNT_2_LOGIN_USER_NAME: 'carol.d1ff', ACCOUNT_2_LOGIN_SEARCH_VALUES: 's3arch-two' };

interface Summary {
  checks: { status: string }[];
  exchanges: { id: string; status?: number; responseSha256?: string; url: string }[];
  differential: { differences: number; paths: { operation: string; path: string; shownBy?: { legacy: string; candidate: string } }[] };
}

// A hang guard only: with bounded curls a script or command ends well within it.
const sh = (args: readonly string[], env: Record<string, string>) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', args, { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

describe('replay.sh of a differential run', () => {
  let dir: string;
  let summary: Summary;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'replay-differences-'));
    const accounts = join(dir, 'accounts.jsonl');
    writeFileSync(accounts, ACCOUNTS.map((a) => `${JSON.stringify({ SupportStateUserLoginRequest: a })}\n`).join(''));
    const r = await runCli(['--base-url', candidate.url, '--legacy-url', legacy.url, '--accounts', accounts, '--shard', '2/2', '--header', `X-Api-Key: ${SECRET}`,
      '--report-dir', join(dir, 'out'), '--quiet', '--reports', 'summary']);
    expect(r.code, r.stderr).toBe(1);
    summary = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8')) as Summary;
  }, 200_000);

  it('fails on differences alone, and names the exchanges of each differing path\'s first example', () => {
    expect(summary.checks.filter((c) => c.status === 'failed')).toEqual([]);
    expect(summary.differential.differences).toBeGreaterThan(0);
    expect(summary.differential.paths.map((p) => `${p.operation} ${p.path}`)).toEqual(['SupportStateUserLoginRequest roles']);
    for (const p of summary.differential.paths) {
      expect(p.shownBy, p.path).toBeDefined();
      const ids = summary.exchanges.map((e) => e.id);
      expect(ids).toEqual(expect.arrayContaining([p.shownBy!.legacy, p.shownBy!.candidate]));
    }
  });

  it('junit.xml\'s failure for each differing path gives the curl of its first example, to the legacy and to the candidate', () => {
    const report = readReport(join(dir, 'out'));
    const junit = junitXml(report);
    const curlOf = (id: string) => report.exchanges.find((e) => e.id === id)!.curl;
    for (const p of summary.differential.paths) {
      const failure = new RegExp(`name="${p.operation} ${p.path} differs from the legacy"[^]*?<failure[^>]*>([^]*?)</failure>`).exec(junit)![1]!;
      expect(failure, p.path).toContain(escapeText(`replay (to the legacy): ${curlOf(p.shownBy!.legacy)}\nreplay (to the candidate): ${curlOf(p.shownBy!.candidate)}`));
    }
  });

  it('the Allure result (report.html) of each differing path attaches the curl of its first example, to the legacy and to the candidate', async () => {
    const out = join(dir, 'allure');
    const r = await runCli(['--base-url', candidate.url, '--legacy-url', legacy.url, '--report-dir', out, '--quiet', '--reports', 'summary,allure']);
    expect(r.code, r.stderr).toBe(1);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Omit<Summary, 'exchanges'> & { exchanges: { id: string; curl: string }[] };
    const results = join(out, 'allure-results');
    // allure-vitest writes each attachment as a step of its own.
    type Attachment = { name: string; source: string };
    type Result = { name: string; attachments: Attachment[]; steps?: { attachments: Attachment[] }[]; statusDetails?: { message?: string } };
    const all = readdirSync(results).filter((f) => f.endsWith('-result.json')).map((f) => JSON.parse(readFileSync(join(results, f), 'utf8')) as Result);
    expect(s.differential.paths.length).toBeGreaterThan(0);
    for (const p of s.differential.paths) {
      const result = all.find((x) => x.name === `${p.operation} ${p.path} differs from the legacy`)!;
      for (const [side, id] of [['legacy', p.shownBy!.legacy], ['candidate', p.shownBy!.candidate]]) {
        const name = `${id} replay (curl, to the ${side})`;
        const attachment = [...result.attachments, ...(result.steps ?? []).flatMap((x) => x.attachments)].find((a) => a.name === name);
        expect(attachment, name).toBeDefined();
        expect(readFileSync(join(results, attachment!.source), 'utf8'), name).toBe(s.exchanges.find((e) => e.id === id)!.curl);
        expect(result.statusDetails?.message).toContain(`replay: the attachment "${name}"`);
      }
    }
  }, 200_000);

  it('holds no secret and no account value: it asks for HEADER_X_API_KEY and the account\'s sensitive fields', () => {
    const text = readFileSync(join(dir, 'out', 'replay.sh'), 'utf8');
    for (const v of [SECRET, ...Object.values(VARIABLES)]) expect(text).not.toContain(v);
    expect(text).toContain(': "${HEADER_X_API_KEY?set HEADER_X_API_KEY to the value of the --header x-api-key}"');
    for (const v of Object.keys(VARIABLES)) expect(text).toContain(`: "\${${v}?set ${v} to `);
    expect(text).not.toContain('no failed check to replay');
  });

  it('re-sends each difference\'s request to the legacy and to the candidate and gets each side\'s status and SHA-256 again, which differ', async () => {
    const r = await sh([join(dir, 'out', 'replay.sh')], { HEADER_X_API_KEY: SECRET, ...VARIABLES });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.trim().split('\n');
    const byId = new Map(summary.exchanges.map((e) => [e.id, e]));
    const pairs = new Map<string, { operation: string; paths: string[]; legacy: string; candidate: string }>();
    for (const p of summary.differential.paths) {
      const key = `${p.shownBy!.legacy} ${p.shownBy!.candidate}`;
      const at = pairs.get(key) ?? pairs.set(key, { operation: p.operation, paths: [], ...p.shownBy! }).get(key)!;
      at.paths.push(p.path);
    }
    expect(lines).toHaveLength(2 * pairs.size);
    for (const d of pairs.values()) {
      const l = byId.get(d.legacy)!;
      const c = byId.get(d.candidate)!;
      expect(l.url.startsWith(legacy.url) && c.url.startsWith(candidate.url)).toBe(true);
      expect(l.responseSha256).not.toBe(c.responseSha256);
      const label = `differs from the legacy: ${d.operation} ${d.paths.join(', ')} ${d.candidate}`;
      expect(lines).toContain(`${label}, to the legacy: ${l.status} sha256 ${l.responseSha256} (as in the run)`);
      expect(lines).toContain(`${label}, to the candidate: ${c.status} sha256 ${c.responseSha256} (as in the run)`);
    }
  });
});

describe('replay.sh of a differential run whose legacy fails checks the candidate passes', () => {
  // text/xml for SOAP: the legacy fails ROUTE-SOAP-POST and FORMAT-SOAP11-QUERY, and no value differs
  // (both media types are XML), so nothing but its own failures could replay those requests.
  const faultyLegacy = useReference({ variants: FAULTS.filter((f) => f.name === 'soap-text-xml') });

  it('names, for each failed legacy check, the exchange sent to the legacy, and re-sends it there with the run\'s status and SHA-256', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-legacy-failed-'));
    const r = await runCli(['--base-url', legacy.url, '--legacy-url', faultyLegacy.url, '--report-dir', dir, '--quiet', '--reports', 'summary']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary & { differential: { legacy: { failed: { id: string; level: string; exchange?: string }[] } } };
    expect(s.differential.differences).toBe(0);
    const failed = s.differential.legacy.failed;
    expect(failed.map((f) => f.id).sort()).toEqual(['FORMAT-SOAP11-QUERY', 'ROUTE-SOAP-POST']);
    const out = await sh([join(dir, 'replay.sh')], {});
    expect([out.code, out.stderr]).toEqual([0, '']);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toHaveLength(failed.length);
    for (const f of failed) {
      const ex = s.exchanges.find((e) => e.id === f.exchange)!;
      expect(ex.url.startsWith(faultyLegacy.url), f.id).toBe(true);
      expect(lines).toContain(`the legacy's ${f.id} (${f.level}) ${ex.id}: ${ex.status} sha256 ${ex.responseSha256} (as in the run)`);
    }
  }, 200_000);
});

describe('replay commands against a target that never answers', () => {
  let silent: Hostile;
  let dir: string;
  let cli: CliRun;
  beforeAll(async () => {
    silent = await startHostile('silent');
    dir = mkdtempSync(join(tmpdir(), 'replay-silent-'));
    cli = await runCli(['--base-url', silent.url, '--timeout', '300', '--only', 'ROUTE-LOGIN-POST', '--report-dir', dir, '--quiet', '--reports', 'summary']);
  }, 200_000);
  afterAll(async () => { await silent.close(); });

  it('replay.sh bounds each curl by the run\'s --timeout (connect within it, the whole within 3 times it): every request ends as "no answer"', async () => {
    expect(cli.code, cli.stderr).toBe(1);
    const script = join(dir, 'replay.sh');
    // Run first: unbounded, the script would hang on the first curl until the hang guard killed it.
    const run = await sh([script], {});
    const text = readFileSync(script, 'utf8');
    const curls = text.split('\n').filter((l) => l.startsWith('{ curl '));
    expect(curls.length).toBeGreaterThan(0);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(curls.length);
    for (const l of lines) expect(l).toMatch(/^ROUTE-LOGIN-POST \(MUST\) [\w.-]+: no answer sha256 - \(as in the run\)$/);
    expect(run.stderr).toMatch(/curl: \(28\)/);
    expect(text).toContain('connect_timeout=${REPLAY_CONNECT_TIMEOUT:-0.3}');
    expect(text).toContain('max_time=${REPLAY_MAX_TIME:-0.9}');
    for (const l of curls) expect(l).toContain('curl -sS --connect-timeout "$connect_timeout" --max-time "$max_time" ');
  }, 200_000);

  it('summary.json\'s curls have the same bounds: each failed check\'s replay, run as copied, ends in curl\'s timeout (exit 28) instead of hanging', async () => {
    expect(cli.code, cli.stderr).toBe(1);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: { status: string; replay?: string }[]; exchanges: { curl: string }[] };
    const replays = summary.checks.filter((c) => c.status === 'failed').map((c) => c.replay ?? '');
    expect(replays.length).toBeGreaterThan(0);
    for (const command of [...replays, ...summary.exchanges.map((e) => e.curl)]) expect(command).toMatch(/^curl -sS --connect-timeout 0\.3 --max-time 0\.9 -i -X /);
    for (const command of replays) {
      const run = await sh(['-c', command], {});
      expect([run.code, run.stderr]).toEqual([28, expect.stringMatching(/^curl: \(28\) /)]);
    }
  }, 200_000);
});
