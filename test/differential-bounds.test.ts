// A differential run (--legacy-url) against a legacy answering records of 9.5 MiB (under the 10 MiB
// cap): every value shown in any output is cut at the display bound after redaction, every output
// is written (report.html too), and the run's own peak RSS (summary.json peakRss.runBytes, measured
// in the CLI child) stays under 300 MB. Time is never asserted.
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SHOWN_VALUE } from '../lib/reporting/display.js';
import { runCli } from './helpers/cli.js';
import { PERSONAL, startLongRecordLegacy } from './helpers/long-record-legacy.js';

const MB = 1e6;

let legacy: Awaited<ReturnType<typeof startLongRecordLegacy>>;
let legacyUrl: string;
beforeAll(async () => {
  legacy = await startLongRecordLegacy();
  legacyUrl = legacy.url;
});
afterAll(() => legacy.close());

describe('a differential run against a legacy answering 9.5 MiB records', () => {
  it('cuts every shown value at the display bound, writes every output, and peaks under 300 MB', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'differential-bounds-'));
    const r = await runCli(['--legacy-url', legacyUrl, '--report-dir', dir, '--quiet', '--timeout', '60000']);
    expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/^conformance: the candidate differs from the legacy beyond noise \(\d+ differing value\(s\)\)\n$/)]);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as {
      peakRss: { runBytes: number; presentationBytes: number };
      differential: { paths: { operation: string; path: string; examples: { legacy: string; candidate: string }[] }[] };
    };
    // The differences are found, and their examples shown cut: the long string ends in "…".
    const at = (path: string) => summary.differential.paths.find((p) => p.path === path);
    const release = at('releaseMessage')!;
    expect(release.examples.length).toBeGreaterThan(0);
    for (const e of release.examples) expect(e.legacy).toBe(`${'L'.repeat(MAX_SHOWN_VALUE - 1)}…`);
    expect(at('roles')!.examples[0]!.legacy).toMatch(/^\[role-0-r+…$/);
    // Redaction first: the personal value is its marker, with its whole length, never cut text.
    expect(at('searchValues')!.examples[0]!.legacy).toBe(`«personal: string, ${PERSONAL.length} chars»`);
    for (const p of summary.differential.paths) for (const e of p.examples) {
      expect(e.legacy.length, `${p.path} legacy`).toBeLessThanOrEqual(MAX_SHOWN_VALUE);
      expect(e.candidate.length, `${p.path} candidate`).toBeLessThanOrEqual(MAX_SHOWN_VALUE);
    }
    // No output line holds a long value: the console, and every file written.
    const longest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));
    expect(longest(r.stdout), 'console').toBeLessThan(2000);
    expect(existsSync(join(dir, 'report.html')), 'report.html').toBe(true);
    // The examples are small; what the files hold besides is the kept exchanges' bodies (at most 256 KiB each).
    for (const f of ['summary.json', 'junit.xml', 'traceability.md']) expect(statSync(join(dir, f)).size, f).toBeLessThan(2 * MB);
    for (const f of ['report.html', 'exchanges.json']) expect(statSync(join(dir, f)).size, f).toBeLessThan(20 * MB);
    for (const f of readdirSync(join(dir, 'allure-results'))) expect(statSync(join(dir, 'allure-results', f)).size, f).toBeLessThan(MB);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).not.toContain('L'.repeat(MAX_SHOWN_VALUE));
    // Memory: the run (sending, judging, comparing, writing) and the presentation child, each under
    // 300 MB (the bench measures the run near 250: bench/floods.ts).
    expect(summary.peakRss.runBytes / MB, 'run').toBeLessThan(300);
    expect(summary.peakRss.presentationBytes / MB, 'presentation').toBeLessThan(300);
  }, 300_000);
});
