// The differential run through the CLI, as CI runs it: exit codes, the verdict's words the same in
// every output (verdict-modes.test.ts holds every other mode to it), the differences section in every
// output, personal and credential values only as markers, one-line errors for bad input.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceUserDetails } from '../lib/reference/data.js';
import { FAULTS } from '../lib/reference/variants.js';
import { RANDOM_TOKENS, VALUE_FAULTS } from '../lib/reference/value-faults.js';
import { LEAN, runCli, runProgram, WITHOUT_HTML } from './helpers/cli.js';
import { startHostile } from './helpers/hostile.js';
import { files, readable } from './helpers/outputs.js';
import { SOAP_REQUEST, useReference } from './helpers/reference.js';
import { expectOneVerdict, verdictsIn } from './helpers/verdict-words.js';

const reports = () => mkdtempSync(join(tmpdir(), 'differential-cli-'));
const fault = (name: string) => VALUE_FAULTS.find((f) => f.name === name)!;
const summary = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));

const legacy = useReference({ variants: [RANDOM_TOKENS] });
const same = useReference({ variants: [RANDOM_TOKENS] });
// birthDate is personal data: its examples must show as markers only.
const shifted = useReference({ variants: [RANDOM_TOKENS, fault('datetime-shifted-day')] });
// A value a terminal would act on (CSI, the one-byte C1 form of ESC [, clears the screen; a bidi
// override reverses the line), legal in XML 1.0 so both wires carry it, in a member that is not
// sensitive, so its example shows the value: escaped, never raw.
const HOSTILE = '\u009b2J \u202e <script>alert(1)</script>';
const hostile = useReference({ userDetails: { ...referenceUserDetails(), company: HOSTILE } });
const plain = useReference({});
// OPTIONS answered 405: OPTIONS-ALLOWS-POST (SHOULD) fails there.
const optionsRefused = useReference({ variants: FAULTS.filter((f) => f.name === 'login-options-refused') });

describe('conformance --legacy-url', () => {
  it('the legacy\'s verdict beside is reached with the run\'s gate: its failed SHOULD check makes it non-conformant under --fail-on should only', async () => {
    const legacyVerdict = async (gate: string) => {
      const dir = reports();
      await runCli(['--base-url', plain.url, '--legacy-url', optionsRefused.url, '--only', 'OPTIONS-ALLOWS-POST,JSON-STRING', '--fail-on', gate, '--report-dir', dir, '--quiet', ...LEAN]);
      const d = summary(dir).differential as { legacy: { verdict: string; failed: { id: string }[] } };
      return [d.legacy.verdict, d.legacy.failed.map((f) => f.id)];
    };
    expect(await Promise.all([legacyVerdict('should'), legacyVerdict('must')])).toEqual([['non-conformant', ['OPTIONS-ALLOWS-POST']], ['conformant', ['OPTIONS-ALLOWS-POST']]]);
  });

  it('exits 0 when the candidate answers as the legacy does, its tokens aside (noise): CONFORMANT in every output', async () => {
    const dir = reports();
    const r = await runCli(['--base-url', same.url, '--legacy-url', legacy.url, '--report-dir', dir, '--quiet', '--reports', 'summary,traceability,junit']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectOneVerdict(dir, r.stdout, r.code, 'CONFORMANT', false);
    expect(r.stdout).toContain('no difference beyond noise');
    const d = summary(dir).differential;
    expect(d.differences).toBe(0);
    expect(d.noise.map((n: { path: string }) => n.path)).toContain('hxToken');
    // JUnit: a skipped test per noise path, no failing one.
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/classname="Differential" name="SupportStateUserLoginRequest hxToken is noise"[^>]*>\s*<skipped/);
    expect(junit).not.toMatch(/differs from the legacy/);
  });

  it('exits 1 on a value difference, "CONFORMANT, DIFFERS FROM LEGACY (n values)" in every output, reported per path with redacted examples in every output', async () => {
    const dir = reports();
    const r = await runCli(['--base-url', shifted.url, '--legacy-url', legacy.url, '--report-dir', dir, '--quiet', ...WITHOUT_HTML]);
    expect(r.code).toBe(1);
    const differences = (summary(dir) as { differential: { differences: number } }).differential.differences;
    expect(differences).toBeGreaterThan(1);
    expectOneVerdict(dir, r.stdout, r.code, `CONFORMANT, DIFFERS FROM LEGACY (${differences} values)`, false);
    expect(r.stderr).toContain('differs from the legacy beyond noise');
    expect(r.stdout).toMatch(/≠ SupportStateUserLoginRequest birthDate: 9 of 10 pairs/);
    expect(r.stdout).toContain('"«personal: string, 27 chars»" → "«personal: string, 27 chars»" (+1 day)');
    const d = summary(dir).differential;
    expect(d.paths.map((p: { operation: string; path: string }) => `${p.operation} ${p.path}`).sort())
      .toEqual(['ImpersonateLogoutRequest birthDate', 'SupportStateUserLoginRequest birthDate']);
    expect(d.paths[0].examples).toHaveLength(5);
    expect(d.legacy.verdict).toBe('conformant');
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/classname="Differential" name="SupportStateUserLoginRequest birthDate differs from the legacy"[^>]*>\s*<properties>.*?<\/properties>\s*<failure/);
    // Neither date (nor any token, credentials being random per answer) appears raw anywhere.
    for (const f of files(dir)) {
      const text = readable(f);
      expect(text, f).not.toContain('1985-07-14T');
      expect(text, f).not.toContain('1985-07-15T');
    }
    expect(r.stdout).not.toContain('1985-07-1');
  });

  it('shows a hostile value in an example escaped, in the console and in every report', async () => {
    const dir = reports();
    // Every output but the Allure HTML: it holds allure-results (scanned here) base64-encoded, so the
    // raw scan below could not see the character in it; the test above builds it.
    const r = await runCli(['--base-url', hostile.url, '--legacy-url', plain.url, '--report-dir', dir, '--quiet', ...WITHOUT_HTML]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/≠ SupportStateUserLoginRequest company: 9 of 10 pairs/);
    expect(r.stdout).not.toMatch(/record: /);
    expect(r.stdout).toContain('\\x9b2J \\u202e');
    expect(files(dir).filter((f) => f.includes('/allure-results/')).length).toBeGreaterThan(50);
    for (const text of [r.stdout, r.stderr, ...files(dir).map((f) => readFileSync(f, 'utf8'))]) {
      expect(text).not.toMatch(/[\u009b\u202e]/);
    }
  });

  it('replays the requests of this interface a HAR recorded (--har) to both, under a base path too; others are left out', async () => {
    const dir = reports();
    const entry = (method: string, url: string, headers: Record<string, string>, body?: string) => ({
      startedDateTime: '2026-11-25T09:00:00.000Z', time: 5,
      request: { method, url, headers: Object.entries(headers).map(([name, value]) => ({ name, value })), ...(body ? { postData: { mimeType: headers['Content-Type'], text: body } } : {}) },
      response: { status: 0, headers: [], content: {} },
    });
    const har = join(dir, 'recorded.har');
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', entries: [
      entry('POST', 'https://legacy.example/api/supportstateuser', { 'Content-Type': 'application/json', Host: 'legacy.example', 'Content-Length': '2' }, '{}'),
      entry('POST', 'https://legacy.example/api/soap11', { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: 'ImpersonateLogoutRequest' }, SOAP_REQUEST),
      entry('GET', 'https://legacy.example/favicon.ico', {}),
    ] } }));
    const r = await runCli([...LEAN, '--base-url', shifted.url, '--legacy-url', legacy.url, '--har', har, '--report-dir', dir, '--quiet']);
    expect(r.code).toBe(1);
    const s = summary(dir);
    expect(s.counts.exchanges.bySource).toEqual({ probe: 20, har: 2 });
    expect(s.differential.comparedByOperation).toEqual({ SupportStateUserLoginRequest: 11, ConfirmEmailRequest: 7, ImpersonateLogoutRequest: 4 });
    expect(s.differential.paths.map((p: { differing: number }) => p.differing).sort((a: number, b: number) => a - b)).toEqual([4, 10]);
  });

  it('sharded over accounts, its shards merge to the differences and verdict of one whole run', async () => {
    const accounts = join(reports(), 'accounts.jsonl');
    writeFileSync(accounts, `${Array.from({ length: 12 }, (_, i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}` } })).join('\n')}\n`);
    const [whole, one, two, merged] = [reports(), reports(), reports(), reports()];
    const args = [...LEAN, '--base-url', shifted.url, '--legacy-url', legacy.url, '--accounts', accounts, '--quiet'];
    const runs = await Promise.all([
      runCli([...args, '--report-dir', whole]),
      runCli([...args, '--shard', '1/2', '--report-dir', one]),
      runCli([...args, '--shard', '2/2', '--report-dir', two]),
    ]);
    // Each part finds the shifted dates in its accounts; none is "incomplete" for lack of probes.
    expect(runs.map((r) => r.stderr)).toEqual(Array(3).fill(expect.stringMatching(/^conformance: the candidate differs from the legacy beyond noise \(\d+ differing value\(s\)\)\n$/)));
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1]);
    // Only the first shard sends the probes; the accounts are split between the two.
    expect([summary(one).counts.exchanges.bySource, summary(two).counts.exchanges.bySource]).toEqual([{ probe: 20, case: 6 }, { case: 6 }]);
    const m = await runProgram('cli/report', ['--merge', one, two, '--report-dir', merged, ...LEAN]);
    expect(m.code).toBe(1);
    const [a, b] = [summary(whole), summary(merged)];
    expect(b.verdict).toBe(a.verdict);
    const differing = (s: { differential: { comparedByOperation: unknown; paths: { operation: string; path: string; differing: number; compared: number }[] } }) =>
      [s.differential.comparedByOperation, s.differential.paths.map((p) => [p.operation, p.path, p.differing, p.compared]).sort()];
    expect(differing(b)).toEqual(differing(a));
    expect(b.differential.paths.every((p: { examples: unknown[] }) => p.examples.length <= 5)).toBe(true);
    // Each merged difference replays its first example's request, kept by the shard that met it, on both sides.
    for (const p of b.differential.paths as { examples: { request: string }[]; shownBy: { legacy: string; candidate: string } }[]) {
      expect(p.shownBy.candidate).toBe(p.examples[0]!.request);
      expect(b.exchanges.map((e: { id: string }) => e.id)).toEqual(expect.arrayContaining([p.shownBy.legacy, p.shownBy.candidate]));
    }
    const replay = readFileSync(join(merged, 'replay.sh'), 'utf8');
    expect([replay.includes(`'${legacy.url}/`), replay.includes(`'${shifted.url}/`)]).toEqual([true, true]);
    expect(m.stderr).toMatch(/^report: the candidate differs from the legacy beyond noise \(\d+ differing value\(s\)\)\n$/);
    // A shard of a run without --legacy-url is no part of this one.
    const plainTwo = reports();
    await runCli([...LEAN, '--base-url', shifted.url, '--accounts', accounts, '--quiet', '--shard', '2/2', '--report-dir', plainTwo]);
    const mixed = await runProgram('cli/report', ['--merge', one, plainTwo, '--report-dir', reports()]);
    expect([mixed.code, mixed.stderr]).toEqual([2, expect.stringMatching(/^report: cannot merge: .* is not a differential run \(--legacy-url\) and .* is\n$/)]);
  });

  it('exits 2 with one line when --legacy-url is not a URL, or the legacy cannot be reached', async () => {
    const bad = await runCli([...LEAN, '--legacy-url', 'not a url', '--report-dir', reports()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('conformance: --legacy-url: the legacy URL "not a url" is not a URL\n');
    const gone = await runCli([...LEAN, '--legacy-url', 'http://127.0.0.1:9', '--report-dir', reports(), '--quiet', '--timeout', '30000']); // refused at once: the limit never decides
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/^conformance: cannot reach the legacy http:\/\/127\.0\.0\.1:9: [^\n]+\n$/);
    expect(gone.stderr).not.toMatch(/\n\s+at /);
  });

  it('a legacy that never answers (silent past --timeout, or closing each connection at once) leaves nothing compared: exit 2, "CONFORMANT, NOTHING COMPARED WITH THE LEGACY" in every output, never a difference', async () => {
    const silent = await startHostile('silent');
    // Accepts each connection and closes it unanswered.
    const closing = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => closing.listen(0, '127.0.0.1', r));
    try {
      // --timeout: what the silent one is waited for; long enough that the candidate is never cut on a busy machine.
      const legacies = [[silent.url, '3000'], [`http://127.0.0.1:${(closing.address() as AddressInfo).port}`, '10000']] as const;
      const runs = await Promise.all(legacies.map(async ([url, timeout]) => {
        const dir = reports();
        return { dir, ...(await runCli(['--base-url', plain.url, '--legacy-url', url, '--timeout', timeout, '--report-dir', dir, '--quiet', '--reports', 'summary,traceability,junit'])) };
      }));
      for (const r of runs) {
        expectOneVerdict(r.dir, r.stdout, r.code, 'CONFORMANT, NOTHING COMPARED WITH THE LEGACY', false);
        expect(summary(r.dir).differential).toMatchObject({ compared: 0, differences: 0, inconclusive: 20 });
        expect(r.stderr).toMatch(/^conformance: nothing was compared with the legacy: it gave no answer to every request, or answered it two ways \(20 request\(s\)\)\n$/);
      }
    } finally {
      await silent.close();
      await new Promise<void>((r) => closing.close(() => r()));
    }
  });

  it('a candidate that refuses every connection is UNREACHABLE in every output, exit 2, with no difference counted against answers that never came', async () => {
    const dir = reports();
    const r = await runCli(['--base-url', 'http://127.0.0.1:9', '--legacy-url', plain.url, '--timeout', '30000', '--report-dir', dir, '--quiet', '--reports', 'summary,traceability,junit']); // refused at once
    expectOneVerdict(dir, r.stdout, r.code, 'UNREACHABLE', false);
    expect(summary(dir).differential).toMatchObject({ compared: 0, inconclusive: 0, differences: 0, paths: [], noise: [] });
    expect(r.stdout).toContain('nothing compared: the candidate gave no answer');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).not.toMatch(/differs from the legacy/);
  });

  it('a candidate that never answers fails its route checks, as a target that never answers does without --legacy-url: NOT CONFORMANT in every output, exit 1', async () => {
    const silent = await startHostile('silent');
    try {
      const dir = reports();
      const r = await runCli(['--base-url', silent.url, '--legacy-url', plain.url, '--timeout', '3000', '--report-dir', dir, '--quiet', '--reports', 'summary,traceability,junit']);
      const words = verdictsIn(dir, r.stdout, false).summary;
      expect(words).toMatch(/^NOT CONFORMANT, DIFFERS FROM LEGACY \(\d+ values?\)$/);
      expectOneVerdict(dir, r.stdout, r.code, words, false);
      expect(r.code).toBe(1);
    } finally {
      await silent.close();
    }
  });
});
