// A report's every string passes the redactor (boundary.ts), and a target chooses what it learns: an
// answer whose personal member was "conformant" had that token masked inside "non-conformant", so
// the verdict read "undefined" everywhere and the run exited 0 on a failing target. The values the
// harness wrote (verdict, gate, mode, its version, clock, check statuses) are now never redacted, and
// an exit code of 0 is given to the verdict "conformant" alone.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE_HASH } from '../lib/checks/catalogue.js';
import { exitCodeOf, verdictWords } from '../lib/reporting/verdict.js';
import type { Verdict } from '../lib/engine/run.js';
import { runCli } from './helpers/cli.js';

/** Every answer: 200 JSON, a record whose personal members spell the report's own values. */
const BODY = JSON.stringify({ displayName: 'conformant', firstName: CATALOGUE_HASH, lastName: process.version, nickname: 'non-conformant traceability' });

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(200, { 'content-type': 'application/json' }); s.end(BODY); }); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Summary { verdict: string; exitCode: number; catalogueHash: string; node: string; mode: string; gate: string; checks: { status: string }[] }

describe('values a target sends as personal data', () => {
  it('do not mask the verdict, exit code, catalogue hash, node version, mode, gate or check statuses the report states', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verdict-not-masked-'));
    const r = await runCli(['--base-url', url, '--reports', 'summary,junit,traceability', '--report-dir', dir]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('NOT CONFORMANT');
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    expect(summary.verdict).toBe('non-conformant');
    expect(summary.exitCode).toBe(1);
    expect(summary.catalogueHash).toBe(CATALOGUE_HASH);
    expect(summary.node).toBe(process.version);
    expect([summary.mode, summary.gate]).toEqual(['probe', 'must']);
    expect(new Set(summary.checks.map((c) => c.status))).toEqual(new Set(['passed', 'failed', 'skipped']));
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('name="conformance: NOT CONFORMANT');
    expect(readFileSync(join(dir, 'traceability.md'), 'utf8')).toContain('NOT CONFORMANT');
    // The values themselves, where the target sent them, are still masked.
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).not.toContain('"displayName":"conformant"');
  }, 120_000);

  it('a verdict that is none of the harness\'s words exits 2 and is said to be no verdict', () => {
    const altered = { verdict: 'non-«secret: 10 chars»' as Verdict, gate: 'must' as const, checks: [] };
    expect(exitCodeOf(altered)).toBe(2);
    expect(verdictWords(altered)).toBe('NO VERDICT OF THE HARNESS ("non-«secret: 10 chars»")');
  });
});
