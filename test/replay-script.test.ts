// replay.sh (issue 26, "Reproduction that reproduces"): beside the reports, mode 0600, it re-sends
// each failed check's request as the harness sent it and gets the run's answer again; a --header
// value is a shell variable the script asks for, and is not in the file.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readReport } from '../lib/cli/write-reports.js';
import { FAULTS } from '../lib/reference/variants.js';
import { replayScript } from '../lib/reporting/replay-script.js';
import { runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const FAULTY = ['json-guid-dashed-at-depth', 'two-members-swapped', 'callback-renamed', 'soap-format-query-refused', 'record-wrong-namespace'];
const faulty = useReference({ variants: FAULTS.filter((f) => FAULTY.includes(f.name)) });
const SECRET = 'k3y-0f-the-us3r-9f8e7d';
const generating = useReference({ variants: FAULTS.filter((f) => f.name === 'apostrophe-500') });

interface Summary {
  checks: { id: string; level: string; status: string; evidence: { exchange: string }[]; shrunk?: { exchange: string } }[];
  exchanges: { id: string; status?: number; responseSha256?: string }[];
}

const sh = (script: string, env: Record<string, string>) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 120_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

let dir: string;
let summary: Summary;
let script: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'replay-script-'));
  const r = await runCli(['--base-url', faulty.url, '--report-dir', dir, '--reports', 'summary', '--header', `X-Api-Key: ${SECRET}`]);
  expect(r.code).toBe(1);
  summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
  script = join(dir, 'replay.sh');
}, 200_000);

describe('replay.sh', () => {
  it('is mode 0600 and holds no --header value: it asks for HEADER_X_API_KEY at its top', () => {
    expect(statSync(script).mode & 0o777).toBe(0o600);
    const text = readFileSync(script, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text.split('\n').slice(0, 8).join('\n')).toContain(': "${HEADER_X_API_KEY?set HEADER_X_API_KEY to the value of the --header x-api-key}"');
    expect(text).toContain(`-H "$(field 'x-api-key' "$HEADER_X_API_KEY")"`);
    expect(text).not.toMatch(/«/);
  });

  it('re-sends every failed check\'s request and gets the run\'s status and body SHA-256 again', async () => {
    const failed = summary.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id)).toEqual(expect.arrayContaining(['FORMAT-SOAP11-QUERY', 'JSON-GUID', 'JSONP-CALLBACK', 'SOAP-ORDER']));
    const r = await sh(script, { HEADER_X_API_KEY: SECRET });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(failed.length);
    for (const c of failed) {
      const ex = summary.exchanges.find((e) => e.id === c.evidence[0]!.exchange)!;
      expect(lines, c.id).toContain(`${c.id} (${c.level}) ${ex.id}: ${ex.status} sha256 ${ex.responseSha256} (as in the run)`);
    }
  });

  it('rebuilt from a summary.json whose curls have no bounds (written before they had), still re-sends every failed check\'s request', async () => {
    const old = mkdtempSync(join(tmpdir(), 'replay-script-unbounded-'));
    for (const file of ['summary.json', 'exchanges.json']) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text).toContain('curl -sS --connect-timeout 10 --max-time 30 -i ');
      writeFileSync(join(old, file), text.replaceAll('curl -sS --connect-timeout 10 --max-time 30 -i ', 'curl -sS -i '));
    }
    writeFileSync(join(old, 'replay.sh'), replayScript(readReport(old)));
    const [before, after] = [await sh(script, { HEADER_X_API_KEY: SECRET }), await sh(join(old, 'replay.sh'), { HEADER_X_API_KEY: SECRET })];
    expect(after.stdout).toMatch(/\(as in the run\)\n$/);
    expect([after.code, after.stderr, after.stdout]).toEqual([0, '', before.stdout]);
  });

  it('refuses to run without the secret, naming the variable', async () => {
    const r = await sh(script, {});
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/HEADER_X_API_KEY: set HEADER_X_API_KEY to the value of the --header x-api-key/);
    expect(r.stdout).toBe('');
  });
});

describe('replay.sh of a generated failure', () => {
  it('re-sends the smallest failing request of a generated run, as sent, and gets its 500 again', async () => {
    const gen = mkdtempSync(join(tmpdir(), 'replay-script-gen-'));
    const r = await runCli(['--base-url', generating.url, '--report-dir', gen, '--reports', 'summary', '--generate', '30', '--seed', '1', '--header', `X-Api-Key: ${SECRET}`]);
    expect(r.code).toBe(0); // a SHOULD failure only
    const s = JSON.parse(readFileSync(join(gen, 'summary.json'), 'utf8')) as Summary;
    const failed = s.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id)).toEqual(['ROBUST-NO-5XX']);
    const ex = s.exchanges.find((e) => e.id === failed[0]!.shrunk!.exchange)!;
    expect(ex.status).toBe(500);
    const out = await sh(join(gen, 'replay.sh'), { HEADER_X_API_KEY: SECRET });
    expect([out.code, out.stderr, out.stdout]).toEqual([0, '', `ROBUST-NO-5XX (SHOULD) ${ex.id}: 500 sha256 ${ex.responseSha256} (as in the run)\n`]);
  }, 200_000);
});
